// Optional OpenTelemetry export (OTLP over HTTP, JSON encoding): when
// `tracing.otlpEndpoint` is set, each call gets a SERVER span — a child of the
// caller's traceparent (or the root of a new trace) — whose id becomes the
// parent id of the traceparent sent upstream; finished spans are batched and
// POSTed to {endpoint}/v1/traces. Off by default: then nothing here runs.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { request } from 'undici';

export interface TracingConfig {
  otlpEndpoint: string;
  serviceName: string;
  flushIntervalMs: number;
}

export interface Span {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  flags: string;
  startNs: bigint;
}

const MAX_BATCH = 512;

export class OtlpTracer {
  private batch: unknown[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly cfg: TracingConfig,
    private readonly log: Logger,
  ) {
    this.timer = setInterval(() => void this.flush(), cfg.flushIntervalMs);
    this.timer.unref();
  }

  /** A span for a call with this (valid) traceparent; returns the traceparent to send upstream. */
  start(traceparent: string): { span: Span; traceparent: string } {
    const [, traceId = '', parent, flags = '01'] = traceparent.split('-');
    const span: Span = {
      traceId,
      spanId: randomBytes(8).toString('hex'),
      parentSpanId: parent,
      flags,
      startNs: process.hrtime.bigint(),
    };
    return { span, traceparent: `00-${traceId}-${span.spanId}-${flags}` };
  }

  end(span: Span, name: string, attributes: Record<string, string>, error: string | undefined): void {
    const now = BigInt(Date.now()) * 1_000_000n;
    const elapsed = process.hrtime.bigint() - span.startNs;
    this.batch.push({
      traceId: span.traceId,
      spanId: span.spanId,
      ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
      name,
      kind: 2,
      startTimeUnixNano: String(now - elapsed),
      endTimeUnixNano: String(now),
      attributes: Object.entries(attributes).map(([key, v]) => ({ key, value: { stringValue: v } })),
      status: error ? { code: 2, message: error } : { code: 1 },
    });
    if (this.batch.length >= MAX_BATCH) void this.flush();
  }

  async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const spans = this.batch;
    this.batch = [];
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: this.cfg.serviceName } }] },
          scopeSpans: [{ scope: { name: 'a2a-gateway' }, spans }],
        },
      ],
    };
    try {
      const res = await request(`${this.cfg.otlpEndpoint.replace(/\/+$/, '')}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        headersTimeout: 5000,
        bodyTimeout: 5000,
      });
      await res.body.dump();
      if (res.statusCode >= 300) this.log.warn({ status: res.statusCode, spans: spans.length }, 'OTLP export rejected');
    } catch (e) {
      this.log.warn({ err: (e as Error).message, spans: spans.length }, 'OTLP export failed; spans dropped');
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
