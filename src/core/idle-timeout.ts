// A stream's timeouts (no overall timeout cuts a stream; no event for N ms
// does): pulls the upstream one event at a time and, when the first event
// takes longer than the route's `timeoutMs` (from the stream's start,
// connecting included) or a later one longer than `streamIdleTimeoutMs`,
// aborts the upstream call and fails with UPSTREAM_TIMEOUT. Translated and
// pass-through streams alike (pipeline/stages/send.ts). After an event that
// ends the stream by the spec (`final`: a task in a terminal state, §3.1.2,
// §3.1.6), an agent that does not end it gets `finalGraceMs` to send what
// may follow (a last Task snapshot, §11.7) and is then ended cleanly, its
// call aborted, instead of failing after streamIdleTimeoutMs. Pull-based, so it
// adds no buffering; the time the caller takes with an event is not counted.
// One timer per stream, re-armed at each pull (a timer, a promise and a race
// per event were ~1 µs of the 8–13 µs an SSE event costs the gateway); an
// object with next() and return(), not an async generator (event-stream.ts
// says why).
import { A2AError } from '../errors/a2a-error.js';
import { DONE } from './event-stream.js';

/** A pull ended by the grace after a final event (not by the source's own end). */
const GRACE_OVER: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

class IdleTimeoutStream<T> implements AsyncIterableIterator<T> {
  private it: AsyncIterator<T> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The running timer's limit (ms). */
  private timerMs = 0;
  private finished = false;
  /** Fails the pull waiting for the upstream's next event (none while the caller holds the last one). */
  private waiting: ((e: Error) => void) | undefined;
  /** Settles that pull (with GRACE_OVER when the grace after a final event is over). */
  private settle: ((r: IteratorResult<T>) => void) | undefined;
  /** When the grace after an event that ends the stream by the spec is over (Date.now() ms; 0: none yet). */
  private graceEnds = 0;
  /** No event has come yet: the pull waits for the first one (bounded by `firstEvent`). */
  private first = true;

  constructor(
    private readonly source: AsyncIterable<T>,
    private readonly idleMs: number,
    private readonly abort: AbortController | undefined,
    private readonly firstEvent: FirstEvent | undefined,
    private readonly final: FinalEvent<T> | undefined,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  private readonly fire = (): void => {
    if (this.waiting === undefined) return; // the caller held the last event this long: the next pull re-arms
    this.abort?.abort();
    if (this.graceEnds > 0) return this.settle!(GRACE_OVER);
    this.waiting(
      this.first && this.firstEvent !== undefined
        ? A2AError.of('UPSTREAM_TIMEOUT', `upstream did not answer within ${this.firstEvent.timeoutMs} ms`)
        : A2AError.of('UPSTREAM_TIMEOUT', `the upstream sent no event for ${this.idleMs} ms`),
    );
  };

  /** One pull at a time (as `for await` pulls). */
  next(): Promise<IteratorResult<T>> {
    if (this.finished) return Promise.resolve(DONE);
    if (this.graceEnds > 0 && Date.now() >= this.graceEnds) {
      // the grace is over even for an agent that sends without pause: ended as the timer would end it
      this.abort?.abort();
      this.finish(true);
      return Promise.resolve(DONE);
    }
    this.it ??= this.source[Symbol.asyncIterator]();
    // the first event's limit, then the idle one (one timer, re-armed per pull while its limit stays the same)
    // after a final event, what is left of its grace (events that follow do not extend it)
    const limit =
      this.graceEnds > 0
        ? Math.max(1, this.graceEnds - Date.now())
        : this.first && this.firstEvent !== undefined
          ? this.firstEvent.leftMs
          : this.idleMs;
    if (this.timer && this.timerMs === limit) this.timer.refresh();
    else {
      clearTimeout(this.timer);
      this.timer = setTimeout(this.fire, limit);
      this.timerMs = limit;
    }
    const next = this.it.next();
    // the upstream's own answer may settle after a timeout failed the pull: nobody waits for it then
    return new Promise<IteratorResult<T>>((resolve, reject) => {
      this.waiting = reject;
      this.settle = resolve;
      next.then(resolve, reject);
    }).then(
      (r) => {
        this.waiting = undefined;
        this.settle = undefined;
        this.first = false;
        if (r.done)
          this.finish(r === GRACE_OVER); // the agent's call returned (aborted) only when it did not end
        else if (this.graceEnds === 0 && this.final?.is(r.value)) this.graceEnds = Date.now() + this.final.graceMs;
        return this.finished ? DONE : r;
      },
      (e: unknown) => {
        const open = !this.finished;
        this.finish(open);
        if (open) throw e;
        return DONE;
      },
    );
  }

  return(): Promise<IteratorResult<T>> {
    this.finish(!this.finished);
    return Promise.resolve(DONE);
  }

  /** Ends the stream once: no timer left, and the source returned unless it ended (or failed) itself. */
  private finish(returnSource: boolean): void {
    if (this.finished) return;
    this.finished = true;
    this.waiting = undefined;
    clearTimeout(this.timer);
    if (returnSource) void this.it?.return?.(undefined)?.catch(() => undefined);
  }
}

/** Which events end the stream by the spec, and how long an agent may go on after one before it is ended. */
export interface FinalEvent<T> {
  is: (event: T) => boolean;
  graceMs: number;
}

/** The first event's limit: what is left of the route's timeoutMs (which a failure names) when the stream starts. */
export interface FirstEvent {
  leftMs: number;
  timeoutMs: number;
}

/**
 * `source` with its timeouts: no event for `idleMs` fails it, and the first within `firstEvent` when given; after a
 * `final` event, none for its graceMs ends it. `abort` (when given) is aborted first; the source is returned either way.
 */
export function withIdleTimeout<T>(
  source: AsyncIterable<T>,
  idleMs: number,
  abort?: AbortController,
  firstEvent?: FirstEvent,
  final?: FinalEvent<T>,
): AsyncIterable<T> {
  return new IdleTimeoutStream(source, idleMs, abort, firstEvent, final);
}
