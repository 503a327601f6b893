// The public HTTP listener's server (node:http, or with listen.tls node:http2's
// secure server taking h2 and HTTP/1.1 by ALPN, §7.1): its connection
// timeouts as nginx names them (keepalive_timeout, client_header_timeout;
// an h2 session idle that long is closed), the answer to a request Node's
// parser refuses before any handler sees it (bad framing, CR/LF in a header,
// headers over 16 KiB, headers too slow: the binding is unknown then, so the
// REST error form), Expect: 100-continue left to the handler (other
// expectations not acted on), CONNECT refused in the REST form, every header
// kept (no count limit but the size one), listen and close. Closing stops accepting, closes idle
// connections and marks the listener closing: a request that still comes on a
// kept-alive connection is answered SHUTTING_DOWN (server/http.ts) with
// `Connection: close`. The request handler is server/http.ts.
import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createSecureServer, Http2ServerResponse, type Http2SecureServer, type Http2ServerRequest } from 'node:http2';
import type { Socket } from 'node:net';
import { errorBody } from '../bindings/rest/wire.js';
import type { GatewayLimits } from '../config/types.js';
import { A2AError } from '../errors/a2a-error.js';
import { ListenError, listenAddress } from './listen-error.js';
import type { ListenerCertificates } from '../tls/listener-certificates.js';

export type EdgeRequest = IncomingMessage | Http2ServerRequest;
export type EdgeResponse = ServerResponse | Http2ServerResponse;

export interface HttpListener {
  readonly server: Server | Http2SecureServer;
  /** True once close() was called. */
  readonly closing: boolean;
  /** Listens on host:port (0: a free one); the port. */
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting and closes idle connections; resolves when every connection has ended. */
  close(): Promise<void>;
}

export function createHttpListener(
  handler: (req: EdgeRequest, res: EdgeResponse) => void,
  limits: GatewayLimits,
  tls: ListenerCertificates | undefined,
): HttpListener {
  let server: Server | Http2SecureServer;
  if (tls) {
    const secure = createSecureServer(tls.httpsOptions(), handler);
    // an h2 session with no stream open this long is closed (nginx keepalive_timeout)
    secure.on('session', (session) => session.setTimeout(limits.idleTimeoutMs, () => session.close()));
    // HTTP/1.1 over TLS gets the plain listener's timeouts (Node reads them from the server: the checking
    // interval when it starts listening, the others per connection)
    Object.assign(secure, { keepAliveTimeout: limits.idleTimeoutMs, requestTimeout: 0, ...headerChecks(limits) });
    tls.track(secure);
    server = secure;
  } else {
    // the body has its own idle timeout (http/body-reader.ts); a slow upload as such is no fault
    // a request without Host is refused by the handler in A2A's form (Node's own 400 has no body)
    const plain = createServer({ ...headerChecks(limits), requestTimeout: 0, requireHostHeader: false }, handler);
    plain.keepAliveTimeout = limits.idleTimeoutMs;
    server = plain;
  }
  // Expect: 100-continue is answered by the handler (server/http.ts): a body over the limit is refused unsent;
  // any other expectation is not acted on (as nginx and Envoy): the request is served as if it named none (RFC 9110
  // §10.1.1 allows a 417, which Node sent without a body)
  server.on('checkContinue', handler);
  server.on('checkExpectation', handler);
  // CONNECT asks for a tunnel, no A2A operation: METHOD_NOT_FOUND in the REST form (Node closed an HTTP/1.1
  // connection without a word, and answered h2 a bodiless 405). An h2 CONNECT is a stream the handler refuses as any
  // other method it does not serve (its request id, its log line); an HTTP/1.1 one hands over the socket.
  server.on('connect', (req: EdgeRequest, to: Socket | Http2ServerResponse) => {
    if (to instanceof Http2ServerResponse) return handler(req, to);
    refuseOnSocket(to, A2AError.of('METHOD_NOT_FOUND', 'CONNECT: the gateway opens no tunnels'));
  });
  // no header is dropped unseen (Node's default keeps 2,000): the 16 KiB header limit bounds them
  // (HTTP/1.1 over TLS reads it from the h2 server too)
  (server as { maxHeadersCount?: number }).maxHeadersCount = 0;
  server.on('clientError', (error: Error & { code?: string }, socket: Socket) =>
    refuseUnparsed(error, socket, limits.headersTimeoutMs),
  );
  let closing = false;
  let closed: Promise<void> | undefined;
  return {
    server,
    get closing() {
      return closing;
    },
    listen: (host, port) =>
      new Promise((resolve, reject) => {
        const failed = (e: Error): void => reject(new ListenError('http', listenAddress(host, port), e));
        server.once('error', failed);
        server.listen({ host, port }, () => {
          server.off('error', failed);
          const address = server.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      }),
    close() {
      closing = true;
      closed ??= new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        if ('closeIdleConnections' in server) server.closeIdleConnections();
      });
      return closed;
    },
  };
}

/** A request's headers must come within headersTimeoutMs, checked a few times per timeout (Node: every 30 s). */
function headerChecks(limits: GatewayLimits): { headersTimeout: number; connectionsCheckingInterval: number } {
  const every = Math.max(50, Math.min(30_000, Math.floor(limits.headersTimeoutMs / 4)));
  return { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: every };
}

/** Node's HTTP parser refused the request: an A2A error in the REST form, and the connection closes. */
function refuseUnparsed(error: Error & { code?: string }, socket: Socket, headersTimeoutMs: number): void {
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  // the headers did not all come within limits.headersTimeoutMs (Node's headersTimeout)
  const late = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const status = tooLarge ? 431 : late ? 408 : 400;
  const err = late
    ? A2AError.of('REQUEST_TIMEOUT', `the request headers did not arrive within ${headersTimeoutMs} ms`)
    : A2AError.of(
        'INVALID_REQUEST',
        tooLarge ? 'request headers are too large' : `malformed HTTP request (${error.code ?? 'parse error'})`,
      );
  refuseOnSocket(socket, err, status);
}

/** An A2A error in the REST form: its HTTP status (or `status`) and body. */
function restRefusal(err: A2AError, status = err.row.http): { status: number; body: string } {
  return { status, body: JSON.stringify({ error: { ...(errorBody(err).error as object), code: status } }) };
}

/** How long a refused connection is held open for the caller to read its answer before it is dropped (nginx's lingering close). */
const LINGER_MS = 2000;

/**
 * Answers an HTTP/1.1 connection no handler has (its request unparsed, or a CONNECT) with `err`, and closes it. The
 * socket is the listener's to end: Node took its own handlers off a CONNECT's, so a reset must not become an uncaught
 * error, and a caller that keeps its side open (the listener allows half-open connections) must not hold it, or the
 * listener's close, for ever: what it still sends is read and dropped, and the socket destroyed after LINGER_MS.
 */
function refuseOnSocket(socket: Socket, err: A2AError, code?: number): void {
  socket.on('error', () => socket.destroy());
  if (!socket.writable) return void socket.destroy();
  const { status, body } = restRefusal(err, code);
  socket.resume();
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/a2a+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('close', () => clearTimeout(linger));
}
