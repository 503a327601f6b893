// Stage `observe` (outermost): the one call observer. It holds the call's
// config generation open, starts the trace context (W3C traceparent: the
// caller's, else a new trace; with OTLP export a SERVER span whose id the
// upstream sees as its parent), writes a translated answer in the caller's
// form with the Call's writer (an answer the caller's binding or version
// cannot carry fails the call here, §3.3.2), and when the call ends — unary answer, stream
// end, failure or caller gone — runs the stages' end hooks and writes the one
// log line and the metrics (both with the caller's and the upstream's A2A
// version, issue 13; a relayed stream's event count too) and the span. Errors leave here redacted (no secret of
// the call in a message, §13) and mapped: caller gone = CANCELLED, drain =
// SHUTTING_DOWN.
import type { Readable } from 'node:stream';
import { mapEvents } from '../../core/event-stream.js';
import { acceptedTraceparent, newTraceparent, traceIdOf } from '../../core/trace-context.js';
import { namesTask } from '../../core/methods.js';
import { redactError, routeSecrets, secretsOf } from '../../core/secrets.js';
import { A2AError, asA2AError, nameFromHttp } from '../../errors/a2a-error.js';
import type { StreamResponse } from '../../gen/a2a_pb.js';
import { GRPC_CODES } from '../../errors/catalogue.js';
import type { Metrics } from '../../ops/metrics.js';
import type { CallSpan, Tracing } from '../../ops/tracing.js';
import { LINE_ROUTE, type AccessLine, type AccessLog } from '../../ops/access-log.js';
import type { Answer, Call } from '../call.js';
import { runEndHooks, type Handler } from '../stage.js';
import { ProtoJsonError } from '../../proto/json.js';

export interface ObserveDeps {
  access: AccessLog;
  metrics: Metrics;
  tracer: Tracing | undefined;
  /** Aborted when a drain's grace period ends. */
  shutdown: AbortSignal;
}

/** Marks a stream the edge stopped pulling (the caller went away, or the edge ended it). */
const ABANDONED = Symbol('abandoned');

/**
 * The events passed on one by one (each written by `write` when given), counted; `done` runs once at the end and maps
 * a failure to what is thrown on.
 */
function counted<T, U = T>(
  src: AsyncIterable<T>,
  onEvent: () => void,
  done: (err: unknown, n: number) => A2AError | undefined,
  write?: (event: T) => U,
): AsyncIterable<U> {
  let n = 0;
  let settled = false;
  const settle = (e: unknown): A2AError | undefined => {
    if (settled) return undefined;
    settled = true;
    return done(e, n);
  };
  return mapEvents<T, U>({
    open: () => src,
    each: (e) => {
      let out: U;
      try {
        out = write ? write(e) : (e as unknown as U);
      } catch (x) {
        throw unwritable(x);
      }
      n++;
      onEvent();
      return out;
    },
    end: () => void settle(undefined),
    error: (e) => settle(e) ?? e,
    close: () => void settle(ABANDONED),
  });
}

/** A failure to write the agent's answer in the caller's form: the answer is what was wrong (§3.3.2). */
function unwritable(e: unknown): A2AError {
  if (e instanceof A2AError) return e;
  const why = e instanceof ProtoJsonError ? e.message : 'the answer cannot be written';
  return A2AError.of('INVALID_AGENT_RESPONSE', `upstream answer: ${why}`, { internal: String(e) });
}

/** Calls `done` once when the relayed body has been piped to its end, failed, or was abandoned. */
function watchBody(body: Readable | Buffer, done: (err: unknown) => void): void {
  if (Buffer.isBuffer(body)) return done(undefined);
  let called = false;
  const once = (e: unknown): void => {
    if (called) return;
    called = true;
    done(e);
  };
  body.once('error', once);
  body.once('close', () => once(body.readableEnded ? undefined : new Error('the relay ended before the body')));
}

/** OpenTelemetry semantic-convention attributes of a call's SERVER span, and the A2A ones. */
function spanAttributes(call: Call): Record<string, string> {
  const attrs: Record<string, string> = {
    'rpc.system': call.inbound === 'GRPC' ? 'grpc' : call.inbound === 'JSONRPC' ? 'jsonrpc' : 'a2a-http+json',
    'rpc.service': 'lf.a2a.v1.A2AService',
    'rpc.method': call.method.name,
    'a2a.inbound': call.inbound,
    'a2a.request_id': call.requestId,
  };
  if (call.view.remoteAddress) attrs['client.address'] = call.view.remoteAddress;
  if (call.view.host) attrs['server.address'] = call.view.host.replace(/:\d+$/, '');
  return attrs;
}

/** The call's access log line (ops/access-log.ts). */
function accessLine(
  call: Call,
  err: A2AError | undefined,
  outcome: string,
  seconds: number,
  events: number,
): AccessLine {
  const line: AccessLine = {
    requestId: call.requestId,
    client: call.view.remoteAddress ?? null,
    method: call.method.name,
    route: call.route?.name ?? null,
    inbound: call.inbound,
    // the caller's A2A version (Major.Minor; null when refused before it was read) and the upstream interface's
    version: call.version ?? null,
    upstream: call.upstream?.binding ?? null,
    upstreamVersion: call.upstream?.version ?? null,
    outcome,
    durationMs: Math.round(seconds * 1e6) / 1000,
    bytesIn: call.request.size,
    traceId: traceIdOf(call.traceparent),
  };
  if (call.route) line[LINE_ROUTE] = call.route;
  if (err) line.error = err.message;
  // what the caller is not told (an upstream's address, a socket error) is logged
  if (err?.internal !== undefined) line.errorDetail = err.internal;
  if (call.caller) line.caller = call.caller;
  if (call.method.streaming) line.events = events;
  if (call.route?.passThrough && call.upstream?.binding === call.inbound && call.upstream.version === call.dialect) {
    line.passThrough = true;
  }
  return line;
}

export function observe(deps: ObserveDeps, next: Handler): Handler {
  const { access, metrics, tracer, shutdown } = deps;

  /** The error as the caller gets it: mapped for cancellation and drain, secrets redacted. */
  function failure(call: Call, e: unknown): A2AError {
    if (shutdown.aborted && call.method.streaming) {
      return A2AError.of('SHUTTING_DOWN', 'the gateway is shutting down; retry on another replica');
    }
    if (call.signal.aborted && !(e instanceof A2AError && e.relayed !== undefined)) {
      return A2AError.of('CANCELLED', 'the caller went away');
    }
    const err = asA2AError(e);
    return call.route
      ? redactError(err, secretsOf(call.envelope, call.route, call.view), routeSecrets(call.route))
      : err;
  }

  function finish(call: Call, span: CallSpan | undefined, err: A2AError | undefined, events: number): void {
    runEndHooks(call, err, events);
    const route = call.route?.name ?? '-';
    const upstream = call.upstream?.binding ?? '-';
    const outcome = err ? err.errorName : 'OK';
    const seconds = Number(process.hrtime.bigint() - call.started) / 1e9;
    metrics.call(
      route,
      call.method.name,
      call.inbound,
      upstream,
      outcome,
      seconds,
      call.dialect,
      call.upstream?.version,
    );
    if (access.wanted) access.write(accessLine(call, err, outcome, seconds, events), call.wire);
    if (span && tracer) {
      const attrs: Record<string, string | number> = {
        'a2a.route': route,
        'a2a.upstream': upstream,
        'a2a.outcome': outcome,
        'a2a.version': call.version ?? call.dialect,
        'a2a.events': events,
      };
      if (call.inbound === 'GRPC') attrs['rpc.grpc.status_code'] = err ? GRPC_CODES[err.row.grpc] : 0;
      tracer.end(span, attrs, err?.message);
    }
    call.generation.upstreams.release();
  }

  function streamed(
    call: Call,
    span: CallSpan | undefined,
  ): { onEvent: () => void; done: (e: unknown, n: number) => A2AError | undefined } {
    const route = call.route?.name ?? '-';
    metrics.streamOpened(route, call.inbound);
    return {
      onEvent: () => metrics.streamEvent(route, call.inbound),
      done: (e, n) => {
        metrics.streamClosed(route, call.inbound);
        const gone = e === ABANDONED && !call.signal.aborted && !shutdown.aborted;
        const err = e === undefined || gone ? undefined : failure(call, e);
        finish(call, span, err, n);
        return err;
      },
    };
  }

  return async (call) => {
    call.generation.upstreams.acquire();
    let span: CallSpan | undefined;
    if (tracer) {
      span = tracer.start(call.method.name, call.view.header, spanAttributes(call));
      call.traceparent = span.traceparent;
      call.tracestate = span.tracestate;
    } else {
      call.traceparent = acceptedTraceparent(call.view.header('traceparent')) ?? newTraceparent();
    }
    let answer: Answer;
    try {
      answer = await next(call);
    } catch (e) {
      const err = failure(call, e);
      finish(call, span, err, 0);
      throw err;
    }
    switch (answer.kind) {
      case 'unary': {
        const writer = call.writer;
        if (writer === undefined) break;
        let value: unknown;
        try {
          value = writer.unary(answer.response, call.method);
        } catch (e) {
          const err = failure(call, unwritable(e));
          finish(call, span, err, 0);
          throw err;
        }
        finish(call, span, undefined, 0);
        return { kind: 'written', value };
      }
      case 'stream': {
        const s = streamed(call, span);
        const writer = call.writer;
        if (writer === undefined)
          return { ...answer, events: counted<StreamResponse>(answer.events, s.onEvent, s.done) };
        const write = (e: StreamResponse): unknown => writer.event(e, call.method);
        const events = counted(answer.events, s.onEvent, s.done, write);
        return answer.quietMs === undefined
          ? { kind: 'writtenStream', events }
          : { kind: 'writtenStream', events, quietMs: answer.quietMs };
      }
      case 'relayStream': {
        const s = streamed(call, span);
        return { kind: 'relayStream', messages: counted(answer.messages, s.onEvent, s.done) };
      }
      case 'relayHttp': {
        const name =
          answer.status === 404
            ? namesTask(call.method)
              ? 'TASK_NOT_FOUND'
              : 'METHOD_NOT_FOUND'
            : nameFromHttp(answer.status);
        // an error the answer carries has the agent's text: redacted as any error the caller could have put there
        const err = answer.error
          ? failure(call, answer.error)
          : answer.status >= 400
            ? A2AError.of(name, `upstream HTTP ${answer.status}`)
            : undefined;
        if (!call.method.streaming) {
          watchBody(answer.body, () => finish(call, span, err, 0));
          return answer;
        }
        const s = streamed(call, span);
        // a piped SSE body's events, counted as they passed (stage send), once it ends
        const sse = answer.sse;
        watchBody(answer.body, (e) => {
          const n = sse?.events ?? 0;
          if (n > 0) metrics.streamEvent(call.route?.name ?? '-', call.inbound, n);
          void s.done(err ?? e, n);
        });
        return answer;
      }
    }
    // a typed unary answer for an edge that writes it itself, a relayed message, or (never) a written one
    finish(call, span, undefined, 0);
    return answer;
  };
}
