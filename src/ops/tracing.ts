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
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as HttpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
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

function exporter(cfg: TracingConfig): SpanExporter {
  const base = cfg.otlpEndpoint.replace(/\/+$/, '');
  if (cfg.protocol === 'grpc') return new GrpcExporter({ url: base, headers: cfg.headers } as never);
  const url = `${base}/v1/traces`;
  return cfg.protocol === 'http/protobuf'
    ? new HttpProtoExporter({ url, headers: cfg.headers })
    : new HttpJsonExporter({ url, headers: cfg.headers });
}

export class Tracing {
  private readonly provider: BasicTracerProvider;
  private readonly tracer: Tracer;

  constructor(cfg: TracingConfig) {
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: cfg.serviceName }),
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(cfg.sampleRatio) }),
      spanProcessors: [new BatchSpanProcessor(exporter(cfg), { scheduledDelayMillis: cfg.flushIntervalMs })],
    });
    this.tracer = this.provider.getTracer('a2a-gateway');
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
