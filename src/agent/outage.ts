import { findNamedError } from '../shared/index.ts';
import { unavailableService } from '../tools/index.ts';

/**
 * A service the run cannot go on without is down (the ERP, a required MCP server): the run ends with a retryable
 * error naming it, never with an answer built on a failed look-up (an outage is not "nothing found").
 */
export class ServiceUnavailableError extends Error {
  override name = 'ServiceUnavailableError';
  constructor(
    readonly service: string,
    /** What the tool reported, for the error event's detail. */
    readonly detail: string,
  ) {
    super(
      `服务不可用：${service} 暂时无法访问，请稍后重试 / ${service} is unavailable: nothing was looked up or changed by the failed step; retry in a moment`,
    );
  }
}

/** The outage a tool's result reports, as the error that ends the run; undefined for any other result. */
export function outageOf(result: unknown): ServiceUnavailableError | undefined {
  const parsed = typeof result === 'string' && result.startsWith('{"success":false') ? safeJson(result) : result;
  const service = unavailableService(parsed);
  return service
    ? new ServiceUnavailableError(service, String((parsed as { error?: unknown }).error ?? ''))
    : undefined;
}

/** The outage inside an error (or inside the aggregate of a step's parallel failures), if any. */
export function serviceUnavailable(error: unknown): { message: string; detail: string } | undefined {
  const outage = findNamedError(error, 'ServiceUnavailableError');
  return outage && { message: outage.message, detail: typeof outage.detail === 'string' ? outage.detail : '' };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
