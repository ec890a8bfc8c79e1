import { type Context, metrics, propagation, trace } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, NodeTracerProvider, type Span, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { type Conversation, conversationAttributes } from './conversation.ts';

/** Copies the conversation of the context a span starts in onto the span. */
class ConversationSpanProcessor implements SpanProcessor {
  constructor(private readonly key: symbol) {}
  onStart(span: Span, parent: Context): void {
    const c = parent.getValue(this.key) as Conversation | undefined;
    if (c) span.setAttributes(conversationAttributes(c));
  }
  onEnd(): void {}
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

/** The SDK: tracer and meter providers exporting OTLP/HTTP to `base`, and HTTP client spans for `fetch`. */
export function startSdk(base: string, serviceName: string, conversationKey: symbol) {
  const resource = resourceFromAttributes({ 'service.name': serviceName });
  const tracing = new NodeTracerProvider({
    resource,
    spanProcessors: [
      new ConversationSpanProcessor(conversationKey),
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${base}/v1/traces` }), { scheduledDelayMillis: 1_000 }),
    ],
  });
  tracing.register();
  const meters = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: `${base}/v1/metrics` }),
        exportIntervalMillis: 15_000,
      }),
    ],
  });
  metrics.setGlobalMeterProvider(meters);
  const undici = new UndiciInstrumentation({
    // The exporter's own requests are not traced (they would trace themselves forever).
    ignoreRequestHook: (request) => `${request.origin}${request.path}`.startsWith(base),
  });
  undici.setTracerProvider(tracing);
  undici.setMeterProvider(meters);
  undici.enable();
  return {
    flush: async () => {
      await tracing.forceFlush();
      await meters.forceFlush();
    },
    shutdown: async () => {
      undici.disable();
      await tracing.shutdown();
      await meters.shutdown();
      trace.disable();
      metrics.disable();
      propagation.disable();
    },
  };
}
