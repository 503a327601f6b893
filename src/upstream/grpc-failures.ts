// What status an upstream gRPC call gets when its transport fails rather
// than the agent answering (spec §10; "gRPC over HTTP2"): a failure of the
// connection (refused, TLS, dropped) is UNAVAILABLE with its reason; the
// agent's RST_STREAM of the call alone is that code's status, flagged
// unprocessed (safe to send again) when it is REFUSED_STREAM before any answer.
import http2, { type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { GRPC_CODES } from '../errors/catalogue.js';
import { isTlsFailure } from '../tls/upstream-tls.js';
import type { AbortLike } from '../util/call-signal.js';
import { fromRstCode, grpcStatus, type GrpcStatusError } from './grpc-messages.js';

/** The HTTP/2 session a call went on, and why it failed if it did. */
export interface SessionState {
  session: ClientHttp2Session;
  error?: Error;
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
  const refused = !answered && rst === http2.constants.NGHTTP2_REFUSED_STREAM;
  if (!sessionGone && rst !== undefined && rst !== http2.constants.NGHTTP2_NO_ERROR) {
    const err = grpcStatus(fromRstCode(rst), `upstream reset the stream (code ${rst})`);
    err.unprocessed = refused;
    return err;
  }
  return connectionError(e, conn, refused);
}

/** The connection's failure (refused, TLS, dropped) → UNAVAILABLE with its reason. */
export function connectionError(e: unknown, conn: SessionState, refused: boolean): GrpcStatusError {
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
