import { ErpHttpError, erpRequest } from '../erp/index.ts';
import { ProblemError } from '../shared/index.ts';
import type { ApiUser } from './auth.ts';

/**
 * One ERP request as the signed-in user (their token, project and a trace id naming the feature): the ERP decides and
 * checks, so its roles and rules stay the only ones. Its own refusal (403, 404, 409, 422) is the answer, passed on
 * with its status; an ERP that cannot be reached is a 503.
 */
export async function erpAsUser<T>(
  erpUrl: string,
  user: ApiUser,
  feature: string,
  method: string,
  path: string,
  request?: Parameters<typeof erpRequest>[3],
): Promise<T> {
  try {
    return await erpRequest<T>(
      { baseUrl: erpUrl, token: user.token, projectId: user.projectId, traceId: `${feature}-${user.username}` },
      method,
      path,
      request,
    );
  } catch (error) {
    if (error instanceof ErpHttpError && error.status >= 400 && error.status < 500)
      throw new ProblemError(error.status, error.code, error.message, {
        ...(error.fieldErrors.length ? { errors: error.fieldErrors } : {}),
      });
    throw new ProblemError(503, 'erp_unavailable', `ERP 不可用 / ERP unavailable: ${(error as Error).message}`);
  }
}
