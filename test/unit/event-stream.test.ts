// A stage around a stream (core/event-stream.ts), against sources written by
// hand: the source is opened by the first pull, not before; events pass
// through `each` in order and an ending source runs `end`, then `close(true)`;
// a throw of `each` or `end`, or a failing source, is thrown as `error` maps
// it, the source is returned and `close(false)` runs, once; return() before
// any pull closes without opening; return() while a pull waits on a silent
// source returns the source at once (a generator's return() would wait for
// the source's next event), and the waiting pull ends done, without the
// event that comes later; a source that opens later (a promise) is pulled
// once it comes, returned when it comes after the stream was left, and its
// failure is mapped.
import t from 'tap';
import { mapEvents, type EventHooks } from '../../src/core/event-stream.js';

interface Source extends AsyncIterable<number> {
  opened: number;
  returned: number;
  /** Settles the pull past the last event (a late event, or the end): the one waiting, or the next one. */
  release(r: IteratorResult<number>): void;
}

/** Sends `events`, then waits (release() settles that pull); `fail` instead rejects the pull after the events. */
function source(events: number[], fail?: Error): Source {
  let late: ((r: IteratorResult<number>) => void) | undefined;
  let ready: IteratorResult<number> | undefined;
  const s: Source = {
    opened: 0,
    returned: 0,
    release: (r) => (late ? late(r) : (ready = r)),
    [Symbol.asyncIterator]() {
      s.opened++;
      let i = 0;
      return {
        next: (): Promise<IteratorResult<number>> => {
          if (i < events.length) return Promise.resolve({ done: false, value: events[i++]! });
          if (fail) return Promise.reject(fail);
          if (ready) return Promise.resolve(ready);
          return new Promise((r) => (late = r));
        },
        return: (): Promise<IteratorResult<number>> => {
          s.returned++;
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
  return s;
}

/** The hooks, recording what ran. */
function recorded(src: Source, more: Partial<EventHooks<number, number>> = {}) {
  const log: string[] = [];
  const hooks: EventHooks<number, number> = {
    open: () => src,
    each: (e) => (log.push(`each ${e}`), e * 10),
    end: () => void log.push('end'),
    error: (e) => (log.push(`error ${(e as Error).message}`), new Error(`mapped ${(e as Error).message}`)),
    close: (ended) => void log.push(`close ${ended}`),
    ...more,
  };
  return { log, stream: mapEvents(hooks) };
}

async function drain(it: AsyncIterable<number>): Promise<{ seen: number[]; error?: Error }> {
  const seen: number[] = [];
  try {
    for await (const e of it) seen.push(e);
    return { seen };
  } catch (e) {
    return { seen, error: e as Error };
  }
}

t.test('opened by the first pull; events through each; an end runs end, then close(true)', async (tt) => {
  const src = source([1, 2]);
  const { log, stream } = recorded(src);
  tt.equal(src.opened, 0, 'nothing opened before a pull');
  const first = stream.next();
  src.release({ done: true, value: undefined });
  tt.same(await first, { done: false, value: 10 });
  const rest = await drain(stream);
  tt.same(rest.seen, [20]);
  tt.equal(rest.error, undefined);
  tt.same(log, ['each 1', 'each 2', 'end', 'close true']);
  tt.equal(src.returned, 0, 'a source that ended is not returned');
  tt.same(await stream.next(), { done: true, value: undefined }, 'done stays done');
});

t.test('a failing source: error maps it, close(false) once', async (tt) => {
  const src = source([1], new Error('agent gone'));
  const { log, stream } = recorded(src);
  const r = await drain(stream);
  tt.same(r.seen, [10]);
  tt.equal(r.error?.message, 'mapped agent gone');
  tt.same(log, ['each 1', 'error agent gone', 'close false']);
});

t.test('a throw of each or end fails the stream and returns the source', async (tt) => {
  const bad = source([1, 2, 3]);
  const each = recorded(bad, {
    each: (e) => {
      if (e === 2) throw new Error('bad event');
      return e;
    },
  });
  const r = await drain(each.stream);
  tt.same(r.seen, [1]);
  tt.equal(r.error?.message, 'mapped bad event');
  tt.same(each.log, ['error bad event', 'close false']);
  tt.equal(bad.returned, 1, 'the source is returned');

  const empty = source([]);
  const end = recorded(empty, {
    end: () => {
      throw new Error('no event');
    },
  });
  const pending = drain(end.stream);
  empty.release({ done: true, value: undefined });
  const e = await pending;
  tt.equal(e.error?.message, 'mapped no event');
  tt.same(end.log, ['error no event', 'close false']);
});

t.test('return() before any pull closes without opening the source', async (tt) => {
  const src = source([1]);
  const { log, stream } = recorded(src);
  tt.same(await stream.return!(), { done: true, value: undefined });
  tt.equal(src.opened, 0, 'never opened');
  tt.same(log, ['close false']);
  tt.same(await stream.next(), { done: true, value: undefined });
});

t.test('return() while a pull waits: the source is returned at once, the late event dropped', async (tt) => {
  const src = source([1]);
  const { log, stream } = recorded(src);
  tt.same(await stream.next(), { done: false, value: 10 });
  const waiting = stream.next(); // the source has nothing more yet
  tt.same(await stream.return!(), { done: true, value: undefined });
  tt.equal(src.returned, 1, 'the source is returned at once');
  src.release({ done: false, value: 2 }); // the event that was on its way
  tt.same(await waiting, { done: true, value: undefined }, 'the waiting pull ends done, without the late event');
  tt.same(log, ['each 1', 'close false'], 'each never saw the late event; close ran once');
});

t.test('a source that opens later: pulled once it comes; left meanwhile, it is returned when it comes', async (tt) => {
  const src = source([1, 2]);
  src.release({ done: true, value: undefined });
  let opened!: (s: Source) => void;
  const later = recorded(src, { open: () => new Promise<AsyncIterable<number>>((r) => (opened = r)) });
  const first = later.stream.next();
  opened(src);
  tt.same(await first, { done: false, value: 10 });
  tt.same((await drain(later.stream)).seen, [20]);
  tt.same(later.log, ['each 1', 'each 2', 'end', 'close true']);

  const left = source([1]);
  let comes!: (s: Source) => void;
  const gone = recorded(left, { open: () => new Promise<AsyncIterable<number>>((r) => (comes = r)) });
  const waiting = gone.stream.next();
  await gone.stream.return!();
  comes(left);
  tt.same(await waiting, { done: true, value: undefined }, 'the pull made while it opened ends done');
  tt.equal(left.opened, 1);
  tt.equal(left.returned, 1, 'the source that came late is returned');
  tt.same(gone.log, ['close false']);

  const failing = recorded(source([]), { open: () => Promise.reject(new Error('refused')) });
  const r = await drain(failing.stream);
  tt.equal(r.error?.message, 'mapped refused');
  tt.same(failing.log, ['error refused', 'close false']);
});

t.test('an error hook that throws still closes the stream', async (tt) => {
  const failing = recorded(source([], new Error('agent gone')), {
    error: () => {
      throw new Error('mapping failed');
    },
  });
  const r = await drain(failing.stream);
  tt.equal(r.error?.message, 'mapping failed');
  tt.same(failing.log, ['close false'], 'close ran (what it releases is released)');
});
