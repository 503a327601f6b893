// One unary call's answer on its HTTP/2 stream (spec §10; "gRPC over HTTP2"),
// read from the stream's events — no async iterator, no generator — since a
// unary answer is one message, bounded by maxResponseBytes: its one message,
// read by the caller's `read` as it arrives (a second one, a message cut
// short or refused by `read` ends the call), then its status from the
// trailers (or a trailers-only answer, a non-200 HTTP status, the
// transport). The deadline and the caller's signal reset the stream (CANCEL).
import type { ClientHttp2Stream, IncomingHttpHeaders } from 'node:http2';
import { A2AError } from '../errors/a2a-error.js';
import { cancelStream, endAtDeadlineOrAbort, endOfCall, type SessionState } from './grpc-failures.js';
import { GrpcMessageReader, refusedHead, writeFramed } from './grpc-messages.js';
import type { GrpcCallOptions } from './grpc-session.js';

/** Sends `frame` on `stream` (just opened on `conn`) and resolves with `read` of the one answer message. */
export function unaryAnswer<T>(
  conn: SessionState,
  stream: ClientHttp2Stream,
  frame: Buffer[],
  opts: GrpcCallOptions,
  read: (message: Buffer) => T,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    /** Why the gateway ended the call itself (deadline, caller gone, a refused answer). */
    let ended: Error | undefined;
    let failed: Error | undefined;
    let head: IncomingHttpHeaders | undefined;
    let trailers: IncomingHttpHeaders | undefined;
    let answer: { value: T } | undefined;
    const reader = new GrpcMessageReader(opts.maxMessageBytes);
    const end = (why: Error): void => {
      ended ??= why;
      cancelStream(stream);
    };
    const unwatch = endAtDeadlineOrAbort(opts, end);
    stream.once('response', (h: IncomingHttpHeaders) => {
      head = h;
      const refused = refusedHead(h);
      if (refused) end(refused);
    });
    stream.once('trailers', (t: IncomingHttpHeaders) => (trailers = t));
    // kept here and read at close, as the stream ends either way
    stream.on('error', (e: Error) => (failed ??= e));
    stream.on('data', (chunk: Buffer) => {
      if (ended) return;
      try {
        for (const message of reader.push(chunk)) {
          if (answer !== undefined)
            throw A2AError.of('INVALID_AGENT_RESPONSE', 'upstream answered a unary call with more than one message');
          answer = { value: read(message) };
        }
      } catch (e) {
        end(e as Error);
      }
    });
    stream.once('close', () => {
      unwatch();
      if (ended) return reject(ended);
      const error = endOfCall(conn, stream, { head, trailers, failed }, reader);
      if (error !== undefined) return reject(error);
      if (answer === undefined)
        return reject(A2AError.of('INVALID_AGENT_RESPONSE', 'upstream answered a unary call without a message'));
      resolve(answer.value);
    });
    writeFramed(stream, frame);
  });
}
