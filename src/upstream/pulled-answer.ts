// An HTTP request over undici's dispatch API whose answer comes as its head
// and a pulled body: the streaming HTTP upstream call (http-pool.ts `open`:
// SSE, and a stream method's other answers) and the pass-through's relay
// (http-forward.ts, unary and streaming); or gathered whole, within the
// timeout, for a translated unary call (http-pool.ts `request`: its bytes
// gathered as they come, no body stream per call). The route's timeout covers the wait
// for the head, connecting included, and a stop before undici has a
// connection (the timeout, the caller leaving) answers at once
// (abortable-dispatch.ts); undici's own headers timer starts only once the
// request is written, and its request API holds an abort until it has the
// connection (up to its 10 s connect timeout). The body is a Readable that its
// reader pulls (the upstream is paused while the caller is slow), with no
// overall timeout; a small answer of declared length can come whole, as one
// buffer. The agent's budget (`admit`) is held until undici lets go of the
// request and the body is done with (read to its end, failed or dropped).
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { A2AError } from '../errors/a2a-error.js';
import { withoutCredentials } from '../errors/addresses.js';
import { GatheredBody } from '../http/gathered-body.js';
import { CallSignal, type AbortLike } from '../util/call-signal.js';
import { dispatchAbortable } from './abortable-dispatch.js';

/** An upstream answer (HTTP body, gRPC message, card) over the route's maxResponseBytes. */
export function answerTooLarge(max: number, internal?: string): A2AError {
  return A2AError.of('INVALID_AGENT_RESPONSE', `the upstream's answer exceeds maxResponseBytes (${max} bytes)`, {
    ...(internal ? { internal } : {}),
  });
}

/** The answer's bytes, up to `max` (the declared length checked first); past it the body is dropped. */
export async function readCapped(body: Readable, headers: IncomingHttpHeaders, max: number): Promise<Buffer> {
  const tooLarge = (): A2AError => {
    if (!body.destroyed) body.destroy();
    return answerTooLarge(max);
  };
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > max) throw tooLarge();
  const gathered = new GatheredBody(Number.isFinite(declared) ? declared : undefined);
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (gathered.length + chunk.length > max) throw tooLarge();
    gathered.add(chunk);
  }
  return gathered.bytes();
}

export interface PulledAnswer<B extends Readable | Buffer = Readable | Buffer> {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as it comes; one Buffer when the answer declared a length of at most `wholeMax`. */
  body: B;
}

export interface PulledOptions {
  signal: AbortLike;
  /** How long the answer's head may take, connecting included (the route's timeoutMs); absent: as long as `signal` allows. */
  timeoutMs?: number;
  /** The largest declared length gathered into one buffer (absent: the body is always a stream). */
  wholeMax?: number;
  /** The whole answer gathered, its length declared or not, the timeout covering all of it (a unary call). */
  gather?: boolean;
  /** The largest body taken (the route's maxResponseBytes): past it INVALID_AGENT_RESPONSE, and the body dropped. */
  maxBytes?: number;
  /**
   * Takes a unit of the agent's budget (throws when it is spent: the call is refused with that error, nothing sent)
   * and returns what gives it back (called once). Not called for a caller already gone.
   */
  admit(): () => void;
  /** A transport failure as the call's error: before the head ('request') or in the body ('body'). */
  failure(e: Error, timedOut: boolean, stage: 'request' | 'body'): Error;
}

/** Sends the request; resolves with the answer's head once undici has it (see the file's header). */
export function requestPulled(
  pool: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  o: PulledOptions & { wholeMax?: undefined; gather?: false },
): Promise<PulledAnswer<Readable>>;
export function requestPulled(
  pool: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  o: PulledOptions & { gather: true },
): Promise<PulledAnswer<Buffer>>;
export function requestPulled(
  pool: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  o: PulledOptions,
): Promise<PulledAnswer>;
export function requestPulled(
  pool: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  o: PulledOptions,
): Promise<PulledAnswer> {
  // a caller already gone sends nothing (and takes no budget)
  if (o.signal.aborted) return Promise.reject(o.failure(new Error('caller gone'), false, 'request'));
  let release: () => void;
  try {
    release = o.admit();
  } catch (e) {
    return Promise.reject(e as Error); // the agent's budget is spent (UPSTREAM_OVERLOADED)
  }
  let released = false;
  const done = (): void => {
    if (released) return;
    released = true;
    release();
  };
  return new Promise<PulledAnswer>((resolve, reject) => {
    let timedOut = false;
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    let stream: Readable | undefined;
    let whole: GatheredBody | undefined;
    let received = 0;
    let complete = false;
    let stop = (_reason: Error): void => undefined; // the dispatch's, once made
    const timer =
      o.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            stop(new Error('upstream timeout'));
          }, o.timeoutMs);
    // undici's headers and body timers are off: the timer above covers the head, connecting included (and
    // undici made a timer per request for them: a cleared one waits up to 0.5 s in its timer list, promoted garbage)
    stop = dispatchAbortable(pool, { ...opts, headersTimeout: 0, bodyTimeout: 0 }, o.signal, {
      onResponseStart: (c, statusCode, head) => {
        if (!o.gather) clearTimeout(timer);
        status = statusCode;
        headers = head;
        const declared = Number(head['content-length']);
        const known = Number.isFinite(declared);
        if (o.maxBytes !== undefined && known && declared > o.maxBytes) return c.abort(answerTooLarge(o.maxBytes)); // before a byte of it is passed on
        if (o.gather || (o.wholeMax !== undefined && known && declared <= o.wholeMax)) {
          whole = new GatheredBody(known ? declared : undefined);
          return;
        }
        stream = new Readable({
          read: () => c.resume(),
          destroy: (err, cb) => {
            if (!complete) c.abort(err ?? new Error('caller gone'));
            done();
            cb(err);
          },
        });
        // a failure before its reader listens is the reader's to see, not an uncaught 'error' (as undici's own bodies)
        stream.on('error', () => undefined);
        resolve({ status, headers, body: stream });
      },
      onResponseData: (c, chunk) => {
        received += chunk.length;
        if (o.maxBytes !== undefined && received > o.maxBytes) return c.abort(answerTooLarge(o.maxBytes));
        if (whole) whole.add(chunk);
        else if (stream && !stream.push(chunk)) c.pause();
      },
      onResponseEnd: () => {
        complete = true;
        if (stream) return void stream.push(null);
        clearTimeout(timer);
        done();
        resolve({ status, headers, body: whole ? whole.bytes() : Buffer.alloc(0) });
      },
      onResponseError: (e) => {
        complete = true;
        clearTimeout(timer);
        if (stream) return void stream.destroy(o.failure(e, false, 'body'));
        done();
        // after the head the agent has the request: its answer broke off (no reset before sending, no resend); a
        // gathered unary answer is one call's failure whenever it comes
        reject(o.failure(e, timedOut, status === 0 || o.gather ? 'request' : 'body'));
      },
      // stopped before undici had a connection: answered now, the budget back with onResponseError
      onStopped: (e) => {
        clearTimeout(timer);
        reject(o.failure(e, timedOut, 'request'));
      },
    });
  });
}

/** A GET's whole answer: its status, head and body. */
export interface FetchedAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A GET whose whole answer comes within `timeoutMs`, connecting included, its body up to `maxBytes` (readCapped):
 * the card fetch (card/card-store.ts) and the HTTP health check (health-check.ts). A failure is a plain Error
 * for the log, naming the URL when the time ran out.
 */
export async function getWithin(
  dispatcher: Dispatcher,
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
  maxBytes: number,
): Promise<FetchedAnswer> {
  const u = new URL(url);
  const stop = new CallSignal();
  const timer = setTimeout(() => stop.abort(), timeoutMs);
  const failure = (e: Error, timedOut = false): Error =>
    timedOut || stop.aborted ? new Error(`${withoutCredentials(url)} did not answer within ${timeoutMs} ms`) : e;
  try {
    const res = await requestPulled(
      dispatcher,
      { origin: u.origin, path: `${u.pathname}${u.search}`, method: 'GET', headers },
      // (no head timer of its own: the one above stops the whole fetch)
      { signal: stop, admit: () => () => undefined, failure },
    );
    const body = await readCapped(res.body, res.headers, maxBytes).catch((e: Error) => {
      throw failure(e);
    });
    return { status: res.status, headers: res.headers, body };
  } finally {
    clearTimeout(timer);
  }
}
