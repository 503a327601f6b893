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
  // connection without a word, and answered h2 a bodiless 405)
  server.on('connect', (req: EdgeRequest, to: Socket | Http2ServerResponse) => {
    const err = A2AError.of('METHOD_NOT_FOUND', 'CONNECT: the gateway opens no tunnels');
    if (to instanceof Http2ServerResponse) {
      const { status, body } = restRefusal(err);
      to.writeHead(status, { 'content-type': 'application/a2a+json', 'content-length': Buffer.byteLength(body) });
      return void to.end(body);
    }
    if (req.httpVersionMajor < 2) refuseOnSocket(to, err);
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

/** Answers an HTTP/1.1 connection no handler has (its request unparsed, or a CONNECT) with `err`, and closes it. */
function refuseOnSocket(socket: Socket, err: A2AError, code?: number): void {
  if (!socket.writable) return void socket.destroy();
  const { status, body } = restRefusal(err, code);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/a2a+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
