// gRPC over HTTP/2 toward an upstream agent (spec §10; the "gRPC over HTTP2"
// protocol), translated calls only — the pass-through relay and the health
// checks keep grpc-js. A node:http2 client costs about half the CPU per call
// of a grpc-js one (README, Stack). One ClientHttp2Session per address and
// TLS settings, made when first needed and replaced once it closes, goes away
// or fails; keepalive pings while calls are open (an unanswered ping closes
// the session). A call is POST /<service>/<method> with one 5-byte
// length-prefixed message; its answer messages are read as the caller pulls
// them (HTTP/2 flow control holds the agent back) and its status comes from
// the trailers, from a trailers-only answer's headers, from a non-200 HTTP
// status, or from the transport. A status other than OK is thrown as a
// GrpcStatusError, read into the catalogue by the gRPC binding (status.ts).
import http2, { type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import type { UpstreamTls } from '../config/types.js';
import { A2AError } from '../errors/a2a-error.js';
import { GRPC_CODES } from '../errors/catalogue.js';
import { LARGE_BYTES } from '../proto/large-bytes.js';
import { isTlsFailure, undiciConnect } from '../tls/upstream-tls.js';
import {
  fromHttpStatus,
  fromRstCode,
  GrpcMessageReader,
  grpcStatus,
  GrpcStatusError,
  statusOf,
} from './grpc-messages.js';
import type { AbortLike } from '../util/call-signal.js';

/** "grpc://host:port", "grpcs://host:port" or "host:port" → "host:port". */
export function grpcAddress(url: string): string {
  return url.replace(/^grpcs?:\/\//i, '').replace(/\/+$/, '');
}

/** As grpc-js was set: a ping every 5 min while calls are open, 20 s for its answer. */
const KEEPALIVE_MS = 300_000;
const KEEPALIVE_TIMEOUT_MS = 20_000;

/**
 * A failure of the connection (refused, TLS, dropped) → UNAVAILABLE with its
 * reason; of the stream alone (the agent's RST_STREAM) → that code's status,
 * flagged unprocessed when it is REFUSED_STREAM before any answer.
 */
function transportError(
  e: unknown,
  conn: Connection,
  stream: ClientHttp2Stream | undefined,
  answered = false,
): GrpcStatusError {
  const sessionGone = conn.error !== undefined || conn.session.closed || conn.session.destroyed;
  const rst = stream?.rstCode;
  const refused = !answered && rst === http2.constants.NGHTTP2_REFUSED_STREAM;
  if (!sessionGone && rst !== undefined && rst !== http2.constants.NGHTTP2_NO_ERROR) {
    const err = grpcStatus(fromRstCode(rst), `upstream reset the stream (code ${rst})`);
    err.unprocessed = refused;
    return err;
  }
  return connectionError(e, conn, refused);
}

/** The connection's failure (refused, TLS, dropped) → UNAVAILABLE with its reason. */
function connectionError(e: unknown, conn: Connection, refused: boolean): GrpcStatusError {
  const failure = (conn.error ?? e) as (Error & { code?: string; cause?: unknown }) | undefined;
  const cause = (failure?.code === 'ERR_HTTP2_STREAM_CANCEL' && failure.cause ? failure.cause : failure) as
    (Error & { code?: string }) | undefined;
  const code = cause?.code ?? '';
  const text = `${code ? `${code}: ` : ''}${cause?.message ?? String(e)}`;
  const err = isTlsFailure(text)
    ? grpcStatus(GRPC_CODES.UNAVAILABLE, `upstream TLS failure: ${text}`)
    : grpcStatus(GRPC_CODES.UNAVAILABLE, `upstream connection dropped: ${text}`);
  err.unprocessed = refused;
  return err;
}

/**
 * The request message as a Length-Prefixed-Message: one buffer for a small one; for a large one (chunks of
 * binary-chunks.ts) the prefix and then its chunks as they are, none copied.
 */
function framed(chunks: Uint8Array[]): Buffer[] {
  const length = chunks.reduce((n, c) => n + c.byteLength, 0);
  const prefix = Buffer.allocUnsafe(5);
  prefix[0] = 0;
  prefix.writeUInt32BE(length, 1);
  if (length < LARGE_BYTES) return [Buffer.concat([prefix, ...chunks], 5 + length)];
  return [prefix, ...chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength))];
}

/** grpc-timeout: at most 8 digits and a unit. */
const timeoutHeader = (ms: number): string =>
  ms < 1e8 ? `${Math.max(1, Math.ceil(ms))}m` : `${Math.ceil(ms / 1000)}S`;

export interface GrpcCallOptions {
  /** Custom metadata (the service parameters, §10.2). */
  metadata: Record<string, string>;
  /** The deadline, sent as grpc-timeout and kept here (unary calls; streams have none). */
  timeoutMs?: number;
  /** Largest answer message; past it the stream is reset. */
  maxMessageBytes: number;
  signal: AbortLike;
}

interface Connection {
  session: ClientHttp2Session;
  open: number;
  keepalive: NodeJS.Timeout | undefined;
  /** Why the session failed, if it did. */
  error?: Error;
}

export class GrpcSession {
  private current: Connection | undefined;
  private readonly all = new Set<Connection>();
  private readonly authority: string;
  private readonly tls: ReturnType<typeof undiciConnect>;

  constructor(
    /** "host:port" */
    address: string,
    tls: UpstreamTls | undefined,
    /** A session not up (TCP, TLS, HTTP/2 settings) within this fails its calls (grpc-js's default: 20 s). */
    private readonly connectTimeoutMs = 20_000,
  ) {
    this.tls = undiciConnect(tls);
    this.authority = `${this.tls ? 'https' : 'http'}://${address}`;
  }

  private connection(): Connection {
    const now = this.current;
    if (now && !now.session.closed && !now.session.destroyed) return now;
    // Node counts request data waiting to be sent against a session's memory (10 MB by default) and, past it, resets
    // any call whose answer headers arrive then (ENHANCE_YOUR_CALM): one 10 MiB request failed the calls beside it.
    // Unbounded, as grpc-js sets it (the cap never bounded memory, it reset other calls); what calls send is bounded
    // by the routes' maxBodyBytes and the origin's budget.
    const session = http2.connect(this.authority, { ...this.tls, maxSessionMemory: Number.MAX_SAFE_INTEGER });
    const conn: Connection = { session, open: 0, keepalive: undefined };
    // an address that never answers would otherwise hold a stream (which has no deadline) for the kernel's timeout
    const connecting = setTimeout(() => {
      const e = Object.assign(new Error(`no connection within ${this.connectTimeoutMs} ms`), { code: 'ETIMEDOUT' });
      session.destroy(e);
    }, this.connectTimeoutMs);
    connecting.unref();
    session.once('connect', () => clearTimeout(connecting));
    const drop = (): void => {
      if (this.current === conn) this.current = undefined;
    };
    session.on('error', (e: Error) => {
      conn.error ??= e;
      drop();
    });
    session.on('goaway', drop);
    session.on('close', () => {
      clearTimeout(connecting);
      drop();
      clearInterval(conn.keepalive);
      this.all.delete(conn);
    });
    session.unref();
    this.current = conn;
    this.all.add(conn);
    return conn;
  }

  private opened(conn: Connection): void {
    if (conn.open++ > 0) return;
    conn.session.ref();
    conn.keepalive = setInterval(() => {
      const late = setTimeout(
        () => conn.session.destroy(new Error('keepalive ping not answered')),
        KEEPALIVE_TIMEOUT_MS,
      );
      late.unref();
      if (!conn.session.ping(() => clearTimeout(late))) clearTimeout(late);
    }, KEEPALIVE_MS);
    conn.keepalive.unref();
  }

  private closed(conn: Connection): void {
    if (--conn.open > 0) return;
    clearInterval(conn.keepalive);
    conn.keepalive = undefined;
    if (!conn.session.destroyed) conn.session.unref();
  }

  /**
   * One call: `body` (chunks) as the request message, the answer messages yielded as
   * pulled. Ends when the status is OK; otherwise throws GrpcStatusError, or
   * A2AError for an answer the gateway refuses (compressed, too large, torn).
   * Leaving the loop early resets the stream (CANCEL).
   */
  async *call(path: string, body: Uint8Array[], opts: GrpcCallOptions): AsyncGenerator<Buffer> {
    const frame = framed(body);
    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': path,
      ...(this.tls?.servername ? { ':authority': this.tls.servername } : {}),
      'content-type': 'application/grpc',
      te: 'trailers',
      ...(opts.timeoutMs !== undefined ? { 'grpc-timeout': timeoutHeader(opts.timeoutMs) } : {}),
      ...opts.metadata,
    };
    try {
      yield* this.attempt(frame, headers, opts);
    } catch (e) {
      // a call the agent refused unprocessed (a GOAWAY race while it restarts, a stream it had no room for) goes once
      // more, as grpc-js's transparent retry did — on a new session when the old one is going away
      if (!(e instanceof GrpcStatusError && e.unprocessed) || opts.signal.aborted) throw e;
      yield* this.attempt(frame, headers, opts);
    }
  }

  private async *attempt(
    frame: Buffer[],
    headers: http2.OutgoingHttpHeaders,
    opts: GrpcCallOptions,
  ): AsyncGenerator<Buffer> {
    if (opts.signal.aborted) throw grpcStatus(GRPC_CODES.CANCELLED, 'Cancelled on client');
    const conn = this.connection();
    let stream: ClientHttp2Stream;
    try {
      stream = conn.session.request(headers);
    } catch (e) {
      throw connectionError(e, conn, true); // nothing was sent (the session was closing or going away)
    }
    this.opened(conn);
    stream.once('close', () => this.closed(conn));
    // the stream's error is read where the call ends (the iterator, rstCode, the session's error); this keeps one
    // that comes while no reader is attached (between attempts, after the last message) from ending the process
    stream.on('error', () => undefined);
    /** Why the gateway ended the call itself (deadline, caller gone, a refused answer). */
    let ended: Error | undefined;
    const end = (why: Error): void => {
      ended ??= why;
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
    };
    let head: IncomingHttpHeaders | undefined;
    let trailers: IncomingHttpHeaders | undefined;
    stream.once('response', (h) => {
      head = h;
      const status = Number(h[':status']);
      if (status !== 200) end(grpcStatus(fromHttpStatus(status), `upstream answered HTTP status ${status}`));
      else if (h['grpc-status'] === undefined && !String(h['content-type'] ?? '').startsWith('application/grpc'))
        end(
          A2AError.of(
            'INVALID_AGENT_RESPONSE',
            `upstream answered content-type ${String(h['content-type'])}, not gRPC`,
          ),
        );
    });
    stream.once('trailers', (t) => (trailers = t));
    const deadline =
      opts.timeoutMs === undefined
        ? undefined
        : setTimeout(
            () => end(grpcStatus(GRPC_CODES.DEADLINE_EXCEEDED, `upstream did not answer within ${opts.timeoutMs} ms`)),
            opts.timeoutMs,
          );
    const onAbort = (): void => end(grpcStatus(GRPC_CODES.CANCELLED, 'Cancelled on client'));
    opts.signal.addEventListener('abort', onAbort, { once: true });
    for (const chunk of frame.slice(0, -1)) stream.write(chunk);
    stream.end(frame[frame.length - 1]);
    const reader = new GrpcMessageReader(opts.maxMessageBytes);
    try {
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          for (const message of reader.push(chunk)) {
            if (ended) break;
            yield message;
          }
          if (ended) break;
        }
      } catch (e) {
        if (ended) throw ended;
        if (e instanceof A2AError || e instanceof GrpcStatusError) {
          end(e);
          throw e;
        }
        throw transportError(e, conn, stream, head !== undefined);
      }
      if (ended) throw ended;
      if (!stream.closed) await new Promise((r) => stream.once('close', r));
      if (ended) throw ended;
      const answered = head as IncomingHttpHeaders | undefined; // set by the response event
      const status = answered && statusOf(answered, trailers);
      // no status: the connection dropped, or the agent reset the stream
      if (!status)
        throw transportError(new Error('upstream ended the call without a gRPC status'), conn, stream, !!answered);
      if (status.code !== GRPC_CODES.OK) throw new GrpcStatusError(status);
      reader.finish();
    } finally {
      clearTimeout(deadline);
      opts.signal.removeEventListener('abort', onAbort);
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
    }
  }

  /** Gracefully closes every session (open calls finish first). */
  close(): void {
    this.current = undefined;
    for (const conn of this.all) conn.session.close();
  }
}
