// One server-streaming call's answer on its HTTP/2 stream (spec §10.7; "gRPC
// over HTTP2"): its messages as the caller pulls them — the stream is paused
// while 16 KiB of them wait (as much as a paused Readable holds), so HTTP/2
// flow control holds the agent back — then
// its status from the trailers (or a trailers-only answer, a non-200 HTTP
// status, the transport). An object with next() and return() fed by the
// stream's events, as grpc-unary.ts reads a unary answer: not an async
// generator over the stream's async iterator, which held three generator
// frames per open stream (core/event-stream.ts says what each costs). A call
// the agent refused unprocessed (REFUSED_STREAM before any answer, a session
// going away) is sent once more, as grpc-js's transparent retry did. The
// caller's signal, a refused answer or return() reset the stream (CANCEL).
import http2, { type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { DONE } from '../core/event-stream.js';
import { cancelStream, endAtDeadlineOrAbort, endOfCall, type SessionState } from './grpc-failures.js';
import { GrpcMessageReader, GrpcStatusError, refusedHead, writeFramed } from './grpc-messages.js';
import type { GrpcCallOptions } from './grpc-session.js';

/** A call's stream, just opened on its session. */
export interface StreamStart {
  conn: SessionState;
  stream: ClientHttp2Stream;
}

/** Bytes of messages read ahead of the caller's pulls: a pause and resume per message cost ~1 µs per event. */
const QUEUE_BYTES = 16 * 1024;

interface Pull {
  resolve(r: IteratorResult<Buffer>): void;
  reject(e: unknown): void;
}

export class GrpcStreamAnswer implements AsyncIterableIterator<Buffer> {
  private stream: ClientHttp2Stream | undefined;
  /** The attempt's message reader, made by open() (read only from its stream's events). */
  private reader!: GrpcMessageReader;
  private head: IncomingHttpHeaders | undefined;
  private trailers: IncomingHttpHeaders | undefined;
  private failed: Error | undefined;
  /** Why the gateway ended the call itself (caller gone, a refused answer): thrown before any message waiting. */
  private ended: unknown;
  /** A message the gateway refuses (compressed, too large): thrown after the messages before it. */
  private torn: unknown;
  /** Messages read, not pulled yet (the stream is paused from QUEUE_BYTES of them until they are pulled). */
  private readonly queue: Buffer[] = [];
  private queued = 0;
  /** How the call finished, once its stream closed (error undefined: status OK). */
  private outcome: { error: unknown } | undefined;
  private pull: Pull | undefined;
  private finished = false;
  private retried = false;
  private readonly unwatch: () => void;

  constructor(
    first: StreamStart | GrpcStatusError,
    private readonly frame: Buffer[],
    private readonly opts: GrpcCallOptions,
    /** Opens the call's stream again (for a call refused unprocessed). */
    private readonly again: () => StreamStart | GrpcStatusError,
  ) {
    this.unwatch = endAtDeadlineOrAbort(opts, (why) => this.end(why));
    this.open(first);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private open(start: StreamStart | GrpcStatusError): void {
    if (start instanceof Error) return this.closed(start);
    const { conn, stream } = start;
    this.stream = stream;
    this.reader = new GrpcMessageReader(this.opts.maxMessageBytes);
    this.head = this.trailers = this.failed = undefined;
    // kept here and read at close, as the stream ends either way
    stream.on('error', (e: Error) => (this.failed ??= e));
    stream.once('response', (h: IncomingHttpHeaders) => {
      this.head = h;
      const refused = refusedHead(h);
      if (refused) this.end(refused);
    });
    stream.once('trailers', (t: IncomingHttpHeaders) => (this.trailers = t));
    stream.on('data', (chunk: Buffer) => this.read(chunk));
    stream.once('close', () => this.closed(this.status(conn, stream)));
    writeFramed(stream, this.frame);
  }

  private read(chunk: Buffer): void {
    if (this.finished || this.ended !== undefined || this.torn !== undefined) return;
    try {
      for (const message of this.reader.push(chunk)) {
        this.queue.push(message);
        this.queued += message.length;
      }
    } catch (e) {
      this.torn = e;
      this.stream!.close(http2.constants.NGHTTP2_CANCEL);
    }
    this.serve();
    if (this.queued >= QUEUE_BYTES) this.stream!.pause();
  }

  /** How the call ended once its stream closed: undefined for status OK. */
  private status(conn: SessionState, stream: ClientHttp2Stream): unknown {
    if (this.ended !== undefined) return this.ended;
    if (this.torn !== undefined) return this.torn;
    return endOfCall(conn, stream, { head: this.head, trailers: this.trailers, failed: this.failed }, this.reader);
  }

  private closed(error: unknown): void {
    if (this.finished) return;
    if (error instanceof GrpcStatusError && error.unprocessed && !this.retried && !this.opts.signal.aborted) {
      this.retried = true;
      return this.open(this.again());
    }
    this.outcome = { error };
    this.serve();
  }

  /** Ends the call from this side: the stream is reset and `why` is what the next pull throws. */
  private end(why: unknown): void {
    this.ended ??= why;
    if (this.stream) cancelStream(this.stream);
    this.serve();
  }

  /** Answers the waiting pull, if there is one and something to answer it with. */
  private serve(): void {
    const pull = this.pull;
    if (pull === undefined) return;
    if (this.ended === undefined && this.queue.length === 0 && this.torn === undefined && this.outcome === undefined)
      return;
    this.pull = undefined;
    this.answer(pull);
  }

  /** A message first, unless the gateway ended the call; then a refused message, or the outcome. */
  private answer(pull: Pull): void {
    if (this.ended === undefined && this.queue.length > 0) {
      const message = this.queue.shift()!;
      this.queued -= message.length;
      if (this.queue.length === 0 && this.stream?.isPaused()) this.stream.resume();
      return pull.resolve({ done: false, value: message });
    }
    const error = this.ended ?? this.torn ?? this.outcome?.error;
    this.finish();
    if (error === undefined) pull.resolve(DONE);
    else pull.reject(error);
  }

  /** One pull at a time (as `for await` pulls): a second one while the first waits would replace it. */
  next(): Promise<IteratorResult<Buffer>> {
    if (this.finished) return Promise.resolve(DONE);
    return new Promise<IteratorResult<Buffer>>((resolve, reject) => {
      this.pull = { resolve, reject };
      this.serve();
    });
  }

  return(): Promise<IteratorResult<Buffer>> {
    this.finish();
    return Promise.resolve(DONE);
  }

  /** Once: no watcher left, the stream reset if it is still open, a waiting pull answered done. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.unwatch();
    this.queue.length = 0;
    const stream = this.stream;
    if (stream) cancelStream(stream);
    // an answer the agent ended while the stream was paused with data unread waits for an 'end' nobody reads: its
    // close (and the session's count of open calls) comes with the destroy
    if (stream && !stream.destroyed) stream.destroy();
    const pull = this.pull;
    this.pull = undefined;
    pull?.resolve(DONE);
  }
}
