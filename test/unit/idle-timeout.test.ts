// A stream's timeouts (core/idle-timeout.ts): events pass as they come;
// an upstream silent for the idle time is aborted and the stream fails with
// UPSTREAM_TIMEOUT, also when its iterator ignores the abort; the time the
// caller holds an event is not counted, and the silence after it is; an early
// end stops the upstream and leaves no timer; the first event has its own
// limit (the route's timeoutMs), the idle one applies after it.
import { once } from 'node:events';
import t from 'tap';
import { withIdleTimeout } from '../../src/core/idle-timeout.js';
import { A2AError } from '../../src/errors/a2a-error.js';

const IDLE_MS = 100;

/** An upstream that sends `events`, then nothing: its next pull never settles (it ignores the abort). */
function upstream(events: number[]): AsyncIterable<number> & { returned: boolean } {
  const u = {
    returned: false,
    [Symbol.asyncIterator]() {
      let i = 0;
      return {
        next: (): Promise<IteratorResult<number>> =>
          i < events.length ? Promise.resolve({ done: false, value: events[i++]! }) : new Promise(() => undefined),
        return: (): Promise<IteratorResult<number>> => {
          u.returned = true;
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
  return u;
}

t.test('events pass as they come; a silent upstream is aborted and the stream fails', async (tt) => {
  const abort = new AbortController();
  const seen: number[] = [];
  const err = await (async () => {
    for await (const e of withIdleTimeout(upstream([1, 2, 3]), IDLE_MS, abort)) seen.push(e);
  })().catch((e: unknown) => e);
  tt.same(seen, [1, 2, 3], 'every event, in order');
  tt.ok(err instanceof A2AError && err.errorName === 'UPSTREAM_TIMEOUT', 'then UPSTREAM_TIMEOUT');
  tt.equal(abort.signal.aborted, true, 'and the upstream call is aborted');
});

t.test('the time the caller holds an event is not idle time', async (tt) => {
  const abort = new AbortController();
  const seen: number[] = [];
  const finite: AsyncIterable<number> = (async function* () {
    yield* [1, 2];
  })();
  for await (const e of withIdleTimeout(finite, IDLE_MS, abort)) {
    seen.push(e);
    await hold(3 * IDLE_MS); // a slow reader: the writes wait for drain
  }
  tt.same(seen, [1, 2], 'both events, and a clean end');
  tt.equal(abort.signal.aborted, false, 'nothing aborted');
});

/** Resolves once `ms` have passed (what the caller takes with an event, or a window in which nothing may fire). */
async function hold(ms: number): Promise<void> {
  const held = new AbortController();
  const timer = setTimeout(() => held.abort(), ms);
  await once(held.signal, 'abort');
  clearTimeout(timer);
}

t.test('after an event held past the idle time, a silent upstream still times out', async (tt) => {
  const abort = new AbortController();
  const seen: number[] = [];
  const err = await (async () => {
    for await (const e of withIdleTimeout(upstream([1]), IDLE_MS, abort)) {
      seen.push(e);
      await hold(3 * IDLE_MS); // the timer fires while the caller holds the event; the next pull must re-arm it
    }
  })().catch((e: unknown) => e);
  tt.same(seen, [1], 'the event');
  tt.ok(err instanceof A2AError && err.errorName === 'UPSTREAM_TIMEOUT', 'then UPSTREAM_TIMEOUT');
  tt.equal(abort.signal.aborted, true, 'and the upstream call is aborted');
});

t.test('a caller that stops early ends the upstream iteration, and no timer is left', async (tt) => {
  const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const before = timers();
  const abort = new AbortController();
  const u = upstream([1, 2, 3]);
  for await (const e of withIdleTimeout(u, IDLE_MS, abort)) if (e === 1) break;
  tt.equal(u.returned, true, "the upstream's iterator is returned");
  // the timer is the only way a timeout fires: none left, none can fire later (no window to wait out)
  tt.equal(timers(), before, 'its timer is gone (a live one would hold a closing process up to the idle time)');
  tt.equal(abort.signal.aborted, false, 'the upstream call is returned, not aborted');
});

/** An upstream whose events come each after its own delay (ms), then it ends. */
function delayed(delays: number[]): AsyncIterable<number> {
  return {
    [Symbol.asyncIterator]() {
      let i = 0;
      return {
        next: async (): Promise<IteratorResult<number>> => {
          if (i >= delays.length) return { done: true, value: undefined };
          await hold(delays[i]!);
          return { done: false, value: i++ };
        },
      };
    },
  };
}

t.test('the first event has its own limit (the route timeout): none within it fails the stream', async (tt) => {
  const abort = new AbortController();
  const err = await (async () => {
    for await (const _ of withIdleTimeout(upstream([]), 10 * IDLE_MS, abort, { leftMs: IDLE_MS, timeoutMs: 250 }))
      tt.fail('no event');
  })().catch((e: unknown) => e);
  tt.ok(err instanceof A2AError && err.errorName === 'UPSTREAM_TIMEOUT', 'UPSTREAM_TIMEOUT');
  tt.match((err as Error).message, 'upstream did not answer within 250 ms', "named by the route's timeout");
  tt.equal(abort.signal.aborted, true, 'and the upstream call is aborted');
});

t.test('after the first event the idle limit applies, not the first-event one', async (tt) => {
  const seen: number[] = [];
  // the first event within its limit (IDLE_MS), the second after twice that but within the idle limit
  for await (const e of withIdleTimeout(delayed([0, 2 * IDLE_MS]), 5 * IDLE_MS, undefined, {
    leftMs: IDLE_MS,
    timeoutMs: IDLE_MS,
  }))
    seen.push(e);
  tt.same(seen, [0, 1], 'both events and a clean end');
});

t.test('after a final event: ended cleanly once its grace is over, however fast the agent goes on', async (tt) => {
  let returned!: () => void;
  const sourceReturned = new Promise<void>((r) => (returned = r));
  async function* flooding(): AsyncGenerator<string> {
    try {
      yield 'final';
      for (;;) {
        await new Promise((r) => setImmediate(r));
        yield 'more';
      }
    } finally {
      returned();
    }
  }
  const abort = new AbortController();
  const final = { is: (e: string) => e === 'final', graceMs: 30 };
  const seen: string[] = [];
  for await (const e of withIdleTimeout(flooding(), 60_000, abort, undefined, final)) seen.push(e);
  tt.equal(seen[0], 'final');
  tt.ok(seen.length > 1, 'what came within the grace passed');
  tt.ok(abort.signal.aborted, "then the agent's call was aborted, with no error");
  await sourceReturned; // (a generator returned while it awaits runs its finally once that await is over)
  tt.pass('and its stream returned');
});

t.test('after a final event: an agent that ends its stream within the grace ends it itself', async (tt) => {
  async function* polite(): AsyncGenerator<string> {
    yield 'final';
    yield 'snapshot';
  }
  const abort = new AbortController();
  const seen: string[] = [];
  const final = { is: (e: string) => e === 'final', graceMs: 60_000 };
  for await (const e of withIdleTimeout(polite(), 60_000, abort, undefined, final)) seen.push(e);
  tt.same(seen, ['final', 'snapshot']);
  tt.notOk(abort.signal.aborted, 'nothing aborted');
});
