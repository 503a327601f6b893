// A stage that watches a stream of events (spec §3.1.2 streaming, §3.3:
// the core's streams are AsyncIterable with an AbortSignal): it checks or
// decodes each event, counts them, maps a failure, releases what it holds
// at the end. mapEvents() is that stage as one small object with next()
// and return() around its source, instead of an async generator: a
// suspended generator holds its frame, its request queue and a promise per
// layer (about 1 KiB for each open stream, of the ~50 KiB budget), and each
// event passes a generator's resume and await machinery once per layer.
// Semantics are a generator's with `for await` over the source, pulled one
// at a time as `for await` pulls, except that return() does not wait for a
// pending next(): the source is returned at once (its own abort signal stops
// it) and a late event is dropped.

export interface EventHooks<T, U> {
  /**
   * The source, opened on the first next() (as a generator's body runs then): nothing is started for a stream never
   * read. It may come later (a promise): a stream left meanwhile returns it when it comes.
   */
  open: () => AsyncIterable<T> | Promise<AsyncIterable<T>>;
  /** Each event as passed on; a throw fails the stream (and returns the source). */
  each?: (event: T) => U;
  /** The source ended; a throw fails the stream instead. */
  end?: () => void;
  /** What a failure (of the source, `each` or `end`) is thrown on as. */
  error?: (e: unknown) => unknown;
  /** Once, last, however the stream finished: `ended` when the source ended and `end` did not throw. */
  close?: (ended: boolean) => void;
}

/** The result of a pull once a stream is over (one frozen object for every stream). */
export const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

class EventStream<T, U> implements AsyncIterableIterator<U> {
  private source: AsyncIterator<T> | undefined;
  private opening: Promise<AsyncIterator<T> | undefined> | undefined;
  private finished = false;

  constructor(private readonly hooks: EventHooks<T, U>) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<U>> {
    if (this.finished) return Promise.resolve(DONE);
    if (this.source !== undefined) return this.pull(this.source);
    if (this.opening === undefined) {
      let opened: AsyncIterable<T> | Promise<AsyncIterable<T>>;
      try {
        opened = this.hooks.open();
      } catch (e) {
        return Promise.reject(this.fail(e, false));
      }
      if (!(opened instanceof Promise)) return this.pull((this.source = opened[Symbol.asyncIterator]()));
      this.opening = opened.then(
        (s) => (this.source = s[Symbol.asyncIterator]()),
        (e: unknown) => {
          if (this.finished) return undefined; // left while it opened: nobody reads this
          throw this.fail(e, false);
        },
      );
    }
    return this.opening.then((source) => {
      if (source !== undefined && !this.finished) return this.pull(source);
      this.returnSource(); // left while it opened
      return DONE;
    });
  }

  private pull(source: AsyncIterator<T>): Promise<IteratorResult<U>> {
    return source.next().then(
      (r) => this.step(r),
      (e: unknown) => {
        if (this.finished) return DONE; // left while the pull waited: nobody reads this
        throw this.fail(e, false);
      },
    );
  }

  private step(r: IteratorResult<T>): IteratorResult<U> {
    if (this.finished) return DONE; // left while the pull waited: the late event is dropped
    const { each, end } = this.hooks;
    try {
      if (!r.done) return { done: false, value: each ? each(r.value) : (r.value as unknown as U) };
      end?.();
    } catch (e) {
      throw this.fail(e, !r.done);
    }
    this.close(true);
    return DONE;
  }

  /** The stream failed with `e`: the source is returned if it is still open, then `e` as mapped. */
  private fail(e: unknown, sourceOpen: boolean): unknown {
    if (sourceOpen) this.returnSource();
    try {
      return this.hooks.error ? this.hooks.error(e) : e;
    } finally {
      this.close(false);
    }
  }

  return(): Promise<IteratorResult<U>> {
    if (!this.finished) {
      this.returnSource();
      this.close(false);
    }
    return Promise.resolve(DONE);
  }

  private returnSource(): void {
    void this.source?.return?.()?.catch(() => undefined);
  }

  private close(ended: boolean): void {
    this.finished = true;
    this.hooks.close?.(ended);
  }
}

/** A source of one event (an answer that came whole where a stream was asked for). */
export async function* oneEvent<T>(event: T): AsyncGenerator<T> {
  yield event;
}

/** The source's events through `hooks`, as a lazy AsyncIterableIterator. */
export function mapEvents<T, U = T>(hooks: EventHooks<T, U>): AsyncIterableIterator<U> {
  return new EventStream(hooks);
}
