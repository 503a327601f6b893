// A stream's idle timeout (issue: no overall timeout cuts a stream; no event
// for N ms does): pulls the upstream one event at a time and, when the next
// event takes longer than `idleMs`, aborts the upstream call and fails with
// UPSTREAM_TIMEOUT. Pull-based, so it adds no buffering.
import { A2AError } from '../errors/a2a-error.js';

export async function* withIdleTimeout<T>(
  source: AsyncIterable<T>,
  idleMs: number,
  abort: AbortController,
): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          abort.abort();
          reject(A2AError.of('UPSTREAM_TIMEOUT', `the upstream sent no event for ${idleMs} ms`));
        }, idleMs);
      });
      const next = it.next();
      next.catch(() => undefined); // settled after an idle timeout: nobody waits for it then
      let r: IteratorResult<T>;
      try {
        r = await Promise.race([next, idle]);
      } finally {
        clearTimeout(timer);
      }
      if (r.done) {
        finished = true;
        return;
      }
      yield r.value;
    }
  } finally {
    if (!finished) void it.return?.(undefined)?.catch(() => undefined);
  }
}
