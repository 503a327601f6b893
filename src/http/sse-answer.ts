// The streamed answer shared by the two HTTP bindings (spec §9.4.2, §11.7):
// the first event is awaited before anything is written, so an error before
// it is answered as an ordinary error in the caller's binding; after it,
// every event becomes one SSE frame and a failure becomes one final error
// frame. Ending the frames (caller gone) ends the upstream stream.
import { asA2AError, type A2AError } from '../errors/a2a-error.js';
import type { HttpAnswer, SseFrame } from './request.js';

export type SseOpening = { ok: true; answer: HttpAnswer } | { ok: false; error: A2AError };

export async function openSse<T>(
  source: AsyncIterable<T>,
  frame: (event: T) => SseFrame,
  errorFrame: (err: A2AError) => SseFrame,
  keepAliveMs: number,
): Promise<SseOpening> {
  const events = source[Symbol.asyncIterator]();
  let first: IteratorResult<T>;
  try {
    first = await events.next();
  } catch (e) {
    return { ok: false, error: asA2AError(e) };
  }
  async function* frames(): AsyncGenerator<SseFrame> {
    try {
      if (first.done) return;
      yield frame(first.value);
      for (let r = await events.next(); !r.done; r = await events.next()) yield frame(r.value);
    } catch (e) {
      yield errorFrame(asA2AError(e));
    } finally {
      await events.return?.(undefined);
    }
  }
  return { ok: true, answer: { status: 200, headers: {}, sse: { frames: frames(), keepAliveMs } } };
}
