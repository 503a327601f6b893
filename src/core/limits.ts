// Rate and concurrency limits per route (and per caller identity), the same
// for every inbound binding: a request over the rate is RESOURCE_EXHAUSTED with
// a google.rpc.RetryInfo (HTTP callers also get `Retry-After`), a stream over
// the route's cap likewise. rate-limiter-flexible keeps the counters: in
// this process, or with `state.redis` in Redis, so the limit holds across
// every gateway replica (issue 14). Redis away: calls are admitted (fail
// open, the default) or refused (`rateLimitFailure: closed`), and the outage
// is logged once; the shared counters are used again when Redis is back.
// The library is loaded with the first rate-limited call: a gateway without
// rate limits never loads it.
import type { Logger } from 'pino';
import type * as RateLimiterFlexible from 'rate-limiter-flexible';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { SharedState } from '../state/redis.js';
import type { RouteConfig } from '../config/types.js';
import { A2AError } from '../errors/a2a-error.js';

export const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo';

function exhausted(message: string, retryMs: number): A2AError {
  return A2AError.of('RATE_LIMITED', message, {
    details: [{ '@type': RETRY_INFO_TYPE, retryDelay: `${(Math.max(retryMs, 1) / 1000).toFixed(3)}s` }],
  });
}

/** Seconds to put in `Retry-After` for an error that carries a RetryInfo, if it does. */
export function retryAfterSeconds(err: A2AError): number | undefined {
  const info = err.details.find((d) => d['@type'] === RETRY_INFO_TYPE);
  const m = typeof info?.retryDelay === 'string' ? /^([\d.]+)s$/.exec(info.retryDelay) : null;
  return m ? Math.max(1, Math.ceil(Number(m[1]))) : undefined;
}

/** rate-limiter-flexible once the first rate-limited call has loaded it. */
let limiterLibrary: typeof RateLimiterFlexible | undefined;

export class Limits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly streams = new Map<string, number>();
  private storeDown = false;

  constructor(
    private readonly shared?: SharedState,
    private readonly log?: Logger,
  ) {}

  private limiter(route: RouteConfig, lib: typeof RateLimiterFlexible): RateLimiterAbstract | undefined {
    const rl = route.rateLimit;
    if (!rl) return undefined;
    const key = `${route.name} ${rl.requestsPerSecond} ${rl.burst}`;
    let l = this.limiters.get(key);
    if (!l) {
      // `burst` points refilled over burst/requestsPerSecond seconds ≈ the configured rate with bursts.
      const opts = { points: rl.burst, duration: Math.max(1, Math.round(rl.burst / rl.requestsPerSecond)) };
      l = this.shared
        ? new lib.RateLimiterRedis({
            ...opts,
            storeClient: this.shared.client,
            keyPrefix: this.shared.key('rate'),
            rejectIfRedisNotReady: true,
          })
        : new lib.RateLimiterMemory(opts);
      this.limiters.set(key, l);
    }
    return l;
  }

  /** Admits one call from `caller` on `route`, or throws RATE_LIMITED. */
  async admit(route: RouteConfig, caller: string): Promise<void> {
    if (!route.rateLimit) return;
    // awaited once per process: later calls find the library loaded
    const lib = (limiterLibrary ??= await import('rate-limiter-flexible'));
    const l = this.limiter(route, lib);
    if (!l) return;
    const key = route.rateLimit?.perCaller ? `${route.name}|${caller}` : route.name;
    try {
      await l.consume(key);
      if (this.storeDown) {
        this.storeDown = false;
        this.log?.info('rate limits: the shared counters in redis are in use again');
      }
    } catch (e) {
      if (e instanceof lib.RateLimiterRes)
        throw exhausted(`rate limit of route "${route.name}" exceeded`, e.msBeforeNext);
      if (!this.shared) throw e;
      this.storeFailed(e);
      if (this.shared.config.rateLimitFailure === 'closed')
        throw exhausted(`rate limit of route "${route.name}" cannot be checked now (its store is unavailable)`, 1000);
    }
  }

  private storeFailed(e: unknown): void {
    if (this.storeDown) return;
    this.storeDown = true;
    this.log?.warn(
      { err: (e as Error).message, failure: this.shared?.config.rateLimitFailure },
      'rate limits: redis unavailable; calls are admitted (open) or refused (closed) per state.redis.rateLimitFailure',
    );
  }

  /** Counts a stream in; throws RATE_LIMITED over the route's cap. Returns the release. */
  openStream(route: RouteConfig): () => void {
    const cap = route.maxConcurrentStreams;
    const n = this.streams.get(route.name) ?? 0;
    if (cap !== undefined && n >= cap)
      throw exhausted(`route "${route.name}" has its ${cap} concurrent streams open`, 1000);
    this.streams.set(route.name, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.streams.set(route.name, (this.streams.get(route.name) ?? 1) - 1);
    };
  }
}
