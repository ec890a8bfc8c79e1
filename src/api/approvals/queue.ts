import { ErpHttpError, erpRequest, type Order } from '../../erp/index.ts';
import type { AdminDecision, PendingOrders } from '../../protocol/index.ts';
import { forbidden, ProblemError } from '../../shared/index.ts';
import type { ApiUser } from '../auth.ts';

const MAX_PENDING = 50;

/**
 * The admin's approval queue: orders waiting in the ERP with the policy's reasons and each line's price check, and
 * the admin's decision with a comment. The ERP does the deciding and the checking, as the signed-in admin; this
 * only carries the admin's token there, so the ERP's roles and policy stay the only rules.
 */
export class OrderApprovals {
  constructor(private readonly erpUrl: string) {}

  async pending(user: ApiUser): Promise<PendingOrders & { items: Order[] }> {
    requireAdmin(user);
    const page = await this.erp<{ items: Order[]; total: number }>(user, 'GET', '/orders/search', {
      query: { status: 'pending_approval', size: MAX_PENDING },
    });
    return { items: page.items, total: page.total };
  }

  async decide(user: ApiUser, orderId: number, input: AdminDecision): Promise<Order> {
    requireAdmin(user);
    return this.erp<Order>(user, 'POST', `/orders/${orderId}/${input.decision}`, {
      body: { version: input.version, ...(input.comment ? { comment: input.comment } : {}) },
    });
  }

  private async erp<T>(user: ApiUser, method: string, path: string, request: Parameters<typeof erpRequest>[3]) {
    try {
      return await erpRequest<T>(
        { baseUrl: this.erpUrl, token: user.token, projectId: user.projectId, traceId: `approvals-${user.username}` },
        method,
        path,
        request,
      );
    } catch (error) {
      // The ERP's own refusal (403, 404, 409, 422) is the answer, passed on with its status.
      if (error instanceof ErpHttpError && error.status >= 400 && error.status < 500)
        throw new ProblemError(error.status, error.code, error.message, {
          ...(error.fieldErrors.length ? { errors: error.fieldErrors } : {}),
        });
      throw new ProblemError(503, 'erp_unavailable', `ERP 不可用 / ERP unavailable: ${(error as Error).message}`);
    }
  }
}

function requireAdmin(user: ApiUser) {
  if (user.role !== 'admin') throw forbidden('只有管理员可以审批订单 / only an admin may approve orders');
}
