// The token bucket behind a route's `rateLimit`, as GCRA (the generic cell
// rate algorithm, as redis-cell runs it), which admits exactly the calls a
// token bucket does with one number per bucket: its "theoretical arrival
// time" (TAT), the time at which it would be full again. A call at `now` is
// admitted when the bucket, refilled since, holds a token: TAT + interval -
// burst × interval <= now; then TAT moves on by one interval. So `burst`
// calls pass at once from a full bucket (a new or long idle one), then one
// every 1/requestsPerSecond s; a refused call costs nothing and is told the
// time until the next token. Times are whole microseconds, so the arithmetic
// is exact. This file holds the rule and the in-process buckets;
// src/state/rate-buckets.ts runs the same rule in Redis.

/** A route's rate in whole microseconds: one token every `intervalUs`, at most `burst` held. */
export interface Rate {
  intervalUs: number;
  burst: number;
}

/** A route's `rateLimit` as configured. */
export interface RateLimit {
  requestsPerSecond: number;
  burst: number;
}

const rates = new WeakMap<RateLimit, Rate>();

/**
 * The interval rounded to a whole microsecond, at least 1 (the schema allows 1,000,000 calls a second at most);
 * once per route configuration (a rate-limited call asks for it every time).
 */
export function rateOf(limit: RateLimit): Rate {
  let rate = rates.get(limit);
  if (!rate) {
    rate = { intervalUs: Math.max(1, Math.round(1e6 / limit.requestsPerSecond)), burst: limit.burst };
    rates.set(limit, rate);
  }
  return rate;
}

export type Taken = { admitted: true } | { admitted: false; retryMs: number };
/** An admitted call's answer: one object for all of them. */
export const ADMITTED: Taken = Object.freeze({ admitted: true });

/** Where buckets live: this process, or Redis for every replica. */
export interface TokenBuckets {
  /** Takes a token from bucket `key`, or says how long until there is one; throws when the store fails. */
  take(key: string, limit: RateLimit): Promise<Taken>;
}

/**
 * One step of GCRA for a call at `now`: the bucket's TAT from then on, and
 * the microseconds to wait for a token (0: admitted, and the TAT moved on). A
 * TAT past now + burst × interval (left by a slower rate before a reload)
 * becomes an empty bucket of this rate, which refills at this rate.
 */
export function gcra(tat: number | undefined, now: number, rate: Rate): { tat: number; waitUs: number } {
  const tolerance = rate.intervalUs * rate.burst;
  const from = Math.min(Math.max(tat ?? now, now), now + tolerance);
  const next = from + rate.intervalUs;
  const wait = next - tolerance - now;
  return wait > 0 ? { tat: from, waitUs: wait } : { tat: next, waitUs: 0 };
}

/** A full bucket is no bucket: entries past their TAT are dropped this often (µs). */
const SWEEP_US = 10_000_000;

/** The buckets of this process. `clock` is in milliseconds, monotonic. */
export class MemoryBuckets implements TokenBuckets {
  private readonly tats = new Map<string, number>();
  private swept = 0;

  constructor(private readonly clock: () => number = () => performance.now()) {}

  take(key: string, limit: RateLimit): Promise<Taken> {
    const now = Math.round(this.clock() * 1000);
    if (now - this.swept >= SWEEP_US) this.sweep(now);
    const tat = this.tats.get(key);
    const step = gcra(tat, now, rateOf(limit));
    // a refusal changes the bucket only when a reload's faster rate emptied it
    if (step.tat !== tat) this.tats.set(key, step.tat);
    return Promise.resolve(step.waitUs > 0 ? { admitted: false, retryMs: step.waitUs / 1000 } : ADMITTED);
  }

  /** Buckets held (full ones may linger until the next sweep). */
  get size(): number {
    return this.tats.size;
  }

  private sweep(now: number): void {
    this.swept = now;
    for (const [key, tat] of this.tats) if (tat <= now) this.tats.delete(key);
  }
}
