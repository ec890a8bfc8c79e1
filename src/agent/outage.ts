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

/**
 * The outage inside an error, if any. Matched by name, like model-service failures: the graph runtime hands on a
 * copy of what a node threw, and may wrap it.
 */
export function serviceUnavailable(error: unknown): { message: string; detail: string } | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const outage = e as { name?: string; message?: string; detail?: unknown };
    if (outage.name === 'ServiceUnavailableError' && outage.message)
      return { message: outage.message, detail: typeof outage.detail === 'string' ? outage.detail : '' };
  }
  return undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
