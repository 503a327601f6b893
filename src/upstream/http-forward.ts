// The HTTP pass-through's way upstream (JSON-RPC and REST routes with
// `passThrough: true` reached over their upstream's own binding): the
// caller's body is sent as it came, through the generation's keep-alive pool
// for the upstream's origin (the one translated calls use), with the headers
// the pipeline prepared, and the answer comes back as a relay: status, the
// headers that matter to the caller, and the body to pipe (SSE included,
// with backpressure, so nothing is buffered whole). A streaming method goes
// over the origin's stream pool. The call holds a unit of the origin's budget
// until the body is done with. A transport failure is a gateway error in the
// caller's binding.
import type { Readable } from 'node:stream';
import type { Answer, RelayTarget } from '../pipeline/call.js';
import { transportFailure } from './http-pool.js';

const PASSED_BACK = ['content-type', 'cache-control', 'x-accel-buffering', 'etag', 'last-modified'];

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

export async function forwardHttp(target: RelayTarget, req: HttpRelayRequest): Promise<Answer> {
  const url = upstreamUrl(target);
  const kind = target.streaming ? 'stream' : 'unary';
  const upstreams = target.generation.upstreams;
  const pool = upstreams.httpPool(url.origin, target.route.upstream.tls, kind);
  const release = upstreams.admit(url.origin, kind);
  try {
    const res = await pool.request({
      method: req.method as 'GET',
      path: req.path,
      headers: { ...target.headers, ...req.passed },
      body: req.body && req.body.length > 0 ? req.body : null,
      signal: target.signal,
      headersTimeout: target.route.timeoutMs,
      bodyTimeout: 0,
    });
    const headers: Record<string, string> = {};
    for (const h of PASSED_BACK) {
      const v = res.headers[h];
      if (typeof v === 'string') headers[h] = v;
    }
    res.body.once('close', release);
    return { kind: 'relayHttp', status: res.statusCode, headers, body: res.body as unknown as Readable };
  } catch (e) {
    release();
    throw transportFailure(e, target.signal, false, 'request', target.route.timeoutMs);
  }
}
