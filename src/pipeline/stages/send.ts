// The terminal `send`: the call leaves for the interface `selectUpstream`
// chose. A pass-through hands its request to its inbound binding's relay
// (same binding, bytes as they came). A translated call gets its envelope
// finished for the interface (the tenant per policy, the interface's
// A2A-Version) and goes through the generation's client for that binding. An
// answer the agent should not give is INVALID_AGENT_RESPONSE (§3.3.2): an
// empty answer where the method must return something, a stream without an event.
// Streams end on the caller's signal, the drain's end, or the route's
// timeouts (the first event within timeoutMs, then streamIdleTimeoutMs
// between events), a relayed stream as a translated one; a piped SSE answer's
// events are counted from its bytes as they pass (sse/event-count.ts).
import { setMaxListeners } from 'node:events';
import { Readable } from 'node:stream';
import { create, isFieldSet, type DescMessage } from '@bufbuild/protobuf';
import type { RouteConfig } from '../../config/types.js';
import type { ResolvedUpstream } from '../../card/upstream-card.js';
import { holdToHistoryLength } from '../../compat/v0_3/history-limit.js';
import type { Envelope } from '../../core/envelope.js';
import { mapEvents } from '../../core/event-stream.js';
import { withIdleTimeout, type FirstEvent } from '../../core/idle-timeout.js';
import type { AnyResponse, MethodInfo } from '../../core/methods.js';
import { requiredViolations } from '../../core/validate.js';
import { A2AError } from '../../errors/a2a-error.js';
import { TaskState, type StreamResponse } from '../../gen/a2a_pb.js';
import type { Metrics } from '../../ops/metrics.js';
import { SseEventCount } from '../../sse/event-count.js';
import { isRelay, type Answer, type Call } from '../call.js';
import type { Handler } from '../stage.js';
import { CallSignal, whenAborted, type AbortLike } from '../../util/call-signal.js';

/** The envelope as this interface gets it: tenant by the route's policy, the interface's version. */
function forInterface(env: Envelope, route: RouteConfig, to: ResolvedUpstream): Envelope {
  const keep = route.upstream.tenant.mode === 'keep';
  const tenant = keep ? env.tenant || to.tenant : env.tenant;
  const request = env.request.value!;
  const sp = { ...env.serviceParameters, version: to.version };
  const withTenant = request.tenant === tenant ? request : { ...request, tenant };
  return {
    ...env,
    tenant,
    serviceParameters: sp,
    request: { ...env.request, value: withTenant } as Envelope['request'],
  };
}

/** Whether an answer of this type must carry something (a REQUIRED field or a oneof). */
const mustCarry = new Map<string, boolean>();
function carries(schema: DescMessage): boolean {
  let v = mustCarry.get(schema.typeName);
  if (v === undefined) {
    v = schema.oneofs.length > 0 || requiredViolations(schema, create(schema)).length > 0;
    mustCarry.set(schema.typeName, v);
  }
  return v;
}

/** An empty answer where the method must return something (e.g. a gRPC OK with an empty message) is not an answer. */
function checkAnswer(info: MethodInfo, response: AnyResponse | StreamResponse): void {
  const schema = info.responseSchema;
  if (carries(schema) && !schema.fields.some((f) => isFieldSet(response, f))) {
    throw A2AError.of('INVALID_AGENT_RESPONSE', `upstream answered ${info.name} with an empty ${schema.name}`);
  }
}

const TERMINAL: ReadonlySet<TaskState> = new Set([
  TaskState.COMPLETED,
  TaskState.FAILED,
  TaskState.CANCELED,
  TaskState.REJECTED,
]);

const isTerminal = (state: TaskState | undefined): boolean => state !== undefined && TERMINAL.has(state);

/**
 * An event after which the stream must close (§3.1.2, §3.1.6): a message (a message-only stream), or a task or
 * status update in a terminal state. (Not an interrupted state: a subscriber may wait on an input-required task.)
 */
function endsStream(e: StreamResponse): boolean {
  const p = e.payload;
  if (p.case === 'message') return true;
  if (p.case === 'task' || p.case === 'statusUpdate') return isTerminal(p.value.status?.state);
  return false;
}

/** How long an agent may go on after an event that ends its stream (a last Task snapshot, §11.7) before it is ended. */
const FINAL_GRACE_MS = 1000;

/**
 * The upstream's events, each checked; none at all is INVALID_AGENT_RESPONSE. A stream it did not end is aborted.
 * `terminalFirst`: a first event that is a task in a terminal state is the call's refusal (a 0.3 agent answers a
 * resubscribe to a finished task with the task; 1.0's SubscribeToTask refuses it, §3.1.6).
 */
function checkedStream(
  info: MethodInfo,
  events: AsyncIterable<StreamResponse>,
  abort: AbortController,
  release: () => void,
  terminalFirst: boolean,
): AsyncIterable<StreamResponse> {
  let n = 0;
  return mapEvents({
    open: () => events,
    each: (e) => {
      checkAnswer(info, e);
      if (n++ === 0 && terminalFirst && e.payload.case === 'task' && isTerminal(e.payload.value.status?.state)) {
        throw A2AError.of('UNSUPPORTED_OPERATION', `task ${e.payload.value.id} is in a terminal state`);
      }
      return e;
    },
    end: () => {
      if (n === 0) throw A2AError.of('INVALID_AGENT_RESPONSE', `upstream ended ${info.name} without an event`);
    },
    close: (ended) => {
      release();
      // a stream the upstream ended has nothing left to stop (an abort builds a DOMException with its stack: ~20 µs)
      if (!ended) abort.abort();
    },
  });
}

/**
 * The first event's limit for a stream to `to` (core/idle-timeout.ts): the route's timeoutMs, less what the call
 * already waited (a relay's answer head). None for a 0.3 agent's resubscribe: 0.3 has it resume only the task's
 * later updates, so a quiet task may send nothing (1.0's SubscribeToTask sends the task first, §3.1.6).
 */
function firstEvent(call: Call, route: RouteConfig, to: ResolvedUpstream, waitedMs = 0): FirstEvent | undefined {
  if (call.method.name === 'SubscribeToTask' && to.version === '0.3') return undefined;
  return { leftMs: Math.max(1, route.timeoutMs - waitedMs), timeoutMs: route.timeoutMs };
}

/** How long a stream with no first-event limit may be quiet before the caller's answer opens: one keep-alive period. */
function quietStart(route: RouteConfig): number {
  return route.sseKeepAliveMs > 0 ? Math.min(route.sseKeepAliveMs, route.timeoutMs) : route.timeoutMs;
}

/**
 * A relayed stream with a translated one's timeouts: its first message or bytes within `first`, then none missing
 * for streamIdleTimeoutMs (over HTTP any bytes count, the agent's keep-alive comments too). Ending the wrapped
 * stream (a timeout, the caller leaving) ends the agent's: the gRPC relay's return() cancels its call, and a relayed
 * body is destroyed with the stream read from it (a pending read of it would otherwise wait for its next bytes).
 */
function relayedStream(answer: Answer, route: RouteConfig, first: FirstEvent | undefined, release: () => void): Answer {
  const idle = route.streamIdleTimeoutMs;
  if (answer.kind === 'relayStream') {
    const timed = withIdleTimeout(answer.messages, idle, undefined, first);
    return { ...answer, messages: mapEvents({ open: () => timed, close: release }) };
  }
  if (answer.kind === 'relayHttp' && !Buffer.isBuffer(answer.body)) {
    const agent = answer.body;
    // its events counted as they pass, for the log line and the stream-event metric (stage observe)
    const sse = new SseEventCount();
    const counted = mapEvents<Buffer>({ open: () => agent, each: (chunk) => (sse.feed(chunk), chunk) });
    const body = Readable.from(withIdleTimeout(counted, idle, undefined, first), { objectMode: false });
    body.once('close', () => {
      release();
      if (!agent.destroyed) agent.destroy();
    });
    return { ...answer, body, sse };
  }
  release();
  return answer;
}

/**
 * A relayed stream's signal: the caller's, or the drain's end (pipeline.endStreams), which ends a relayed stream as
 * it ends a translated one (the agent's call cancelled; the caller told SHUTTING_DOWN where its binding can say it).
 */
function relaySignal(caller: AbortLike, shutdown: AbortSignal): { signal: CallSignal; release: () => void } {
  const signal = new CallSignal();
  const stop = (): void => signal.abort();
  whenAborted(caller, stop);
  whenAborted(shutdown, stop);
  const release = (): void => {
    caller.removeEventListener('abort', stop);
    shutdown.removeEventListener('abort', stop);
  };
  return { signal, release };
}

export function send(metrics: Metrics, shutdown: AbortSignal): Handler {
  return async (call: Call): Promise<Answer> => {
    const route = call.route!;
    const to = call.upstream!;
    if (isRelay(call)) {
      const streaming = call.method.streaming;
      const stream = streaming ? relaySignal(call.signal, shutdown) : undefined;
      const relayed = call.request.relay!({
        route,
        url: to.url,
        headers: call.relayHeaders ?? {},
        signal: stream?.signal ?? call.signal,
        generation: call.generation,
        streaming,
      });
      // (awaited, not returned: an async function resolved with a promise takes two more turns)
      if (!stream) return await relayed;
      const sentAt = Date.now();
      let answer: Answer;
      try {
        answer = await relayed;
      } catch (e) {
        stream.release();
        throw e;
      }
      return relayedStream(answer, route, firstEvent(call, route, to, Date.now() - sentAt), stream.release);
    }
    const client = call.generation.upstreams.client(to.binding, {
      url: to.url,
      version: to.version === '0.3' ? '0.3' : '1.0',
      timeoutMs: route.timeoutMs,
      maxSseEventBytes: route.maxSseEventBytes,
      maxResponseBytes: route.maxResponseBytes,
      tls: route.upstream.tls,
    });
    const env = forInterface(call.envelope!, route, to);
    if (!call.method.streaming) {
      const t0 = process.hrtime.bigint();
      const response = await client.unary(env, call.signal);
      metrics.upstreamTime(route.name, call.method.name, to.binding, Number(process.hrtime.bigint() - t0) / 1e9);
      checkAnswer(call.method, response);
      if (to.version === '0.3') holdToHistoryLength(call.method.name, env.request.value!, response);
      return { kind: 'unary', response };
    }
    const abort = new AbortController();
    setMaxListeners(0, abort.signal);
    const stop = (): void => abort.abort();
    // a caller gone (or a drain begun) while the call waited in an earlier stage stops the stream at once
    whenAborted(call.signal, stop);
    whenAborted(shutdown, stop);
    const release = (): void => {
      call.signal.removeEventListener('abort', stop);
      shutdown.removeEventListener('abort', stop);
    };
    const upstream = client.stream(env, abort.signal);
    const idle = route.streamIdleTimeoutMs;
    const final = { is: endsStream, graceMs: Math.min(FINAL_GRACE_MS, idle) };
    const resubscribe = call.method.name === 'SubscribeToTask' && to.version === '0.3';
    const first = firstEvent(call, route, to);
    const events = checkedStream(
      call.method,
      withIdleTimeout(upstream, idle, abort, first, final),
      abort,
      release,
      resubscribe,
    );
    // no first-event limit (a quiet 0.3 resubscribe): the caller gets its answer's head at the first keep-alive
    return first ? { kind: 'stream', events } : { kind: 'stream', events, quietMs: quietStart(route) };
  };
}
