// One request over undici's dispatch API that a call can stop (its timeout,
// its caller leaving) at any point: the unary HTTP upstream call
// (http-pool.ts) and every request answered by a pulled body
// (pulled-answer.ts: streams, the pass-through relay, the card fetch, the
// health check). A stop before undici has a connection answers the call at
// once, while the agent's budget is given back only when undici lets go of
// the request.
import type { Dispatcher } from 'undici';
import type { AbortLike } from '../util/call-signal.js';

/** What dispatchAbortable's caller hears of its request. */
export interface AbortableHandler extends Required<
  Pick<Dispatcher.DispatchHandler, 'onResponseStart' | 'onResponseData' | 'onResponseEnd'>
> {
  /** undici is done with the request, failed: always the last word (so the place to give the agent's budget back). */
  onResponseError(e: Error): void;
  /** Stopped before the request had a connection: the call's answer, at once; onResponseError follows when undici lets go. */
  onStopped(e: Error): void;
}

/**
 * One request over undici's dispatch API that the call's signal stops (and the returned `stop`). A stop before the
 * request has a connection (undici still connecting: a TLS handshake or a SYN the agent leaves unanswered, for up to
 * undici's 10 s connect timeout) answers the call at once (onStopped); undici's request is aborted when it gets its
 * connection or fails connecting, and only then does onResponseError come, so the agent's budget stays taken while
 * undici holds the request (nothing queues in the pool behind a stalled connect). Before, the call itself waited
 * for the connection, past its timeout. The signal's listener goes when the answer ends or fails.
 */
export function dispatchAbortable(
  pool: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  signal: AbortLike,
  handler: AbortableHandler,
): (reason: Error) => void {
  let controller: Dispatcher.DispatchController | undefined;
  let early: Error | undefined;
  const stop = (reason: Error): void => {
    if (controller) return controller.abort(reason);
    if (early) return;
    early = reason;
    handler.onStopped(reason);
  };
  const onAbort = (): void => stop(new Error('caller gone'));
  signal.addEventListener('abort', onAbort, { once: true });
  pool.dispatch(opts, {
    onRequestStart: (c) => {
      controller = c;
      if (early) c.abort(early);
    },
    onResponseStart: handler.onResponseStart,
    onResponseData: handler.onResponseData,
    onResponseEnd: (c, trailers) => {
      signal.removeEventListener('abort', onAbort);
      handler.onResponseEnd(c, trailers);
    },
    onResponseError: (_c, e) => {
      signal.removeEventListener('abort', onAbort);
      handler.onResponseError(e);
    },
  });
  return stop;
}
