// What status an upstream gRPC call gets when its transport fails rather
// than the agent answering (spec §10; "gRPC over HTTP2"): a failure of the
// connection (refused, TLS, dropped) is UNAVAILABLE with its reason; the
// agent's RST_STREAM of the call alone is that code's status, flagged
// unprocessed (safe to send again) when it is REFUSED_STREAM before any answer
// or above the last stream id of the agent's GOAWAY; a connection that drops
// after the call went out is flagged so (the agent
// may have it: a task's call is not reported as its endpoint unavailable);
// how a call ended, read when its stream closed (unary and stream alike); and
// how the gateway ends a call's stream itself (deadline, caller gone).
import http2, { type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { GRPC_CODES } from '../errors/catalogue.js';
import { isTlsFailure } from '../tls/upstream-tls.js';
import type { AbortLike } from '../util/call-signal.js';
import { fromRstCode, grpcStatus, GrpcStatusError, statusOf, type GrpcMessageReader } from './grpc-messages.js';

/** The HTTP/2 session a call went on, and why it failed if it did. */
export interface SessionState {
  session: ClientHttp2Session;
  error?: Error;
  /** The lowest last-stream id of the agent's GOAWAYs: a stream above it was never processed (RFC 9113 §6.8). */
  goawayLastStreamId?: number;
}

/**
 * A failure of the connection (refused, TLS, dropped) → UNAVAILABLE with its
 * reason; of the stream alone (the agent's RST_STREAM) → that code's status,
 * flagged unprocessed when it is REFUSED_STREAM before any answer.
 */
export function transportError(
  e: unknown,
  conn: SessionState,
  stream: ClientHttp2Stream | undefined,
  answered = false,
): GrpcStatusError {
  const sessionGone = conn.error !== undefined || conn.session.closed || conn.session.destroyed;
  const rst = stream?.rstCode;
  const id = stream?.id;
  // refused by the agent (REFUSED_STREAM), or above the last stream its GOAWAY says it processed
  const refused =
    !answered &&
    (rst === http2.constants.NGHTTP2_REFUSED_STREAM ||
      (id !== undefined && conn.goawayLastStreamId !== undefined && id > conn.goawayLastStreamId));
  if (!sessionGone && rst !== undefined && rst !== http2.constants.NGHTTP2_NO_ERROR) {
    const err = grpcStatus(fromRstCode(rst), `upstream reset the stream (code ${rst})`);
    err.unprocessed = refused;
    return err;
  }
  // a stream with an id went out on a connected session: the agent may have the call (unless it said it has not)
  return connectionError(e, conn, refused, id !== undefined ? (answered ? 'answer' : 'request') : undefined);
}

/**
 * The connection's failure (refused, TLS, dropped) → UNAVAILABLE with its reason; `sent`: how far the call had gone
 * (flagged `dropped` unless it was refused unprocessed or the failure is TLS's: then the agent never took the call).
 */
export function connectionError(
  e: unknown,
  conn: Pick<SessionState, 'error'>,
  refused: boolean,
  sent?: 'request' | 'answer',
): GrpcStatusError {
  const failure = (conn.error ?? e) as (Error & { code?: string; cause?: unknown }) | undefined;
  const cause = (failure?.code === 'ERR_HTTP2_STREAM_CANCEL' && failure.cause ? failure.cause : failure) as
    (Error & { code?: string }) | undefined;
  const code = cause?.code ?? '';
  const text = `${code ? `${code}: ` : ''}${cause?.message ?? String(e)}`;
  const tls = isTlsFailure(text);
  const err = tls
    ? grpcStatus(GRPC_CODES.UNAVAILABLE, `upstream TLS failure: ${text}`)
    : grpcStatus(GRPC_CODES.UNAVAILABLE, `upstream connection dropped: ${text}`);
  err.unprocessed = refused;
  if (code === 'ECONNREFUSED') err.status.refused = true;
  // (a TLS 1.3 client certificate is refused after the handshake, a stream already sent: still no call taken)
  else if (sent && !refused && !tls) err.status.dropped = sent;
  return err;
}

/**
 * Resets a call's stream (CANCEL). One node:http2 has not sent yet (just made, or held while its agent's concurrent
 * streams are all taken) is destroyed as well: close() alone would wait until it is sent, the call's deadline with it.
 */
export function cancelStream(stream: ClientHttp2Stream): void {
  if (stream.closed) return;
  const unsent = stream.state?.state === http2.constants.NGHTTP2_STREAM_STATE_IDLE;
  stream.close(http2.constants.NGHTTP2_CANCEL);
  if (unsent) stream.destroy();
}

/** Ends a call (through `end`) at its deadline or when its caller goes away; returns what stops watching. */
export function endAtDeadlineOrAbort(
  opts: { timeoutMs?: number | undefined; signal: AbortLike },
  end: (why: GrpcStatusError) => void,
): () => void {
  const { timeoutMs, signal } = opts;
  const deadline =
    timeoutMs === undefined
      ? undefined
      : setTimeout(
          () => end(grpcStatus(GRPC_CODES.DEADLINE_EXCEEDED, `upstream did not answer within ${timeoutMs} ms`)),
          timeoutMs,
        );
  const onAbort = (): void => end(grpcStatus(GRPC_CODES.CANCELLED, 'Cancelled on client'));
  signal.addEventListener('abort', onAbort, { once: true });
  return () => {
    clearTimeout(deadline);
    signal.removeEventListener('abort', onAbort);
  };
}

/** The stream's readable side closed before its end (as an async iterator reports it). */
const prematureClose = (): Error => Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });

/** What a call's stream brought before it closed: its head, its trailers, its error. */
export interface CallEnd {
  head: IncomingHttpHeaders | undefined;
  trailers: IncomingHttpHeaders | undefined;
  failed: Error | undefined;
}

/**
 * How a call ended, read when its stream closed: undefined for status OK (and no message cut short), else what the
 * call throws — the transport's failure, a missing status, the agent's status, a torn last message.
 */
export function endOfCall(
  conn: SessionState,
  stream: ClientHttp2Stream,
  end: CallEnd,
  reader: GrpcMessageReader,
): unknown {
  const { head, trailers, failed } = end;
  if (failed || !stream.readableEnded)
    return transportError(failed ?? prematureClose(), conn, stream, head !== undefined);
  const status = head && statusOf(head, trailers);
  // no status: the connection dropped, or the agent reset the stream
  if (!status) return transportError(new Error('upstream ended the call without a gRPC status'), conn, stream, !!head);
  if (status.code !== GRPC_CODES.OK) return new GrpcStatusError(status);
  try {
    reader.finish();
  } catch (e) {
    return e;
  }
  return undefined;
}
