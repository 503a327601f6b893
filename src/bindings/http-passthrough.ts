// Same-binding pass-through for the HTTP bindings (a route with
// `passThrough: true` whose upstream speaks the caller's binding): the
// request is forwarded without decoding — body and answer streamed through
// undici, SSE included, with backpressure — keeping the version check,
// routing, size limit, header allow-list, authentication, rate limits,
// credential policy, upstream TLS, logs and metrics. What it skips:
// request validation, error normalization, tenant rewriting and the card's
// capability checks (README: "Pass-through").
import type { Readable } from 'node:stream';
import { Pool } from 'undici';
import type { Binding, RouteConfig } from '../config/types.js';
import type { Dispatcher } from '../core/dispatcher.js';
import { withUpstreamCredentials } from '../auth/upstream-credentials.js';
import { passThroughHeaders } from '../core/service-params.js';
import { tlsKey, undiciConnect } from '../tls/upstream-tls.js';
import { transportFailure } from '../upstream/http-pool.js';
import { A2AError, nameFromHttp } from '../errors/a2a-error.js';
import { matchRestPath } from './rest/paths.js';
import type { HttpCall } from './http-request.js';

export interface StreamedAnswer {
  status: number;
  headers: Record<string, string>;
  body: Readable;
}

const PASSED_BACK = ['content-type', 'cache-control', 'x-accel-buffering', 'etag', 'last-modified'];

/** The route's upstream URL, parsed once per route configuration (not per call). */
const targets = new WeakMap<RouteConfig, URL>();
function targetOf(route: RouteConfig): URL {
  let u = targets.get(route);
  if (!u) {
    u = new URL(route.upstream.url);
    targets.set(route, u);
  }
  return u;
}

export class HttpPassThrough {
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly dispatcher: Dispatcher) {}

  private pool(origin: string, route: RouteConfig): Pool {
    const key = `${origin} ${tlsKey(route.upstream.tls)}`;
    let p = this.pools.get(key);
    if (!p) {
      const connect = undiciConnect(route.upstream.tls);
      p = new Pool(origin, { connections: 64, keepAliveTimeout: 4_000, ...(connect ? { connect } : {}) });
      this.pools.set(key, p);
    }
    return p;
  }

  /** Forwards the call; throws an A2AError (answered by the caller's binding) before anything is sent back. */
  async forward(call: HttpCall, route: RouteConfig, inbound: Binding): Promise<StreamedAnswer> {
    const started = process.hrtime.bigint();
    const method = inbound === 'HTTP+JSON' ? (safeMethod(call) ?? '-') : '(pass-through)';
    const log = (reply: Parameters<Dispatcher['logCall']>[3]): void =>
      this.dispatcher.logCall(method, { inbound, requestId: call.requestId, route }, inbound, reply, started, {
        passThrough: true,
      });
    try {
      if ((call.body?.length ?? 0) > route.maxBodyBytes)
        throw A2AError.of('PAYLOAD_TOO_LARGE', `request body exceeds the route's limit of ${route.maxBodyBytes} bytes`);
      const checked = passThroughHeaders(call.header, route.forwardHeaders, call.query.get('A2A-Version') ?? undefined);
      await this.dispatcher.admit({ route, inbound, requestId: call.requestId, signal: call.signal, view: call.view });
      const upstream = withUpstreamCredentials(route, checked, call.header);
      const target = targetOf(route);
      const base = target.pathname.replace(/\/+$/, '');
      const query = new URLSearchParams(call.query);
      const apiKey = route.auth?.apiKey;
      if (apiKey?.location === 'query' && route.upstream.credentials.mode !== 'forward') query.delete(apiKey.name);
      const qs = query.toString();
      const path =
        inbound === 'JSONRPC' ? `${target.pathname}${target.search}` : `${base}${call.path}${qs ? `?${qs}` : ''}`;
      const headers: Record<string, string> = { ...upstream };
      for (const h of ['content-type', 'accept']) {
        const v = call.header(h);
        if (v !== undefined) headers[h] = v;
      }
      const res = await this.pool(target.origin, route).request({
        method: call.method as 'GET',
        path,
        headers,
        body: call.body && call.body.length > 0 ? call.body : null,
        signal: call.signal,
        headersTimeout: route.timeoutMs,
        bodyTimeout: 0,
      });
      const back: Record<string, string> = {};
      for (const h of PASSED_BACK) {
        const v = res.headers[h];
        if (typeof v === 'string') back[h] = v;
      }
      log(
        res.statusCode < 400
          ? { ok: true, response: {} }
          : { ok: false, error: A2AError.of(nameFromHttp(res.statusCode), `upstream HTTP ${res.statusCode}`) },
      );
      return { status: res.statusCode, headers: back, body: res.body };
    } catch (e) {
      const err = transportFailure(e, call.signal, false, 'request', route.timeoutMs);
      log({ ok: false, error: err });
      throw err;
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
  }
}

function safeMethod(call: HttpCall): string | undefined {
  try {
    return matchRestPath(call.method, call.path).match?.route.method.name;
  } catch {
    return undefined;
  }
}
