// Rate and concurrency limits per route (and per caller identity), the same
// for every inbound binding: a request over the rate is RESOURCE_EXHAUSTED with
// a google.rpc.RetryInfo (HTTP callers also get `Retry-After`) saying when the
// bucket has its next token, a stream over the route's cap likewise. The rate
// is a token bucket (src/core/token-bucket.ts, GCRA): in this process, or
// with `state.redis` in Redis (src/state/rate-buckets.ts), so the limit holds
// across every gateway replica (issue 14). Redis away: calls are admitted
// (fail open, the default) or refused (`rateLimitFailure: closed`), and the
// outage is logged once; the shared buckets are used again when Redis is back.
// The buckets' code is loaded with the first rate-limited call: a gateway
// without rate limits never loads it.
import type { Logger } from 'pino';
import type { SharedState } from '../state/redis.js';
import type { RouteConfig } from '../config/types.js';
import { A2AError } from '../errors/a2a-error.js';
import type { Taken, TokenBuckets } from './token-bucket.js';

export const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo';

function exhausted(message: string, retryMs: number): A2AError {
  // rounded up: a caller who waits this long finds a token
  const ms = Math.max(Math.ceil(retryMs), 1);
  return A2AError.of('RATE_LIMITED', message, {
    details: [{ '@type': RETRY_INFO_TYPE, retryDelay: `${(ms / 1000).toFixed(3)}s` }],
  });
}

/** Seconds to put in `Retry-After` for an error that carries a RetryInfo, if it does. */
export function retryAfterSeconds(err: A2AError): number | undefined {
  const info = err.details.find((d) => d['@type'] === RETRY_INFO_TYPE);
  const m = typeof info?.retryDelay === 'string' ? /^([\d.]+)s$/.exec(info.retryDelay) : null;
  return m ? Math.max(1, Math.ceil(Number(m[1]))) : undefined;
}

export interface LimitsOptions {
  /** The in-process buckets' clock, in milliseconds (tests); default performance.now. */
  clock?: () => number;
}

export class Limits {
  private buckets: TokenBuckets | undefined;
  private loading: Promise<TokenBuckets> | undefined;
  private readonly streams = new Map<string, number>();
  private storeDown = false;

  constructor(
    private readonly shared?: SharedState,
    private readonly log?: Logger,
    private readonly options: LimitsOptions = {},
  ) {}

  private async load(): Promise<TokenBuckets> {
    const { MemoryBuckets } = await import('./token-bucket.js');
    if (!this.shared) return (this.buckets = new MemoryBuckets(this.options.clock));
    const { RedisBuckets } = await import('../state/rate-buckets.js');
    return (this.buckets = new RedisBuckets(this.shared));
  }

  /** Admits one call from `caller` on `route`, or throws RATE_LIMITED. */
  async admit(route: RouteConfig, caller: string): Promise<void> {
    const rl = route.rateLimit;
    if (!rl) return;
    // loaded once per gateway: later calls find the buckets there
    const buckets = this.buckets ?? (await (this.loading ??= this.load()));
    const key = rl.perCaller ? `${route.name}|${caller}` : route.name;
    let taken: Taken;
    try {
      taken = await buckets.take(key, rl);
    } catch (e) {
      if (!this.shared) throw e;
      this.storeFailed(e);
      if (this.shared.config.rateLimitFailure === 'closed')
        throw exhausted(`rate limit of route "${route.name}" cannot be checked now (its store is unavailable)`, 1000);
      return;
    }
    if (this.storeDown) {
      this.storeDown = false;
      this.log?.info('rate limits: the shared buckets in redis are in use again');
    }
    if (!taken.admitted) throw exhausted(`rate limit of route "${route.name}" exceeded`, taken.retryMs);
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
