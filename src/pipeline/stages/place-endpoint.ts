// Stage `placeEndpoint` (issue 14): on a route with several endpoints, which
// replica of the agent gets the call. A call about a known task goes to the
// endpoint that created it (task affinity, learned from answers: the Task in
// a result, the first stream events that name a context and a task), a new
// task in a known context to the context's endpoint, anything else to the
// balancer's pick among the available endpoints (in panic mode, when none is
// available, the task's or context's own endpoint still gets its calls),
// through that endpoint's circuit breaker (a wait for a slot is bounded by the
// route's timeoutMs). A call that fails before the agent answered (refused,
// reset, timed out, unavailable; a relayed 502-504) counts towards the
// endpoint's outlier ejection, and is sent once more to another endpoint when
// that is safe: a refused connection never reached the agent; idempotent
// calls (§3.3.1) may be repeated once (Call.resent: not when selectUpstream
// already resent it); SendMessage otherwise never is. When a task's own
// endpoint is down or cannot be reached, its reads fail over only if the
// replicas share a task store (`upstream.sharedTaskStore`); otherwise the
// caller gets UPSTREAM_UNAVAILABLE naming the task — never a TaskNotFound
// from a replica that cannot know it; a timeout or reset there (the agent may
// have the call) reaches the caller as it is. Streams are placed the same
// way: their first event (a relayed gRPC stream's first message: it is sent
// when first read) is awaited here, so a stream that fails to start is
// handled as a unary call that fails. One-endpoint routes skip the stage.
import type { Logger } from 'pino';
import type { RouteConfig } from '../../config/types.js';
import { A2AError } from '../../errors/a2a-error.js';
import type { StreamResponse } from '../../gen/a2a_pb.js';
import { DONE } from '../../core/event-stream.js';
import { answerIds, requestIds, type Affinity, type TaskIds } from '../../upstream/affinity.js';
import type { Endpoints, Member } from '../../upstream/endpoints.js';
import type { Answer, Call } from '../call.js';
import { ended, type Handler, type Stage } from '../stage.js';
import { within } from '../../util/within.js';

const NO_IDS: TaskIds = { task: '', context: '' };

/** Why the call failed without an answer from the agent, or undefined when the agent answered (an A2A error). */
function endpointFailure(e: unknown): string | undefined {
  if (!(e instanceof A2AError)) return undefined;
  if (e.connectionRefused) return 'connection refused';
  if (e.connectionReset) return 'connection reset';
  if (e.errorName === 'UPSTREAM_TIMEOUT' || e.errorName === 'UPSTREAM_UNAVAILABLE') return e.internal ?? e.message;
  return undefined;
}

/**
 * The failure says the call cannot have reached the agent: a refused connection, an endpoint that could not be
 * reached (or said it is unavailable). Not a timeout, a reset connection or an answer cut short: the agent may have
 * the call, so the caller gets that failure as it is, never that the task's endpoint is unavailable.
 */
function unreached(e: unknown): boolean {
  if (!(e instanceof A2AError)) return false;
  return e.connectionRefused || (e.errorName === 'UPSTREAM_UNAVAILABLE' && !e.connectionReset && !e.answerCut);
}

function taskUnavailable(route: RouteConfig, task: string, owner: Member, cause?: unknown): A2AError {
  const err = A2AError.of(
    'UPSTREAM_UNAVAILABLE',
    `task "${task}" is held by endpoint "${owner.endpoint.name}" of route "${route.name}", which is unavailable; ` +
      'the endpoints do not share a task store (upstream.sharedTaskStore), so no other one can answer for it',
    { metadata: { taskId: task, endpoint: owner.endpoint.name }, cause },
  );
  err.internal = endpointFailure(cause) ?? owner.endpoint.reason;
  return err;
}

interface Placement {
  member: Member;
  /** The endpoint that holds the call's task, when known. */
  owner: Member | undefined;
  /** The task and context the request names. */
  ids: TaskIds;
}

/**
 * A stream whose first result was read already: that one, then the rest; `look` sees each event until it says true
 * (awaited before the event is passed on). An object, not a generator: return() returns the source even before the
 * first pull, and a failed pull returns it too, as a generator's `finally` would.
 */
function resumed<T>(
  first: IteratorResult<T> | Promise<IteratorResult<T>>,
  it: AsyncIterator<T>,
  look?: (e: T) => Promise<boolean>,
): AsyncIterableIterator<T> {
  let pending: IteratorResult<T> | Promise<IteratorResult<T>> | undefined = first;
  let known = look === undefined;
  let finished = false;
  const leave = (): void => {
    if (finished) return;
    finished = true;
    void it.return?.()?.catch(() => undefined);
  };
  // (after return(), a pull under way is dropped, its event or failure alike, as mapEvents does)
  const pass = async (r: IteratorResult<T>): Promise<IteratorResult<T>> => {
    if (finished) return DONE;
    if (r.done) finished = true;
    else if (!known) known = await look!(r.value);
    return r;
  };
  const failed = (e: unknown): IteratorResult<T> => {
    if (finished) return DONE;
    leave();
    throw e;
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next() {
      if (finished) return Promise.resolve(DONE);
      const r = pending;
      pending = undefined;
      return (r ? (r instanceof Promise ? r.then(pass) : pass(r)) : it.next().then(pass)).catch(failed);
    },
    return() {
      pending = undefined;
      leave();
      return Promise.resolve(DONE);
    },
  };
}

export function placeEndpointStage(endpoints: Endpoints, affinity: Affinity, log: Logger): Stage {
  return {
    name: 'placeEndpoint',
    wrap: (next, route) => {
      if (route.upstream.endpoints.length < 2) return next;
      const set = endpoints.of(route);
      const up = route.upstream;
      const ttl = up.affinityTtlSeconds;

      const learn = async (ids: TaskIds, m: Member): Promise<void> => {
        await Promise.all([
          affinity.learn(route.name, 'task', ids.task, m.endpoint.url, ttl),
          affinity.learn(route.name, 'context', ids.context, m.endpoint.url, ttl),
        ]);
      };

      const place = async (call: Call): Promise<Placement> => {
        const ids = call.envelope ? requestIds(call.envelope) : NO_IDS;
        if (ids.task) {
          const owner = set.byUrl(await affinity.owner(route.name, 'task', ids.task, ttl));
          // panic mode (no endpoint available: calls go to all of them): the task's call goes to its own
          if (owner && (owner.endpoint.available || !set.anyAvailable())) return { member: owner, owner, ids };
          if (owner) {
            // replicas that share a task store can each answer for the task: any call for it goes to another one
            if (!up.sharedTaskStore) throw taskUnavailable(route, ids.task, owner);
            return { member: set.pick(owner) ?? owner, owner: undefined, ids };
          }
        }
        if (ids.context) {
          const owner = set.byUrl(await affinity.owner(route.name, 'context', ids.context, ttl));
          if (owner && (owner.endpoint.available || !set.anyAvailable()))
            return { member: owner, owner: undefined, ids };
        }
        return { member: set.pick()!, owner: undefined, ids };
      };

      /** One try on `m`: the answer with its first stream event in hand (so a stream that cannot start fails here). */
      const attempt = async (call: Call, m: Member): Promise<Answer> => {
        call.endpoint = m;
        // a call waits for a slot at most what is left of the route's timeoutMs (a stream's first-event limit)
        const release = await m.endpoint.admit(up.circuitBreaker, call.signal, route.timeoutMs, call.started);
        ended(call, release);
        try {
          const answer = await next(call);
          if (answer.kind === 'unary') {
            await learn(answerIds(answer.response), m);
            return answer;
          }
          if (answer.kind === 'relayStream') {
            // a relayed gRPC stream is sent when first read: its connection fails (or its budget refuses it) here
            const it = answer.messages[Symbol.asyncIterator]();
            return { ...answer, messages: resumed(await it.next(), it) };
          }
          if (answer.kind !== 'stream') return answer;
          const it = answer.events[Symbol.asyncIterator]();
          if (answer.quietMs !== undefined) {
            // a stream that may be quiet (a 0.3 resubscribe) is held for its first event only its quiet period: a
            // failure to start (a refused connection) comes within it and fails over; after it the caller's answer
            // opens at once, the first pull going on
            const pulled = await within(it.next(), answer.quietMs);
            if ('value' in pulled) return { kind: 'stream', events: resumed(pulled.value, it, learner(m)) };
            return { kind: 'stream', events: resumed(pulled.pending, it, learner(m)), quietMs: 0 };
          }
          const first = await it.next();
          return { kind: 'stream', events: resumed(first, it, learner(m)) };
        } catch (e) {
          release();
          throw e;
        }
      };

      /**
       * Learns a stream's context from the first event that names one (a Message answer names no task), and its task
       * from the first event that names one; says true once the task is known (nothing more to learn).
       */
      const learner = (m: Member): ((e: StreamResponse) => Promise<boolean>) => {
        let context = false;
        return async (e) => {
          const ids = answerIds(e);
          if (ids.task) {
            await learn(ids, m);
            return true;
          }
          if (ids.context && !context) {
            context = true;
            await affinity.learn(route.name, 'context', ids.context, m.endpoint.url, ttl);
          }
          return false;
        };
      };

      /** A relayed 502/503/504 is the endpoint failing, not an answer of the agent's: it counts toward ejection. */
      const judge = (answer: Answer, m: Member): void => {
        if (answer.kind === 'relayHttp' && answer.status >= 502 && answer.status <= 504)
          endpoints.failed(set, m, `answered HTTP ${answer.status}`);
        else endpoints.succeeded(m);
      };

      const run = async (call: Call): Promise<Answer> => {
        const { member, owner, ids } = await place(call);
        try {
          const answer = await attempt(call, member);
          // (a relayed 502/503/504 goes to the caller as it came: a pass-through call is not retried once answered)
          judge(answer, member);
          return answer;
        } catch (e) {
          const broke = endpointFailure(e);
          if (broke === undefined) throw e;
          endpoints.failed(set, member, broke);
          const refused = e instanceof A2AError && e.connectionRefused;
          // the task's own endpoint: no other one can answer for it; it is unavailable only when the call never got there
          if (owner && !up.sharedTaskStore) throw unreached(e) ? taskUnavailable(route, ids.task, owner, e) : e;
          if (!refused && (!call.method.idempotent || call.resent)) throw e;
          const other = set.pick(member);
          if (!other || call.signal.aborted) throw e;
          if (!refused) call.resent = true;
          log.warn(
            { requestId: call.requestId, route: route.name, endpoint: member.endpoint.name, err: broke },
            `endpoint failed before answering; sending the call to endpoint "${other.endpoint.name}"`,
          );
          try {
            const answer = await attempt(call, other);
            judge(answer, other);
            return answer;
          } catch (e2) {
            const broke2 = endpointFailure(e2);
            if (broke2 !== undefined) endpoints.failed(set, other, broke2);
            throw e2;
          }
        }
      };
      return run satisfies Handler;
    },
  };
}
