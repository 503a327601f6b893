// Distributed tracing with the OpenTelemetry JS SDK (issue 15 item 5; spec
// §13: trace context propagation). Every call has a W3C trace context: the
// caller's traceparent/tracestate when valid, else a new trace. With
// `tracing:` configured each call is a SERVER span — a child of the caller's
// span, or a root span (never a child of an invented parent) — sampled
// parent-based with a ratio for new traces (a caller's sampled=00 is kept),
// exported in batches over OTLP (HTTP/JSON, HTTP/protobuf or gRPC, with
// headers), with semantic-convention attributes (rpc.*, url.*, client.*,
// server.*) and the A2A ones (a2a.*). The upstream gets the span as its parent.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { BasicTracerProvider, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { TracingConfig } from '../config/types.js';
import type { HeaderGetter } from '../http/request.js';

const propagator = new W3CTraceContextPropagator();
const getter = {
  get: (carrier: HeaderGetter, key: string) => carrier(key),
  keys: () => ['traceparent', 'tracestate'],
};

/** The span of one call and the trace context the upstream gets. */
export interface CallSpan {
  span: Span | undefined;
  traceparent: string;
  tracestate: string | undefined;
}

/** The configured protocol's exporter, loaded only then. */
async function exporter(cfg: TracingConfig): Promise<SpanExporter> {
  const base = cfg.otlpEndpoint.replace(/\/+$/, '');
  if (cfg.protocol === 'grpc') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-grpc');
    return new OTLPTraceExporter({ url: base, headers: cfg.headers } as never);
  }
  const url = `${base}/v1/traces`;
  const { OTLPTraceExporter } =
    cfg.protocol === 'http/protobuf'
      ? await import('@opentelemetry/exporter-trace-otlp-proto')
      : await import('@opentelemetry/exporter-trace-otlp-http');
  return new OTLPTraceExporter({ url, headers: cfg.headers });
}

export class Tracing {
  private readonly provider: BasicTracerProvider;
  private readonly tracer: Tracer;

  private constructor(provider: BasicTracerProvider) {
    this.provider = provider;
    this.tracer = provider.getTracer('a2a-gateway');
  }

  /** The SDK is loaded only when tracing is configured (with an exporter, ~30 MiB of modules). */
  static async create(cfg: TracingConfig): Promise<Tracing> {
    const [sdk, { resourceFromAttributes }, { ATTR_SERVICE_NAME }] = await Promise.all([
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/semantic-conventions'),
    ]);
    const provider = new sdk.BasicTracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: cfg.serviceName }),
      sampler: new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(cfg.sampleRatio) }),
      spanProcessors: [new sdk.BatchSpanProcessor(await exporter(cfg), { scheduledDelayMillis: cfg.flushIntervalMs })],
    });
    return new Tracing(provider);
  }

  /** A SERVER span for a call whose caller sent these headers (a root span when it sent no valid traceparent). */
  start(name: string, headers: HeaderGetter, attributes: Record<string, string>): CallSpan {
    const parent = propagator.extract(context.active(), headers, getter);
    const span = this.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
    const carrier: Record<string, string> = {};
    propagator.inject(trace.setSpan(parent, span), carrier, { set: (c, k, v) => (c[k] = v) });
    return { span, traceparent: carrier.traceparent ?? '', tracestate: carrier.tracestate };
  }

  end(s: CallSpan, attributes: Record<string, string | number>, error: string | undefined): void {
    if (!s.span) return;
    s.span.setAttributes(attributes);
    s.span.setStatus(error ? { code: SpanStatusCode.ERROR, message: error } : { code: SpanStatusCode.OK });
    s.span.end();
  }

  async close(): Promise<void> {
    await this.provider.shutdown();
  }
}

// The W3C propagator is global for code that asks the API (none in the hot path does).
propagation.setGlobalPropagator(propagator);
