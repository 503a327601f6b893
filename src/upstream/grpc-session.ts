// gRPC over HTTP/2 toward an upstream agent (spec §10; the "gRPC over HTTP2"
// protocol): translated calls, the pass-through relay and the console's "try
// it" (the health checks keep grpc-js). A node:http2 client costs about half
// the CPU per call of a grpc-js one (README, Stack). A ClientHttp2Session per
// address and TLS settings, made when first needed and replaced once it closes,
// goes away or fails; one more when every session has as many calls open as its
// agent allows (SETTINGS_MAX_CONCURRENT_STREAMS, nginx's default 128:
// node:http2 would hold the next call until one ends), as Envoy's HTTP/2 pool
// does, and such an extra session closes after idleMs with no call (the
// origin's budget bounds them: an agent that allows no call counts as allowing
// one; before its SETTINGS come a session takes 100, as node:http2 does).
// Keepalive pings while calls are open (an unanswered ping closes the session).
// A call is POST /<service>/<method> with one 5-byte length-prefixed message; a
// stream's answer messages are read as the caller pulls them (grpc-stream.ts;
// HTTP/2 flow control holds the agent back), a unary call's one message from
// the stream's events (grpc-unary.ts); the status comes from the trailers, from
// a trailers-only answer's headers, from a non-200 HTTP status, or from the
// transport. A status other than OK is thrown as a GrpcStatusError, read into
// the catalogue by the gRPC binding (status.ts).
import http2, { type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import type { UpstreamTls } from '../config/types.js';
import { GRPC_CODES } from '../errors/catalogue.js';
import { undiciConnect } from '../tls/upstream-tls.js';
import { connectionError, type SessionState } from './grpc-failures.js';
import { framed, grpcStatus, GrpcStatusError, timeoutHeader } from './grpc-messages.js';
import type { AbortLike } from '../util/call-signal.js';
import { GrpcStreamAnswer } from './grpc-stream.js';
import { unaryAnswer } from './grpc-unary.js';
import { useLeanAsyncBind } from './lean-async-bind.js';

// each ClientHttp2Session#request binds an AsyncResource: without Node 20's deprecated accessor (lean-async-bind.ts)
useLeanAsyncBind();

/** "grpc://host:port", "grpcs://host:port" or "host:port" → "host:port". */
export function grpcAddress(url: string): string {
  return url.replace(/^grpcs?:\/\//i, '').replace(/\/+$/, '');
}

/** As grpc-js was set: a ping every 5 min while calls are open, 20 s for its answer. */
const KEEPALIVE_MS = 300_000;
const KEEPALIVE_TIMEOUT_MS = 20_000;

export interface GrpcCallOptions {
  /** Custom metadata (the service parameters, §10.2). */
  metadata: Record<string, string>;
  /** The deadline, sent as grpc-timeout and kept here (unary calls; streams have none). */
  timeoutMs?: number;
  /** Largest answer message; past it the stream is reset. */
  maxMessageBytes: number;
  signal: AbortLike;
  /** The :authority sent, when not the address (or the TLS servername): the gateway's own listener by a route's host. */
  authority?: string;
}

/** TLS to the gateway's own listener from inside its process: its certificate names the public host, not loopback. */
export const LOOPBACK_TLS = 'loopback';

/** The streams a session may open before its agent's SETTINGS come (node:http2's peerMaxConcurrentStreams, nghttp2's). */
const STREAMS_BEFORE_SETTINGS = 100;

interface Connection extends SessionState {
  session: ClientHttp2Session;
  open: number;
  /** Calls the agent allows open at once on it (its SETTINGS_MAX_CONCURRENT_STREAMS). */
  limit: number;
  keepalive: NodeJS.Timeout | undefined;
  /** Closes an extra session left without calls. */
  idle: NodeJS.Timeout | undefined;
}

export class GrpcSession {
  /** The sessions new calls may use (not closed, going away or failed), oldest first. */
  private readonly usable: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly authority: string;
  private readonly tls: { servername?: string; rejectUnauthorized: boolean } | undefined;

  constructor(
    /** "host:port" */
    address: string,
    tls: UpstreamTls | typeof LOOPBACK_TLS | undefined,
    /** A session not up (TCP, TLS, HTTP/2 settings) within this fails its calls (grpc-js's default: 20 s). */
    private readonly connectTimeoutMs = 20_000,
    /** An extra session (not the oldest) closes after this long with no call open. */
    private readonly idleMs = 60_000,
  ) {
    this.tls = tls === LOOPBACK_TLS ? { rejectUnauthorized: false } : undiciConnect(tls);
    this.authority = `${this.tls ? 'https' : 'http'}://${address}`;
  }

  /** The oldest usable session with room for one more call, else a new one. */
  private connection(): Connection {
    for (let i = 0; i < this.usable.length; i++) {
      const conn = this.usable[i]!;
      // closed or destroyed, its 'close' still to come (an idle one closed, a keepalive that failed): never used again
      if (conn.session.closed || conn.session.destroyed) this.usable.splice(i--, 1);
      else if (conn.open < conn.limit) return conn;
    }
    return this.connect();
  }

  private connect(): Connection {
    // Node counts request data waiting to be sent against a session's memory (10 MB by default) and, past it, resets
    // any call whose answer headers arrive then (ENHANCE_YOUR_CALM): one 10 MiB request failed the calls beside it.
    // Unbounded, as grpc-js sets it (the cap never bounded memory, it reset other calls); what calls send is bounded
    // by the routes' maxBodyBytes and the origin's budget.
    const session = http2.connect(this.authority, { ...this.tls, maxSessionMemory: Number.MAX_SAFE_INTEGER });
    const conn: Connection = {
      session,
      open: 0,
      limit: STREAMS_BEFORE_SETTINGS,
      keepalive: undefined,
      idle: undefined,
    };
    // an address that never answers would otherwise hold a stream (which has no deadline) for the kernel's timeout
    const connecting = setTimeout(() => {
      const e = Object.assign(new Error(`no connection within ${this.connectTimeoutMs} ms`), { code: 'ETIMEDOUT' });
      session.destroy(e);
    }, this.connectTimeoutMs);
    connecting.unref();
    session.once('connect', () => clearTimeout(connecting));
    session.on('remoteSettings', (settings: http2.Settings) => {
      // (at least one: an agent that allows none for now would have every call open a session)
      conn.limit = Math.max(1, settings.maxConcurrentStreams ?? 2 ** 32 - 1);
    });
    const drop = (): void => {
      const i = this.usable.indexOf(conn);
      if (i >= 0) this.usable.splice(i, 1);
    };
    session.on('error', (e: Error) => {
      conn.error ??= e;
      drop();
    });
    session.on('goaway', (_code: number, lastStreamId: number) => {
      // the streams above it were never processed: sent again (grpc-failures.ts), never counted as taken
      conn.goawayLastStreamId = Math.min(conn.goawayLastStreamId ?? lastStreamId, lastStreamId);
      drop();
    });
    session.on('close', () => {
      clearTimeout(connecting);
      drop();
      clearInterval(conn.keepalive);
      clearTimeout(conn.idle);
      this.all.delete(conn);
    });
    session.unref();
    this.usable.push(conn);
    this.all.add(conn);
    return conn;
  }

  private opened(conn: Connection): void {
    if (conn.open++ > 0) return;
    clearTimeout(conn.idle);
    conn.idle = undefined;
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
    if (conn.session.destroyed) return;
    conn.session.unref();
    if (this.usable[0] === conn) return; // the oldest stays, as one connection per agent did
    conn.idle = setTimeout(() => {
      // (the oldest by now, when the one before it went away: kept)
      if (conn.open > 0 || this.usable[0] === conn) return;
      const i = this.usable.indexOf(conn);
      if (i >= 0) this.usable.splice(i, 1);
      conn.session.close();
    }, this.idleMs);
    conn.idle.unref();
  }

  /**
   * One server-streaming call: `body` (chunks) as the request message, the answer messages as pulled (grpc-stream.ts).
   * Ends when the status is OK; otherwise throws GrpcStatusError, or A2AError for an answer the gateway refuses
   * (compressed, too large, torn). return() resets the stream (CANCEL).
   */
  call(path: string, body: Uint8Array[], opts: GrpcCallOptions): AsyncIterableIterator<Buffer> {
    const frame = framed(body);
    const headers = this.headers(path, opts);
    return new GrpcStreamAnswer(this.start(headers, opts), frame, opts, () => this.start(headers, opts));
  }

  /**
   * One unary call: `body` (chunks) as the request message; resolves with `read` of its one answer message when the
   * status is OK; otherwise rejects as call() throws (and for no answer message, or more than one).
   */
  unary<T>(path: string, body: Uint8Array[], opts: GrpcCallOptions, read: (message: Buffer) => T): Promise<T> {
    const frame = framed(body);
    const started = Date.now();
    return this.unaryAttempt(frame, this.headers(path, opts), opts, read).catch((e: unknown) => {
      // sent once more when the agent refused it unprocessed, as call() does, within what is left of the deadline
      if (!(e instanceof GrpcStatusError && e.unprocessed) || opts.signal.aborted) throw e;
      const left = opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs - (Date.now() - started) };
      if (left.timeoutMs !== undefined && left.timeoutMs <= 0) throw e;
      const again = { ...opts, ...left };
      return this.unaryAttempt(frame, this.headers(path, again), again, read);
    });
  }

  private unaryAttempt<T>(
    frame: Buffer[],
    headers: http2.OutgoingHttpHeaders,
    opts: GrpcCallOptions,
    read: (message: Buffer) => T,
  ): Promise<T> {
    const started = this.start(headers, opts);
    if (started instanceof Error) return Promise.reject(started);
    return unaryAnswer(started.conn, started.stream, frame, opts, read);
  }

  private headers(path: string, opts: GrpcCallOptions): http2.OutgoingHttpHeaders {
    const headers: http2.OutgoingHttpHeaders = { ':method': 'POST', ':path': path };
    if (opts.authority !== undefined) headers[':authority'] = opts.authority;
    else if (this.tls?.servername) headers[':authority'] = this.tls.servername;
    headers['content-type'] = 'application/grpc';
    headers.te = 'trailers';
    if (opts.timeoutMs !== undefined) headers['grpc-timeout'] = timeoutHeader(opts.timeoutMs);
    return Object.assign(headers, opts.metadata);
  }

  /** The call's stream on the current session, or why it could not start (nothing was sent). */
  private start(
    headers: http2.OutgoingHttpHeaders,
    opts: GrpcCallOptions,
  ): { conn: Connection; stream: ClientHttp2Stream } | GrpcStatusError {
    if (opts.signal.aborted) return grpcStatus(GRPC_CODES.CANCELLED, 'Cancelled on client');
    let conn: Connection;
    try {
      conn = this.connection();
    } catch (e) {
      // no session could be made (TLS files node:http2 refuses: a bad key, a key not of its certificate): failed
      // like a connection, not thrown past the call's budget
      return connectionError(e, {}, true);
    }
    let stream: ClientHttp2Stream;
    try {
      stream = conn.session.request(headers);
    } catch (e) {
      return connectionError(e, conn, true); // the session was closing or going away
    }
    this.opened(conn);
    stream.once('close', () => this.closed(conn));
    return { conn, stream };
  }

  /** Gracefully closes every session (open calls finish first). */
  close(): void {
    this.usable.length = 0;
    for (const conn of this.all) conn.session.close();
  }
}
