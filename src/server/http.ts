// The HTTP listener (fastify): one catch-all route that finds the routes the
// Host and path prefix reach, then hands the call to the JSON-RPC inbound
// (POST to the route's root), the REST inbound (every other A2A path) — both
// run it through the request pipeline — or the card endpoint (GET
// {prefix}/.well-known/agent-card.json), and writes the answer: a body, an
// SSE stream, or a pass-through relay piped with backpressure. Bodies are
// read raw so that every parse error is answered in the caller's binding,
// with the listener's body timeout and lingering close (http/body-reader.ts).
// Before routing, the request is checked as nginx would: the Host is an
// authority, an absolute-form target is taken as its path and host (RFC 9112
// §3.2.2), and the path, in its one canonical form (routing/canonical.ts),
// has no dot segment. Any method or path fastify would answer itself gets an
// A2A error. With listen.tls it is an HTTPS server with h2 and HTTP/1.1
// (§7.1), whose verified client certificates the pipeline sees through the
// RequestView. The head helpers and answer writers are in http-edge.ts.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { JsonRpcInbound } from '../bindings/jsonrpc/inbound.js';
import { RestInbound } from '../bindings/rest/inbound.js';
import { errorBody } from '../bindings/rest/wire.js';
import { LEGACY_CARD, WELL_KNOWN_CARD } from '../card/upstream-card.js';
import type { CardService } from '../card/card-service.js';
import { limitsOf } from '../config/types.js';
import { A2AError, asA2AError } from '../errors/a2a-error.js';
import { BodyRefused, readBody } from '../http/body-reader.js';
import { corsHeaders, preflight } from '../http/cors.js';
import { REQUEST_ID, type HttpAnswer, type HttpCall, type RequestView, type Wire } from '../http/request.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { RouteTable } from '../routing/generation.js';
import { writeSse } from '../sse/writer.js';
import type { ListenerCertificates } from '../tls/listener-certificates.js';
import { verifiedPeer } from '../tls/peer-certificate.js';
import { isEventStream } from '../upstream/http-pool.js';
import { serveCard } from './card-endpoint.js';
import {
  earlyError,
  hostOf,
  isJsonRpcPath,
  originForm,
  refusal,
  relay,
  send,
  splitUrl,
  tlsSocketOf,
} from './http-edge.js';
import { CallSignal } from '../util/call-signal.js';

export interface HttpServerDeps {
  table: RouteTable;
  pipeline: Pipeline;
  cards: CardService;
  logger: Logger;
  /** HTTPS with h2 and HTTP/1.1 (ALPN) when given; plain HTTP/1.1 otherwise. */
  tls?: ListenerCertificates | undefined;
}

export function buildHttpServer(deps: HttpServerDeps): FastifyInstance {
  const bodyLimit = Math.max(1, ...deps.table.config.routes.map((r) => r.maxBodyBytes));
  const limits = limitsOf(deps.table.config);
  const app = Fastify({
    // HTTPS is fastify's http2 server with HTTP/1.1 fallback; its request and reply
    // objects are the node:http2 compatibility API, used below as node:http ones.
    ...((deps.tls
      ? { http2: true, https: deps.tls.httpsOptions(), http2SessionTimeout: limits.idleTimeoutMs }
      : {}) as object),
    loggerInstance: deps.logger as FastifyBaseLogger,
    // The dispatcher logs one line per call; fastify's own request logs are off.
    logController: new LogController({ disableRequestLogging: true }),
    // …and no child logger per request either (fastify's default binds each request's id to one; nothing here
    // logs through request.log, and building it cost every call an object and a bindings string)
    childLoggerFactory: (logger) => logger,
    bodyLimit,
    // Idle connections (nginx keepalive_timeout); a request's headers (nginx client_header_timeout),
    // checked a few times per timeout (Node checks every 30 s by default).
    keepAliveTimeout: limits.idleTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    rewriteUrl: (req) => originForm(req as never),
    // Fastify's own early refusals (a malformed URL, …) in the caller's binding too.
    frameworkErrors: (error, req, reply) => {
      const { path } = splitUrl(req.url ?? '/');
      void send(reply, earlyError(req.method ?? 'GET', path, A2AError.of('INVALID_REQUEST', error.message)));
    },
    // Node's HTTP parser refuses a request before any route sees it (bad framing, CR/LF in a header,
    // headers over 16 KiB): the binding is unknown then, so the answer is the REST error form.
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => {
      if (!socket.writable) return void socket.destroy();
      const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
      // the headers did not all come within limits.headersTimeoutMs (Node's headersTimeout)
      const late = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
      const status = tooLarge ? 431 : late ? 408 : 400;
      const err = late
        ? A2AError.of('REQUEST_TIMEOUT', `the request headers did not arrive within ${limits.headersTimeoutMs} ms`)
        : A2AError.of(
            'INVALID_REQUEST',
            tooLarge ? 'request headers are too large' : `malformed HTTP request (${error.code ?? 'parse error'})`,
          );
      const body = JSON.stringify({ error: { ...(errorBody(err).error as object), code: status } });
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/a2a+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  }) as unknown as FastifyInstance;
  if (deps.tls) deps.tls.track(app.server as unknown as { setSecureContext(o: object): void });
  const jsonrpc = new JsonRpcInbound(deps.pipeline);
  const rest = new RestInbound(deps.pipeline);

  /** The request's path and query, split once (the refusal check and the route lookup both read them). */
  const split = new WeakMap<FastifyRequest, ReturnType<typeof splitUrl>>();
  const urlOf = (req: FastifyRequest): ReturnType<typeof splitUrl> => {
    let u = split.get(req);
    if (!u) split.set(req, (u = splitUrl(req.url)));
    return u;
  };

  // Every answer names its request (X-Request-Id), whoever writes it; the id is forwarded upstream too. Then the
  // request is refused before the body is read or any route is looked at, when the edge refuses it.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', String(req.id));
    const { path } = urlOf(req);
    const refused = refusal(hostOf(req), req.url, path);
    if (refused) return void send(reply, rejected(req, path, refused, earlyError(req.method, path, refused)));
    done();
  });

  /** An answer given before any call was made (no route, a request fastify refused) is logged and counted too. */
  const rejected = (req: FastifyRequest, path: string, err: A2AError, answer: HttpAnswer): HttpAnswer => {
    const wire: Wire = { path, status: answer.status, bytesOut: answer.body ? Buffer.byteLength(answer.body) : 0 };
    const view = { host: hostOf(req), remoteAddress: req.socket?.remoteAddress, header: () => undefined };
    const inbound = answer.headers['content-type'] === 'application/json' ? 'JSONRPC' : 'HTTP+JSON';
    deps.pipeline.rejected({ inbound, requestId: String(req.id), started: process.hrtime.bigint(), wire, view }, err);
    return answer;
  };

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (req, payload, done) => {
    const declared = Number(req.headers['content-length']);
    readBody(payload, Number.isFinite(declared) ? declared : undefined, {
      maxBytes: bodyLimit,
      idleMs: limits.bodyTimeoutMs,
    }).then(
      (body) => done(null, body),
      (e: Error) => done(e),
    );
  });

  /** The routes the host and path reach that share the most specific prefix, and the path below it. */
  const locate = (req: FastifyRequest) => {
    const { path, query } = urlOf(req);
    const generation = deps.table.generation;
    const candidates = generation.router.httpCandidates(hostOf(req), path);
    const first = candidates[0];
    const group = first ? candidates.filter((c) => c.prefix === first.prefix).map((c) => c.route) : [];
    return { path, query, group, rest: first ? first.rest : path, generation };
  };

  app.setErrorHandler((error: { code?: string; statusCode?: number; message: string }, req, reply) => {
    const { rest: below } = locate(req);
    let err: A2AError;
    if (error instanceof BodyRefused) {
      err = error.error;
      if (error.closeConnection) reply.header('connection', 'close');
    } else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      err = A2AError.of('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${bodyLimit} bytes`);
    else if ((error.statusCode ?? 500) < 500) err = A2AError.of('INVALID_REQUEST', error.message);
    else err = asA2AError(error);
    return send(reply, rejected(req, splitUrl(req.url).path, err, earlyError(req.method, below, err)));
  });

  // A method no route takes (TRACE, CONNECT, …): an A2A error too, never fastify's own body.
  app.setNotFoundHandler((req, reply) => {
    const { path } = splitUrl(req.url);
    const err = A2AError.of('METHOD_NOT_FOUND', `no A2A operation at ${req.method} ${path}`);
    return send(reply, rejected(req, path, err, earlyError(req.method, path, err)));
  });

  app.route({
    method: ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'],
    url: '*',
    handler: async (req, reply) => {
      const { path, query, group, rest: below, generation } = locate(req);
      // HEAD (fastify's, for every GET route) is a GET without the body
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      const abort = new CallSignal();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) abort.abort();
      });
      const cardPath = (p: string): boolean => p === WELL_KNOWN_CARD || p === LEGACY_CARD;
      if (method === 'GET' && cardPath(path)) {
        // A route bound to a host also serves its card at that host's root (before a root route of any host).
        const byHost = generation.router.hostRoute(hostOf(req));
        if (byHost && !group[0]?.hosts.length) group.unshift(byHost);
      }
      if (group.length === 0) {
        const err = A2AError.of('NO_ROUTE', `no route for ${hostOf(req) ?? ''}${path}`);
        return send(reply, rejected(req, path, err, earlyError(req.method, path, err)));
      }
      const headers = req.headers;
      const header = (name: string): string | undefined => {
        const v = headers[name];
        return Array.isArray(v) ? v.join(',') : v;
      };
      const view: RequestView = {
        host: hostOf(req),
        remoteAddress: req.socket.remoteAddress,
        header,
        query: (name) => query.get(name) ?? undefined,
        peerCertificate: () => verifiedPeer(tlsSocketOf(req)),
      };
      // CORS (browser callers from other origins): a preflight is answered here; other answers carry the headers
      const origin = header('origin');
      if (req.method === 'OPTIONS') {
        const pf = preflight(group, origin, header('access-control-request-method'));
        if (pf) return send(reply, { ...pf, headers: pf.headers });
        const err = A2AError.of(
          'METHOD_NOT_FOUND',
          'OPTIONS is no A2A operation (and no CORS preflight this route allows)',
        );
        return send(reply, rejected(req, path, err, earlyError(req.method, below, err)));
      }
      const cors = corsHeaders(group, origin);
      reply.headers(cors);
      if (method === 'GET' && cardPath(below)) return send(reply, await serveCard(deps.cards, group[0]!, view));
      const wire: Wire = { path, status: 0, bytesOut: 0 };
      const call: HttpCall = {
        method: req.method,
        path: below,
        query,
        header,
        body: Buffer.isBuffer(req.body) ? req.body : undefined,
        requestId: String(req.id),
        signal: abort,
        view,
        wire,
      };
      const answer = isJsonRpcPath(req.method, below)
        ? await jsonrpc.handle(call, group, generation)
        : await rest.handle(call, group, generation);
      const requestId = { 'x-request-id': call.requestId, ...cors };
      if (answer.relay) {
        // written as the agent sent it (status and passed-back headers untouched by fastify's defaults)
        reply.hijack();
        wire.status = answer.status;
        if (Buffer.isBuffer(answer.relay)) {
          wire.bytesOut = answer.relay.length;
          const length = String(answer.relay.length);
          reply.raw.writeHead(answer.status, { ...answer.headers, ...requestId, 'content-length': length });
          reply.raw.end(answer.relay);
          return reply;
        }
        reply.raw.writeHead(answer.status, { ...answer.headers, ...requestId });
        // an SSE answer's headers go out now; any other answer's go with its body (one write, not two)
        if (isEventStream(answer.headers['content-type'] ?? '')) reply.raw.flushHeaders();
        await relay(answer.relay, reply.raw, wire);
        return reply;
      }
      if (!answer.sse) return send(reply, answer, wire);
      reply.hijack();
      wire.status = 200;
      const count = (bytes: number): void => void (wire.bytesOut += bytes);
      await writeSse(reply.raw, answer.sse.frames, answer.sse.keepAliveMs, requestId, count).catch((e: unknown) => {
        deps.logger.warn({ requestId: call.requestId, err: (e as Error).message }, 'stream write failed');
        reply.raw.destroy();
      });
      return reply;
    },
  });

  return app;
}
