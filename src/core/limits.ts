// Rate and concurrency limits per route (and per caller identity), the same
// for every inbound binding: a request over the rate is RESOURCE_EXHAUSTED with
// a google.rpc.RetryInfo (HTTP callers also get `Retry-After`), a stream over
// the route's cap likewise. rate-limiter-flexible keeps the counters.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
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

export class Limits {
  private readonly limiters = new Map<string, RateLimiterMemory>();
  private readonly streams = new Map<string, number>();

  private limiter(route: RouteConfig): RateLimiterMemory | undefined {
    const rl = route.rateLimit;
    if (!rl) return undefined;
    const key = `${route.name} ${rl.requestsPerSecond} ${rl.burst}`;
    let l = this.limiters.get(key);
    if (!l) {
      // `burst` points refilled over burst/requestsPerSecond seconds ≈ the configured rate with bursts.
      l = new RateLimiterMemory({
        points: rl.burst,
        duration: Math.max(1, Math.round(rl.burst / rl.requestsPerSecond)),
      });
      this.limiters.set(key, l);
    }
    return l;
  }

  /** Admits one call from `caller` on `route`, or throws RATE_LIMITED. */
  async admit(route: RouteConfig, caller: string): Promise<void> {
    const l = this.limiter(route);
    if (!l) return;
    const key = route.rateLimit?.perCaller ? `${route.name}|${caller}` : route.name;
    try {
      await l.consume(key);
    } catch (e) {
      if (e instanceof RateLimiterRes) throw exhausted(`rate limit of route "${route.name}" exceeded`, e.msBeforeNext);
      throw e;
    }
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
