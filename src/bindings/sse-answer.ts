// The streamed answer shared by the two HTTP bindings (spec §9.4.2, §11.7):
// the first event is awaited before anything is written, so an error before
// it is answered as an ordinary error in the caller's binding; after it,
// every event becomes one SSE frame and a failure becomes one final error
// frame. Ending the frames (caller gone) ends the upstream stream.
import { asA2AError } from '../core/dispatcher.js';
import type { A2AError } from '../errors/a2a-error.js';
import type { ProtoObject } from '../proto/protojson.js';
import type { HttpAnswer, SseFrame } from './http-request.js';

export type SseOpening = { ok: true; answer: HttpAnswer } | { ok: false; error: A2AError };

export async function openSse(
  events: AsyncGenerator<ProtoObject>,
  frame: (event: ProtoObject) => SseFrame,
  errorFrame: (err: A2AError) => SseFrame,
  keepAliveMs: number,
): Promise<SseOpening> {
  let first: IteratorResult<ProtoObject>;
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
      await events.return(undefined);
    }
  }
  return { ok: true, answer: { status: 200, headers: {}, sse: { frames: frames(), keepAliveMs } } };
}
