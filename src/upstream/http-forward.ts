// The HTTP pass-through's way upstream (JSON-RPC and REST routes with
// `passThrough: true` reached over their upstream's own binding): the
// caller's body is sent as it came, through the generation's keep-alive pool
// for the upstream's origin (the one translated calls use), with the headers
// the pipeline prepared, and the answer comes back as a relay: status, the
// headers that matter to the caller, and the body. A unary method's answer
// that declares a small length (≤ 64 KiB) comes whole, as one buffer; a
// larger or unsized one, and a streaming method's (SSE), is piped as it
// comes, with backpressure, so nothing large is buffered whole. A unary
// answer over the route's maxResponseBytes is INVALID_AGENT_RESPONSE when its
// length says so, else cut there. A streaming method goes over the origin's
// stream pool. The route's timeout covers the wait for the answer's head,
// connecting included (pulled-answer.ts). An answer gathered whole has the
// route's own upstream credential masked, should the agent echo it. The call
// holds a unit of the origin's budget until the body is done with. A
// transport failure is a gateway error in the caller's binding.
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { maskBytes, routeSecrets } from '../core/secrets.js';
import type { A2AError } from '../errors/a2a-error.js';
import type { Answer, RelayTarget } from '../pipeline/call.js';
import { transportFailure } from './http-pool.js';
import { requestPulled } from './pulled-answer.js';

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
  /** The error an answer gathered whole with HTTP 200 carries in the binding's own form (JSON-RPC), if any. */
  errorIn?: (body: Buffer) => A2AError | undefined;
}

function passedBack(from: IncomingHttpHeaders): Record<string, string> {
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
  const timeoutMs = target.route.timeoutMs;
  const signal = target.signal;
  return requestPulled(
    pool,
    {
      method: req.method as Dispatcher.HttpMethod,
      path: req.path,
      headers: { ...target.headers, ...req.passed },
      body: req.body && req.body.length > 0 ? req.body : null,
    },
    {
      signal,
      timeoutMs,
      // a streaming method's answer is piped as it comes, whatever its length; a unary one is capped as a translated
      // call's (maxResponseBytes: past it INVALID_AGENT_RESPONSE, or the piped answer cut)
      ...(target.streaming ? {} : { wholeMax: WHOLE_MAX, maxBytes: target.route.maxResponseBytes }),
      admit: () => upstreams.admit(url.origin, kind),
      failure: (e, timedOut, stage) => transportFailure(e, signal, timedOut, stage, timeoutMs),
    },
  ).then((answer): Answer => {
    // the route's own credential for the agent, echoed back in an answer gathered whole, is masked (same length: the
    // Content-Length and a JSON text stay valid); a piped answer goes as it comes
    const whole = Buffer.isBuffer(answer.body) ? answer.body : undefined;
    const own = whole ? routeSecrets(target.route) : [];
    const body = whole && own.length > 0 ? maskBytes(whole, own) : answer.body;
    // (read from the masked body: its message goes into the log line)
    const error = Buffer.isBuffer(body) && answer.status === 200 ? req.errorIn?.(body) : undefined;
    return {
      kind: 'relayHttp',
      status: answer.status,
      headers: passedBack(answer.headers),
      body,
      ...(error ? { error } : {}),
    };
  });
}
