// The streamed answer of the HTTP bindings (src/http/sse-answer.ts, spec
// §9.4.2, §11.7), against hand-written sources: a failure before the first
// event is an ordinary error; after it each event is one frame and a failure
// one last error frame; an empty stream has no frame; frames left early (the
// caller gone) return the upstream stream, once.
import t from 'tap';
import { openSse } from '../../src/http/sse-answer.js';
import { A2AError } from '../../src/errors/a2a-error.js';
import type { SseFrame } from '../../src/http/request.js';

/** Sends `events`, then fails with `fail` or ends; counts return() calls. */
function source(events: string[], fail?: Error): AsyncIterable<string> & { returned: number } {
  const s = {
    returned: 0,
    [Symbol.asyncIterator]() {
      let i = 0;
      return {
        next: (): Promise<IteratorResult<string>> => {
          if (i < events.length) return Promise.resolve({ done: false, value: events[i++]! });
          return fail ? Promise.reject(fail) : Promise.resolve({ done: true, value: undefined });
        },
        return: (): Promise<IteratorResult<string>> => {
          s.returned++;
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
  return s;
}

const frame = (e: string): SseFrame => ({ data: e });
const errorFrame = (err: A2AError): SseFrame => ({ event: 'error', data: err.errorName });

async function frames(src: AsyncIterable<string>): Promise<SseFrame[]> {
  const opened = await openSse(src, frame, errorFrame, 0);
  if (!opened.ok) throw opened.error;
  const out: SseFrame[] = [];
  for await (const f of opened.answer.sse!.frames) out.push(f);
  return out;
}

t.test('each event one frame; a failure after the first is one last error frame', async (tt) => {
  tt.same(await frames(source(['a', 'b'])), [{ data: 'a' }, { data: 'b' }]);
  const failing = source(['a'], A2AError.of('UPSTREAM_UNAVAILABLE', 'agent gone'));
  tt.same(await frames(failing), [{ data: 'a' }, { event: 'error', data: 'UPSTREAM_UNAVAILABLE' }]);
  tt.same(await frames(source([])), [], 'an empty stream has no frame');
});

t.test('a failure before the first event is an ordinary error', async (tt) => {
  const opened = await openSse(source([], A2AError.of('TASK_NOT_FOUND', 'no task')), frame, errorFrame, 0);
  tt.equal(opened.ok, false);
  if (!opened.ok) tt.equal(opened.error.errorName, 'TASK_NOT_FOUND');
});

t.test('frames left early return the upstream stream, once', async (tt) => {
  const src = source(['a', 'b', 'c']);
  const opened = await openSse(src, frame, errorFrame, 0);
  if (!opened.ok) throw opened.error;
  const it = opened.answer.sse!.frames[Symbol.asyncIterator]();
  tt.same(await it.next(), { done: false, value: { data: 'a' } });
  await it.return!(undefined);
  await it.return!(undefined);
  tt.equal(src.returned, 1, 'returned once');
  tt.same(await it.next(), { done: true, value: undefined }, 'no frame after');
});
