// The HTTP pass-through's way upstream (JSON-RPC and REST routes with
// `passThrough: true` reached over their upstream's own binding): the
// caller's body is sent as it came, through the generation's keep-alive pool
// for the upstream's origin (the one translated calls use), with the headers
// the pipeline prepared, and the answer comes back as a relay: status, the
// headers that matter to the caller, and the body. A unary method's answer
// that declares a small length (≤ 64 KiB) comes whole, as one buffer (undici's
// dispatch API: no body stream and pipe per call); a larger or
// unsized one, and a streaming method's (SSE), is piped as it comes, with
// backpressure, so nothing large is buffered whole. A streaming method goes
// over the origin's stream pool. The call holds a unit of the origin's budget
// until the body is done with. A transport failure is a gateway error in the
// caller's binding.
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Answer, RelayTarget } from '../pipeline/call.js';
import { dispatchAbortable } from './abortable-dispatch.js';
import { transportFailure } from './http-pool.js';

const PASSED_BACK = ['content-type', 'cache-control', 'x-accel-buffering', 'etag', 'last-modified'];
/** The largest answer a unary relay gathers into one buffer (a larger one is piped). */
const WHOLE_MAX = 64 * 1024;

/**
 * The target's URL, parsed once per route configuration and URL (not per call): a route with several endpoints
 * relays to each of theirs.
 */
const targets = new WeakMap<object, Map<string, URL>>();
export function upstreamUrl(target: RelayTarget): URL {
  let byUrl = targets.get(target.route);
  if (!byUrl) targets.set(target.route, (byUrl = new Map()));
  let u = byUrl.get(target.url);
  if (!u) {
    u = new URL(target.url);
    byUrl.set(target.url, u);
  }
  return u;
}

export interface HttpRelayRequest {
  method: string;
  /** Path and query on the upstream's origin. */
  path: string;
  body: Buffer | undefined;
  /** Caller headers passed on as they came (content-type, accept). */
  passed: Record<string, string>;
}

function passedBack(from: Dispatcher.ResponseData['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const h of PASSED_BACK) {
    const v = from[h];
    if (typeof v === 'string') headers[h] = v;
  }
  return headers;
}

export function forwardHttp(target: RelayTarget, req: HttpRelayRequest): Promise<Answer> {
  const url = upstreamUrl(target);
  const kind = target.streaming ? 'stream' : 'unary';
  const upstreams = target.generation.upstreams;
  const pool = upstreams.httpPool(url.origin, target.route.upstream.tls, kind);
  const release = upstreams.admit(url.origin, kind);
  const opts = {
    method: req.method as Dispatcher.HttpMethod,
    path: req.path,
    headers: { ...target.headers, ...req.passed },
    body: req.body && req.body.length > 0 ? req.body : null,
    headersTimeout: target.route.timeoutMs,
    bodyTimeout: 0,
  };
  if (target.streaming) return piped(pool, opts, target, release);
  return dispatched(pool, opts, target, release);
}

/** A streaming method's relay: undici's request API, its body stream piped to the caller. */
async function piped(
  pool: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  target: RelayTarget,
  release: () => void,
): Promise<Answer> {
  try {
    const res = await pool.request({ ...opts, signal: target.signal.toAbortSignal() });
    res.body.once('close', release);
    return {
      kind: 'relayHttp',
      status: res.statusCode,
      headers: passedBack(res.headers),
      body: res.body as unknown as Readable,
    };
  } catch (e) {
    release();
    throw transportFailure(e, target.signal, false, 'request', target.route.timeoutMs);
  }
}

/**
 * A unary method's relay over undici's dispatch API: a small answer of declared length comes as one buffer; any
 * other is handed over as a stream once its head is read (pulled: the upstream is paused while the caller is slow).
 */
function dispatched(
  pool: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  target: RelayTarget,
  release: () => void,
): Promise<Answer> {
  const signal = target.signal;
  if (signal.aborted) {
    release();
    return Promise.reject(transportFailure(new Error('caller gone'), signal, false, 'request', 0));
  }
  return new Promise<Answer>((resolve, reject) => {
    let stream: Readable | undefined;
    let whole: Buffer[] | undefined;
    let status = 0;
    let headers: Record<string, string> = {};
    let settled = false;
    let complete = false;
    const done = (): void => {
      if (settled) return;
      settled = true;
      release();
    };
    dispatchAbortable(pool, opts, signal, {
      onResponseStart: (c, statusCode, head) => {
        status = statusCode;
        headers = passedBack(head);
        const declared = Number(head['content-length']);
        if (Number.isFinite(declared) && declared <= WHOLE_MAX) {
          whole = [];
          return;
        }
        stream = new Readable({
          read: () => c.resume(),
          // the budget is held until the caller is done with the body (read to its end, failed or dropped)
          destroy: (err, cb) => {
            if (!complete) c.abort(err ?? new Error('caller gone'));
            done();
            cb(err);
          },
        });
        resolve({ kind: 'relayHttp', status, headers, body: stream });
      },
      onResponseData: (c, chunk) => {
        if (whole) whole.push(chunk);
        else if (stream && !stream.push(chunk)) c.pause();
      },
      onResponseEnd: () => {
        complete = true;
        if (stream) return void stream.push(null);
        done();
        resolve({ kind: 'relayHttp', status, headers, body: Buffer.concat(whole ?? []) });
      },
      onResponseError: (e) => {
        complete = true;
        if (stream) return void stream.destroy(transportFailure(e, signal, false, 'body', target.route.timeoutMs));
        done();
        // after the head the agent has the request: its answer broke off (no reset before sending, no resend)
        reject(transportFailure(e, signal, false, status === 0 ? 'request' : 'body', target.route.timeoutMs));
      },
      // the caller left before undici had a connection: answered now, the budget back with onResponseError
      onStopped: (e) => reject(transportFailure(e, signal, false, 'request', target.route.timeoutMs)),
    });
  });
}
