// The HTTP listener's edge helpers (server/http.ts uses them): what it reads
// of a request head — the Host (or h2 :authority), the TLS socket, the path
// in its canonical form and the query, an absolute-form target as its path
// (RFC 9112 §3.2.2), the refusals made before routing (a Host that is no
// authority, a dot segment), which binding a path implies (§9 JSON-RPC at the
// route's root, §11 REST paths) — and how an answer is written: a body, an
// error given before any route took the call (in the binding and version
// the request implies), or a pass-through's body piped with backpressure.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { errorResponse } from '../bindings/jsonrpc/wire.js';
import { matchRestPath } from '../bindings/rest/paths.js';
import { restError } from '../bindings/rest/inbound.js';
import { v03Error } from '../bindings/rest/inbound-v0_3.js';
import { isV03RestPath } from '../bindings/rest/paths-v0_3.js';
import { errorToV03 } from '../compat/v0_3/errors.js';
import type { Binding } from '../config/types.js';
import { A2AError } from '../errors/a2a-error.js';
import { errorHeaders } from '../http/error-headers.js';
import { bodyLength, PiecedBody } from '../proto/json-out.js';
import type { HttpAnswer, Wire } from '../http/request.js';
import { canonicalPath, hasDotSegment, isAuthority } from '../routing/canonical.js';
import { responseGone } from '../util/drained.js';
import type { EdgeRequest, EdgeResponse } from './http-listener.js';

/** Host header, or the h2 :authority pseudo-header. */
export function hostOf(req: { headers: IncomingHttpHeaders }): string | undefined {
  const h = req.headers.host ?? req.headers[':authority'];
  return Array.isArray(h) ? h[0] : h;
}

/**
 * A Host that is not one (RFC 9112 §3.2: an HTTP/1.1 request without a Host field, or with more than one, is answered
 * 400; over HTTP/2 a Host that differs from :authority): Node keeps the first, another reader may take another.
 */
export function hostProblem(req: {
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  httpVersion: string;
}): A2AError | undefined {
  if (req.httpVersion === '1.1' && req.headers.host === undefined) {
    return A2AError.of('INVALID_REQUEST', 'an HTTP/1.1 request must name its host (a Host field)');
  }
  const raw = req.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i]!;
    if (k.length === 4 && k.toLowerCase() === 'host') hosts++;
  }
  const { host, ':authority': authority } = req.headers;
  if (
    hosts > 1 ||
    (typeof host === 'string' && typeof authority === 'string' && host.toLowerCase() !== authority.toLowerCase())
  ) {
    return A2AError.of('INVALID_REQUEST', 'the request names more than one host (Host fields, or Host and :authority)');
  }
  return undefined;
}

/**
 * A request body in a coding the gateway does not decode: a Content-Encoding other than identity (RFC 9110 §8.4),
 * a transfer coding other than chunked (RFC 9112 §6.1). Refused, never read or forwarded as if it were plain.
 */
export function codingRefusal(headers: IncomingHttpHeaders): A2AError | undefined {
  for (const [name, plain] of [
    ['content-encoding', 'identity'],
    ['transfer-encoding', 'chunked'],
  ] as const) {
    const v = headers[name];
    if (typeof v !== 'string') continue;
    const other = v.split(',').find((c) => {
      const coding = c.trim().toLowerCase();
      return coding !== '' && coding !== plain;
    });
    if (other !== undefined) {
      const shown = other.trim().slice(0, 64);
      return A2AError.of('CONTENT_TYPE_NOT_SUPPORTED', `request bodies in ${name} "${shown}" are not accepted`);
    }
  }
  return undefined;
}

/** The socket that carries the request: an h2 stream's session socket, or the HTTP/1.1 socket. */
export function tlsSocketOf(req: EdgeRequest): unknown {
  const h2 = req as { stream?: { session?: { socket?: unknown } } };
  return h2.stream?.session?.socket ?? req.socket;
}

/**
 * The path in its canonical form (routing/canonical.ts), the query as HTML forms and the official SDK clients write
 * it (URLSearchParams: their "+" is a space; a "+" of a value comes as %2B), and the query string as it came (what a
 * pass-through forwards). Service parameter names are matched case-insensitively.
 */
export function splitUrl(url: string): { path: string; query: URLSearchParams; rawQuery: string } {
  const q = url.indexOf('?');
  if (q < 0) return { path: canonicalPath(url), query: new URLSearchParams(), rawQuery: '' };
  const rawQuery = url.slice(q + 1);
  const query = new URLSearchParams(rawQuery);
  if (/a2a-/i.test(rawQuery)) serviceParameterNames(query);
  return { path: canonicalPath(url.slice(0, q)), query, rawQuery };
}

const SERVICE_PARAMETERS = ['A2A-Version', 'A2A-Extensions'];

/**
 * §3.2.6: service parameter names are case-insensitive, in the query as in headers: `?a2a-version=1.0` is read as
 * `A2A-Version` (the name every reader asks for). A value under the exact name wins over another spelling's.
 */
function serviceParameterNames(query: URLSearchParams): void {
  for (const name of SERVICE_PARAMETERS) {
    if (query.has(name)) continue;
    const lower = name.toLowerCase();
    for (const [k, v] of query) {
      if (k.toLowerCase() === lower) {
        query.set(name, v);
        break;
      }
    }
  }
}

/**
 * An absolute-form target ("http://host/path", RFC 9112 §3.2.2) as its path,
 * its authority taking the Host header's place; the path is not normalized
 * (a URL parser would resolve dot segments the edge must see and refuse).
 */
export function originForm(req: { url?: string; headers: Record<string, unknown> }): string {
  const url = req.url ?? '/';
  if (url.startsWith('/')) return url;
  const m = /^https?:\/\/([^/?#]*)(.*)$/i.exec(url);
  if (!m) return url;
  req.headers.host = m[1];
  const rest = m[2] ?? '';
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * What no request target may hold (RFC 3986 §2, RFC 9112 §3.2): bytes outside printable ASCII (HTTP/2's `:path`
 * carries them; an agent would get them raw in its request line), space, `"<>\^\`{|}` and a fragment. A path or
 * query holding one is refused rather than forwarded as it came: the agent's parser could read another id or
 * operation out of it than the gateway routed and checked.
 */
const NOT_URI = /[^\x21-\x7e]|["#<>\\^`{|}]/;

/** Why the edge refuses a request before routing it, if it does. */
export function refusal(host: string | undefined, rawUrl: string, path: string): A2AError | undefined {
  if (host !== undefined && !isAuthority(host))
    return A2AError.of('INVALID_REQUEST', 'the Host header is not a host[:port] authority');
  if (!rawUrl.startsWith('/')) return A2AError.of('INVALID_REQUEST', 'the request target is not a path');
  if (NOT_URI.test(rawUrl)) {
    return A2AError.of(
      'INVALID_REQUEST',
      'the request target holds a character a URI may not (RFC 3986): percent-encode it',
    );
  }
  if (hasDotSegment(path)) return A2AError.of('INVALID_REQUEST', 'the path has a dot segment ("." or "..")');
  return undefined;
}

export function isJsonRpcPath(method: string, rest: string): boolean {
  return method === 'POST' && (rest === '' || rest === '/');
}

function isRestPath(method: string, path: string): boolean {
  try {
    return matchRestPath(method, path).match !== undefined;
  } catch {
    return true;
  }
}

/**
 * The upstream's answer piped to the caller with backpressure; either side
 * going away ends the other. (stream.pipeline would do the same but builds
 * and aborts an AbortController per call, a measurable cost here.)
 */
export function relay(body: Readable, res: ServerResponse, wire: Wire): Promise<void> {
  body.on('data', (chunk: Buffer) => (wire.bytesOut += chunk.length));
  return new Promise((resolve) => {
    const done = (): void => {
      if (!body.destroyed) body.destroy();
      resolve();
    };
    body.once('error', () => {
      res.destroy();
      done();
    });
    res.once('close', done);
    body.pipe(res);
  });
}

/**
 * An answer with its length (none on a 204 or 304); a HEAD request gets its head only. A pieced body is written
 * as it is made, a piece at a time with backpressure.
 */
export function send(res: EdgeResponse, a: HttpAnswer, wire?: Wire): void {
  const body = a.body;
  const length = body === undefined ? 0 : bodyLength(body);
  if (wire) {
    wire.status = a.status;
    wire.bytesOut = length;
  }
  if (a.status !== 204 && a.status !== 304) res.setHeader('content-length', length);
  const raw = res as ServerResponse;
  raw.writeHead(a.status, a.headers);
  const h2 = 'stream' in res;
  if (body === undefined) raw.end();
  else if (body instanceof PiecedBody) writePieces(res, h2 ? inH2Chunks(body) : body);
  else if (length > H2_CHUNK && h2) writePieces(res, inH2Chunks([typeof body === 'string' ? Buffer.from(body) : body]));
  else raw.end(body);
}

/** What an h2 answer is written in at a time (as fastify does): a whole large body queued at once counts against Node's session memory cap, and the session then refuses the caller's other streams (ENHANCE_YOUR_CALM). */
const H2_CHUNK = 64 * 1024;

/** The pieces in slices of at most H2_CHUNK (a pieced body's JSON text around its large values may be longer). */
function* inH2Chunks(pieces: Iterable<Buffer>): Iterable<Buffer> {
  for (const piece of pieces)
    for (let at = 0; at < piece.length; at += H2_CHUNK) yield piece.subarray(at, at + H2_CHUNK);
}

/** Pieces written while the response takes them, then on each 'drain'; a caller gone stops the making. */
function writePieces(res: EdgeResponse, body: Iterable<Buffer>): void {
  const pieces = body[Symbol.iterator]();
  const next = (): void => {
    for (;;) {
      if (responseGone(res as ServerResponse)) return void pieces.return?.();
      const piece = pieces.next();
      if (piece.done) return void res.end();
      if (!(res as ServerResponse).write(piece.value)) return void res.once('drain', next);
    }
  };
  next();
}

export interface EarlyError {
  answer: HttpAnswer;
  inbound: Binding;
}

/**
 * An error before any route handled the call, in the binding the request
 * implies (a POST that is no REST operation is taken for JSON-RPC) and the
 * version the caller speaks (`v03`: no A2A-Version, or 0.x, §3.6.2): a 0.3
 * JSON-RPC error object, or 0.3's REST `{code, message}` on a `/v1/...` path
 * below the route prefix. The binding is returned for the log and metrics.
 */
export function earlyError(method: string, rest: string, err: A2AError, v03 = false): EarlyError {
  if (isJsonRpcPath(method, rest) || (method === 'POST' && !isRestPath(method, rest))) {
    const body = v03 ? { jsonrpc: '2.0', id: null, error: errorToV03(err) } : errorResponse(null, err);
    const headers = { 'content-type': 'application/json', ...errorHeaders(err) };
    return { answer: { status: err.row.http, headers, body: JSON.stringify(body) }, inbound: 'JSONRPC' };
  }
  return { answer: v03 && isV03RestPath(rest) ? v03Error(err) : restError(err), inbound: 'HTTP+JSON' };
}
