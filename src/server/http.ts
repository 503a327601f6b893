// The HTTP listener's request handler: finds the routes the Host and path
// prefix reach, then hands the call to the JSON-RPC inbound (POST to the
// route's root), the REST inbound (every other A2A path) — both run it
// through the request pipeline — or the card endpoint (GET
// {prefix}/.well-known/agent-card.json for the prefix's own route, GET
// {prefix}/{tenant}/.well-known/agent-card.json for a tenant's: the route is
// picked by cors-routes.ts), and writes the answer: a body, an SSE stream,
// or a pass-through relay piped with backpressure. Bodies are
// read raw so that every parse error is answered in the caller's binding,
// with the listener's body timeout and lingering close (http/body-reader.ts).
// Before routing, the request is checked as nginx would: the Host is an
// authority, an absolute-form target is taken as its path and host (RFC 9112
// §3.2.2), and the path, in its one canonical form (routing/canonical.ts),
// has no dot segment. Any other method or path gets an A2A error; without an
// admin listener GET /healthz and /readyz are the probes (server/probes.ts).
// Verified client certificates (listen.tls, §7.1) reach the pipeline through
// the RequestView. The server itself (node:http, or node:http2 with TLS) is
// server/http-listener.ts; head helpers and answer writers are http-edge.ts.
// CORS (http/cors.ts): a preflight is answered for the routes its request
// could reach; an answer carries the headers of the route that served it,
// which the pipeline picks by tenant (it notes it in the request's Wire).
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { JsonRpcInbound } from '../bindings/jsonrpc/inbound.js';
import { RestInbound } from '../bindings/rest/inbound.js';
import type { CardService } from '../card/card-service.js';
import { limitsOf, type RouteConfig } from '../config/types.js';
import { speaksV03 } from '../core/service-params.js';
import { A2AError, asA2AError } from '../errors/a2a-error.js';
import { BodyRefused, readBody } from '../http/body-reader.js';
import { corsHeaders, preflight } from '../http/cors.js';
import { cardPath, cardRoute, reachable } from './cors-routes.js';
import { REQUEST_ID, type HttpAnswer, type HttpCall, type RequestView, type Wire } from '../http/request.js';
import type { Health } from '../ops/health.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { RouteTable } from '../routing/generation.js';
import { writeSse } from '../sse/writer.js';
import type { ListenerCertificates } from '../tls/listener-certificates.js';
import { verifiedPeer } from '../tls/peer-certificate.js';
import { isEventStream } from '../upstream/http-pool.js';
import { CallSignal } from '../util/call-signal.js';
import { serveCard } from './card-endpoint.js';
import {
  hostProblem,
  codingRefusal,
  earlyError,
  type EarlyError,
  hostOf,
  isJsonRpcPath,
  originForm,
  refusal,
  relay,
  send,
  splitUrl,
  tlsSocketOf,
} from './http-edge.js';
import { createHttpListener, type EdgeRequest, type EdgeResponse, type HttpListener } from './http-listener.js';
import { probeAnswer } from './probes.js';
import { bodyLength } from '../proto/json-out.js';

export interface HttpServerDeps {
  table: RouteTable;
  pipeline: Pipeline;
  cards: CardService;
  logger: Logger;
  /** HTTPS with h2 and HTTP/1.1 (ALPN) when given; plain HTTP/1.1 otherwise. */
  tls?: ListenerCertificates | undefined;
  /** GET /healthz and /readyz answered here (no admin listener is configured). */
  probes?: Health | undefined;
}

/** The methods an A2A route takes (HEAD is a GET without the body); any other is METHOD_NOT_FOUND. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS']);

export function buildHttpServer(deps: HttpServerDeps): HttpListener {
  const bodyLimit = Math.max(1, ...deps.table.config.routes.map((r) => r.maxBodyBytes));
  const limits = limitsOf(deps.table.config);
  const jsonrpc = new JsonRpcInbound(deps.pipeline);
  const rest = new RestInbound(deps.pipeline);

  /** An answer given before any call was made (no route, a refused request) is logged and counted too. */
  const rejected = (req: EdgeRequest, requestId: string, path: string, err: A2AError, early: EarlyError) => {
    const { answer, inbound } = early;
    const wire: Wire = { path, status: answer.status, bytesOut: answer.body ? bodyLength(answer.body) : 0 };
    const view = { host: hostOf(req), remoteAddress: req.socket?.remoteAddress, header: () => undefined };
    deps.pipeline.rejected({ inbound, requestId, started: process.hrtime.bigint(), wire, view }, err);
    return answer;
  };
  /** The error answer before any route handled the call, `below` the path under the prefix it would reach. */
  const early = (req: EdgeRequest, path: string, query: URLSearchParams, err: A2AError, below?: string) => {
    const at = below ?? locate(hostOf(req), path).rest;
    return earlyError(req.method ?? 'GET', at, err, speaksV03(headerOf(req), query.get('A2A-Version')));
  };

  /** The routes the host and path reach that share the most specific prefix, and the path below it. */
  const locate = (host: string | undefined, path: string) => {
    const generation = deps.table.generation;
    const candidates = generation.router.httpCandidates(host, path);
    const first = candidates[0];
    const group = first ? candidates.filter((c) => c.prefix === first.prefix).map((c) => c.route) : [];
    return { group, rest: first ? first.rest : path, generation };
  };

  const handle = async (req: EdgeRequest, res: EdgeResponse): Promise<void> => {
    // Every answer names its request (X-Request-Id), whoever writes it; the id is forwarded upstream too.
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('x-request-id', requestId);
    const method = req.method ?? 'GET';
    const url = originForm(req);
    const { path, query, rawQuery } = splitUrl(url);
    const host = hostOf(req);
    // a caller waiting for 100 Continue before its body: refused before that, its connection is not kept
    let waiting = req.headers.expect !== undefined && req.httpVersionMajor < 2;
    const refuse = (err: A2AError, below?: string): void => {
      if (waiting) res.setHeader('connection', 'close');
      send(res, rejected(req, requestId, path, err, early(req, path, query, err, below)));
    };
    if (listener.closing) {
      // a request on a kept-alive connection after close(): the caller tries another replica
      if (req.httpVersionMajor < 2) res.setHeader('connection', 'close');
      return refuse(A2AError.of('SHUTTING_DOWN', 'the gateway is shutting down'));
    }
    // refused before the body is read or any route is looked at, when the edge refuses it
    const refused = refusal(host, url, path) ?? hostProblem(req);
    if (refused) return refuse(refused);
    if (!METHODS.has(method)) return refuse(A2AError.of('METHOD_NOT_FOUND', `no A2A operation at ${method} ${path}`));
    const probe = deps.probes && (method === 'GET' || method === 'HEAD') && probeAnswer(path, deps.probes);
    if (probe) return answerProbe(req, res, requestId, path, probe);
    let body: Buffer | undefined;
    if (hasBody(req)) {
      const declared = Number(req.headers['content-length']);
      const coded = codingRefusal(req.headers);
      if (coded) {
        if (req.httpVersionMajor < 2) res.setHeader('connection', 'close'); // its body is not read
        return refuse(coded);
      }
      // Expect: 100-continue (the listener leaves it to this handler): a body over the limit is refused before the
      // caller sends it, any other asked for now
      if (req.headers.expect !== undefined && EXPECTS_CONTINUE.test(req.headers.expect)) {
        if (declared > bodyLimit) {
          return refuse(A2AError.of('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${bodyLimit} bytes`));
        }
        res.writeContinue();
        waiting = false;
      }
      try {
        body = await readBody(req, Number.isFinite(declared) ? declared : undefined, {
          maxBytes: bodyLimit,
          idleMs: limits.bodyTimeoutMs,
        });
      } catch (e) {
        if (!(e instanceof BodyRefused)) {
          // the caller went away mid-body: logged and counted as nginx does (499), nothing to answer
          const err = A2AError.of('CANCELLED', 'the caller went away while sending its request body');
          rejected(req, requestId, path, err, early(req, path, query, err));
          return void res.destroy();
        }
        if (e.closeConnection && req.httpVersionMajor < 2) res.setHeader('connection', 'close');
        return refuse(e.error);
      }
    }
    const { group, rest: below, generation } = locate(host, path);
    const header = headerOf(req);
    // HEAD is a GET without the body (Node writes no body for it); a CORS preflight speaks for the method it names
    const verb = method === 'HEAD' ? 'GET' : method;
    const wanted = method === 'OPTIONS' ? header('access-control-request-method')?.toUpperCase() : verb;
    if (wanted === 'GET' && cardPath(path)) {
      // A route bound to a host also serves its card at that host's root (before a root route of any host).
      const byHost = generation.router.hostRoute(host);
      if (byHost && !group[0]?.hosts.length) group.unshift(byHost);
    }
    if (group.length === 0) return refuse(A2AError.of('NO_ROUTE', `no route for ${host ?? ''}${path}`));
    // CORS (browser callers from other origins): a preflight is answered here; other answers carry the headers
    const origin = header('origin');
    const allow = (routes: readonly RouteConfig[]): void => {
      const cors = corsHeaders(routes, origin);
      for (const name in cors) res.setHeader(name, cors[name]!);
    };
    if (method === 'OPTIONS') {
      const pf = wanted ? preflight(reachable(group, wanted, below), origin, wanted) : undefined;
      if (pf) return send(res, pf);
      const err = A2AError.of(
        'METHOD_NOT_FOUND',
        'OPTIONS is no A2A operation (and no CORS preflight this route allows)',
      );
      return refuse(err, below);
    }
    const view: RequestView = {
      host,
      remoteAddress: req.socket.remoteAddress,
      header,
      query: (name) => query.get(name) ?? undefined,
      peerCertificate: () => verifiedPeer(tlsSocketOf(req)),
    };
    const carded = verb === 'GET' ? cardRoute(group, below) : undefined;
    if (carded) {
      allow([carded]);
      return send(res, await serveCard(deps.cards, carded, view, deps.logger));
    }
    const signal = new CallSignal();
    // the caller gone before the answer was ended (on h2 writableFinished is already true after a reset)
    res.on('close', () => {
      if (!res.writableEnded) signal.abort();
    });
    const wire: Wire = { path, status: 0, bytesOut: 0 };
    const call: HttpCall = { method, path: below, query, rawQuery, header, body, requestId, signal, view, wire };
    const answer = isJsonRpcPath(method, below)
      ? await jsonrpc.handle(call, group, generation)
      : await rest.handle(call, group, generation);
    // the route the pipeline chose by tenant; none when the call was refused before one was (no CORS headers then)
    allow(wire.routes ?? []);
    const raw = res as ServerResponse;
    if (answer.relay) {
      // written as the agent sent it: its status and passed-back headers (a small body whole, as any answer)
      if (Buffer.isBuffer(answer.relay))
        return send(res, { status: answer.status, headers: answer.headers, body: answer.relay }, wire);
      wire.status = answer.status;
      raw.writeHead(answer.status, answer.headers);
      // an SSE answer's headers go out now; any other answer's go with its body (one write, not two)
      if (isEventStream(answer.headers['content-type'] ?? '')) raw.flushHeaders();
      return relay(answer.relay, raw, wire);
    }
    if (!answer.sse) return send(res, answer, wire);
    wire.status = 200;
    const count = (bytes: number): void => void (wire.bytesOut += bytes);
    await writeSse(raw, answer.sse.frames, answer.sse.keepAliveMs, {}, count, answer.sse.flush).catch((e: unknown) => {
      deps.logger.warn({ requestId, err: (e as Error).message }, 'stream write failed');
      raw.destroy();
    });
  };

  /** A probe's answer, with one line in the access log's shape at debug (probes come every few seconds). */
  const answerProbe = async (
    req: EdgeRequest,
    res: EdgeResponse,
    requestId: string,
    path: string,
    probe: Promise<HttpAnswer>,
  ): Promise<void> => {
    const started = process.hrtime.bigint();
    const a = await probe;
    send(res, a);
    const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1000) / 1000;
    const client = req.socket.remoteAddress ?? null;
    deps.logger.debug({ requestId, client, path, status: a.status, durationMs }, 'probe');
  };

  const listener = createHttpListener(
    (req, res) =>
      void handle(req, res).catch((e: unknown) => {
        // a fault past the pipeline's own error handling: an A2A error if nothing was written yet
        if (res.headersSent) return void res.destroy();
        const { path, query } = splitUrl(originForm(req));
        const err = asA2AError(e);
        // (the whole path: nothing more that could fail again, such as routing, runs here)
        send(res, rejected(req, String(res.getHeader('x-request-id')), path, err, early(req, path, query, err, path)));
      }),
    limits,
    deps.tls,
  );
  return listener;
}

/** A header's value (several joined by commas, as Node joins most). */
function headerOf(req: EdgeRequest): (name: string) => string | undefined {
  const headers = req.headers;
  return (name) => {
    const v = headers[name];
    return Array.isArray(v) ? v.join(',') : v;
  };
}

/** What Node reads as asking for 100 Continue (its checkContinue event; a list may name it among others). */
const EXPECTS_CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/** As fastify reads a body: for a method that takes one, when a content type, length or transfer coding says so. */
function hasBody(req: EdgeRequest): boolean {
  const m = req.method;
  if (m !== 'POST' && m !== 'PUT' && m !== 'PATCH' && m !== 'DELETE' && m !== 'OPTIONS') return false;
  const h = req.headers;
  return (
    h['content-type'] !== undefined || h['transfer-encoding'] !== undefined || (h['content-length'] ?? '0') !== '0'
  );
}
