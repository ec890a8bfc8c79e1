import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { CONVERSATION, type Conversation, conversationAttributes } from './conversation.ts';

/** Runs `work` inside a conversation: every span started within it (HTTP clients included) carries its attributes. */
export function withConversation<T>(c: Conversation, work: () => T): T {
  return context.with(context.active().setValue(CONVERSATION, c), work);
}

/** Names the current HTTP request's conversation once the handler knows it. */
export function markConversation(c: Conversation): void {
  trace.getActiveSpan()?.setAttributes(conversationAttributes(c));
}

export interface Telemetry {
  /** Sends everything recorded so far. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

let active: Telemetry | undefined;

/**
 * OpenTelemetry over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: traces (with HTTP client spans for every
 * `fetch`), metrics, W3C trace context. Without it nothing is loaded or set up, and the API's no-op tracer and meter
 * are used. Standard `OTEL_*` settings (`OTEL_SERVICE_NAME`, `OTEL_EXPORTER_OTLP_HEADERS`, …) apply.
 */
export async function startTelemetry(env: NodeJS.ProcessEnv = process.env): Promise<Telemetry | undefined> {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint) return undefined;
  if (active) return active;
  const { startSdk } = await import('./telemetry-sdk.ts');
  const sdk = startSdk(endpoint.replace(/\/$/, ''), env.OTEL_SERVICE_NAME || 'procura', CONVERSATION);
  active = {
    flush: sdk.flush,
    shutdown: async () => {
      await sdk.shutdown();
      active = undefined;
    },
  };
  return active;
}

/** Whether telemetry is exported (so callers skip building spans nobody receives). */
export function telemetryEnabled(): boolean {
  return active !== undefined;
}

/**
 * An HTTP server span per request (`GET /api/v1/history/sessions/:id`, semantic-convention attributes),
 * continuing the caller's trace context. No-op without telemetry.
 */
export function httpServerSpans(service: string): MiddlewareHandler {
  const tracer = trace.getTracer(service);
  return async (c, next) => {
    if (!active) return next();
    const parent = propagation.extract(context.active(), Object.fromEntries(c.req.raw.headers));
    const url = new URL(c.req.url);
    const span = tracer.startSpan(
      `${c.req.method} ${url.pathname}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': c.req.method,
          'url.path': url.pathname,
          'url.scheme': url.protocol.replace(':', ''),
          'server.address': url.hostname,
        },
      },
      parent,
    );
    await context.with(trace.setSpan(parent, span), async () => {
      try {
        await next();
        // Named by the matched route (`/api/v1/history/sessions/:id`), not the path, so names stay few.
        const route = matchedRoutes(c).find((r) => r.method !== 'ALL' && !r.path.includes('*'))?.path;
        if (route) {
          span.updateName(`${c.req.method} ${route}`);
          span.setAttribute('http.route', route);
        }
        span.setAttribute('http.response.status_code', c.res.status);
        if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  };
}
