// A stream's idle timeout (issue: no overall timeout cuts a stream; no event
// for N ms does): pulls the upstream one event at a time and, when the next
// event takes longer than `idleMs`, aborts the upstream call and fails with
// UPSTREAM_TIMEOUT. Pull-based, so it adds no buffering; the time the caller
// takes with an event is not counted. One timer per stream, re-armed at each
// pull (a timer, a promise and a race per event were ~1 µs of the 8–13 µs an
// SSE event costs the gateway).
import { A2AError } from '../errors/a2a-error.js';

export async function* withIdleTimeout<T>(
  source: AsyncIterable<T>,
  idleMs: number,
  abort: AbortController,
): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  let finished = false;
  /** Fails the pull waiting for the upstream's next event (none while the caller holds the last one). */
  let waiting: ((e: Error) => void) | undefined;
  const timer = setTimeout(() => {
    if (waiting === undefined) return; // the caller held the last event this long: the next pull re-arms
    abort.abort();
    waiting(A2AError.of('UPSTREAM_TIMEOUT', `the upstream sent no event for ${idleMs} ms`));
  }, idleMs);
  try {
    for (;;) {
      timer.refresh();
      const next = it.next();
      // the upstream's own answer may settle after a timeout failed the pull: nobody waits for it then
      const r = await new Promise<IteratorResult<T>>((resolve, reject) => {
        waiting = reject;
        next.then(resolve, reject);
      });
      waiting = undefined;
      if (r.done) {
        finished = true;
        return;
      }
      yield r.value;
    }
  } finally {
    waiting = undefined;
    clearTimeout(timer);
    if (!finished) void it.return?.(undefined)?.catch(() => undefined);
  }
}
