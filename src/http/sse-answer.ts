// The streamed answer shared by the two HTTP bindings (spec §9.4.2, §11.7):
// the first event is awaited before anything is written, so an error before
// it is answered as an ordinary error in the caller's binding; after it,
// every event becomes one SSE frame and a failure becomes one final error
// frame. A stream that may be quiet (`quietMs`: a 0.3 agent's resubscribe)
// opens its answer after that long without its first event, and the caller
// gets keep-alives until it comes. Ending the frames (caller gone) ends the upstream stream. The
// frames are an object with next() and return(), pulled one at a time, not
// an async generator (core/event-stream.ts says why).
import { DONE } from '../core/event-stream.js';
import { asA2AError, type A2AError } from '../errors/a2a-error.js';
import { within } from '../util/within.js';
import type { HttpAnswer, SseFrame } from './request.js';

/** The stream's events as SSE frames, the first one already pulled; a failure is one last error frame. */
class SseFrames<T> implements AsyncIterableIterator<SseFrame> {
  private finished = false;

  constructor(
    private readonly events: AsyncIterator<T>,
    /** The first event, pulled before the answer began (or still pending: a quiet stream); framed by the first pull. */
    private first: IteratorResult<T> | Promise<IteratorResult<T>> | undefined,
    private readonly frame: (event: T) => SseFrame,
    private readonly errorFrame: (err: A2AError) => SseFrame,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<SseFrame>> {
    if (this.finished) return Promise.resolve(DONE);
    const first = this.first;
    if (first !== undefined) {
      this.first = undefined;
      if (first instanceof Promise) {
        return first.then(
          (r) => this.step(r),
          (e: unknown) => this.failed(e),
        );
      }
      return Promise.resolve(this.step(first));
    }
    return this.events.next().then(
      (r) => this.step(r),
      (e: unknown) => this.failed(e),
    );
  }

  private step(r: IteratorResult<T>): IteratorResult<SseFrame> {
    if (this.finished) return DONE;
    if (r.done) {
      this.finish();
      return DONE;
    }
    try {
      return { done: false, value: this.frame(r.value) };
    } catch (e) {
      return this.failed(e);
    }
  }

  /** The last frame: the failure as the caller's binding writes an error. */
  private failed(e: unknown): IteratorResult<SseFrame> {
    if (this.finished) return DONE;
    this.finish();
    return { done: false, value: this.errorFrame(asA2AError(e)) };
  }

  return(): Promise<IteratorResult<SseFrame>> {
    this.finish();
    return Promise.resolve(DONE);
  }

  /** Once: the upstream stream is ended (returned) with the frames. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.first = undefined;
    void this.events.return?.(undefined)?.catch(() => undefined);
  }
}

export type SseOpening = { ok: true; answer: HttpAnswer } | { ok: false; error: A2AError };

export async function openSse<T>(
  source: AsyncIterable<T>,
  frame: (event: T) => SseFrame,
  errorFrame: (err: A2AError) => SseFrame,
  keepAliveMs: number,
  quietMs?: number,
): Promise<SseOpening> {
  const events = source[Symbol.asyncIterator]();
  let first: IteratorResult<T> | Promise<IteratorResult<T>>;
  try {
    if (quietMs === undefined) first = await events.next();
    else {
      const pulled = await within(events.next(), quietMs);
      first = 'value' in pulled ? pulled.value : pulled.pending;
    }
  } catch (e) {
    return { ok: false, error: asA2AError(e) };
  }
  const frames = new SseFrames(events, first, frame, errorFrame);
  // a quiet stream's head goes out at once (else only with its first keep-alive, a period later)
  const flush = first instanceof Promise;
  return { ok: true, answer: { status: 200, headers: {}, sse: { frames, keepAliveMs, flush } } };
}
