// One endpoint's circuit breaker (issue 14; Envoy's circuit_breakers): calls
// in flight up to maxConnections, then up to maxPending calls waiting for a
// slot — each for at most what is left of its route's timeoutMs, then
// UPSTREAM_OVERLOADED (the call was not sent) — and beyond both
// UPSTREAM_OVERLOADED at once. A released slot is handed to the first waiter,
// so nobody arriving meanwhile takes it.
import { MAX_TIMER_MS, type CircuitBreakerConfig } from '../config/types.js';
import { RETRY_INFO_TYPE } from '../core/limits.js';
import { A2AError } from '../errors/a2a-error.js';
import type { AbortLike } from '../util/call-signal.js';

const RETRY_LATER = { '@type': RETRY_INFO_TYPE, retryDelay: '1s' };

export class CircuitBreaker {
  /** Calls in flight. */
  active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    /** The endpoint's name, for the refusals' messages. */
    private readonly name: string,
    /** Told each change of `active`. */
    private readonly changed: (active: number) => void,
  ) {}

  private late(cb: CircuitBreakerConfig, timeoutMs: number): A2AError {
    return A2AError.of(
      'UPSTREAM_OVERLOADED',
      `endpoint "${this.name}" had no free slot within the route's timeoutMs (${timeoutMs} ms; ` +
        `upstream.circuitBreaker: ${cb.maxConnections} calls in flight); the call was not sent; retry later`,
      { details: [RETRY_LATER] },
    );
  }

  /** A call would be admitted now or may wait for a slot (not refused at once). */
  canAdmit(cb: CircuitBreakerConfig): boolean {
    return this.active < cb.maxConnections || this.waiting.length < cb.maxPending;
  }

  /**
   * A connection slot now, or after waiting for one; else overloaded. A call waits at most `timeoutMs` less the time
   * since `since` (process.hrtime.bigint() when it arrived); without them, until a slot frees or the caller goes.
   */
  async admit(cb: CircuitBreakerConfig, signal: AbortLike, timeoutMs?: number, since?: bigint): Promise<() => void> {
    if (this.active >= cb.maxConnections) {
      if (this.waiting.length >= cb.maxPending) {
        throw A2AError.of(
          'UPSTREAM_OVERLOADED',
          `endpoint "${this.name}" has ${cb.maxConnections} calls in flight and ${cb.maxPending} waiting (upstream.circuitBreaker); the call was not sent; retry later`,
          { details: [RETRY_LATER] },
        );
      }
      if (signal.aborted) throw A2AError.of('CANCELLED', 'the caller went away before the endpoint had a slot');
      const leftMs =
        timeoutMs === undefined
          ? Infinity
          : timeoutMs - (since === undefined ? 0 : Number(process.hrtime.bigint() - since) / 1e6);
      if (leftMs <= 0) throw this.late(cb, timeoutMs!);
      await new Promise<void>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        const leave = (): void => {
          const at = this.waiting.indexOf(go);
          if (at >= 0) this.waiting.splice(at, 1);
          signal.removeEventListener('abort', gone);
          clearTimeout(timer);
        };
        const go = (): void => {
          signal.removeEventListener('abort', gone);
          clearTimeout(timer);
          resolve();
        };
        const gone = (): void => {
          leave();
          reject(A2AError.of('CANCELLED', 'the caller went away while the call waited for the endpoint'));
        };
        const late = (): void => {
          leave();
          reject(this.late(cb, timeoutMs!));
        };
        this.waiting.push(go);
        signal.addEventListener('abort', gone, { once: true });
        if (leftMs !== Infinity) timer = setTimeout(late, Math.min(Math.max(0, leftMs), MAX_TIMER_MS));
      });
    } else {
      this.active++;
      this.changed(this.active);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) return next(); // the slot passes on: active stays
      this.active--;
      this.changed(this.active);
    };
  }
}
