// The route rate limits' token buckets in Redis (`state.redis`), so one
// limit holds across every gateway replica: the GCRA step of
// src/core/token-bucket.ts as one Lua script, atomic in Redis and timed by
// Redis's own clock (TIME), so replicas whose clocks differ still share one
// bucket. ioredis sends it as EVALSHA (EVAL when Redis does not know it yet).
// A bucket is one string key, `<prefix>rate:<route>[|<caller>]`, holding its
// TAT in microseconds and expiring when the bucket is full again. The
// connection never queues: with Redis away `take` fails at once, and the
// caller (src/core/limits.ts) admits or refuses per state.redis.rateLimitFailure.
import { ADMITTED, rateOf, type RateLimit, type Taken, type TokenBuckets } from '../core/token-bucket.js';
import type { SharedState } from './redis.js';

/** KEYS[1] the bucket; ARGV[1] µs between two tokens; ARGV[2] burst. Returns {1, 0} or {0, µs to wait}. */
const GCRA_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local interval = tonumber(ARGV[1])
local tolerance = interval * tonumber(ARGV[2])
local stored = tonumber(redis.call('GET', KEYS[1]) or '')
local tat = stored or now
if tat < now then tat = now end
if tat > now + tolerance then tat = now + tolerance end
local nxt = tat + interval
local wait = nxt - tolerance - now
if wait <= 0 then tat = nxt end
if tat ~= stored then
  redis.call('SET', KEYS[1], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000))
end
if wait > 0 then return {0, wait} end
return {1, 0}
`;

const COMMAND = 'a2aGatewayTakeToken';

type WithCommand = Record<
  typeof COMMAND,
  (key: string, intervalUs: string, burst: string) => Promise<[number, number]>
>;

export class RedisBuckets implements TokenBuckets {
  constructor(private readonly shared: SharedState) {
    shared.client.defineCommand(COMMAND, { numberOfKeys: 1, lua: GCRA_LUA });
  }

  async take(key: string, limit: RateLimit): Promise<Taken> {
    if (!this.shared.ready) throw new Error('Redis connection is not ready');
    const rate = rateOf(limit);
    const client = this.shared.client as unknown as WithCommand;
    const [admitted, waitUs] = await client[COMMAND](
      this.shared.key('rate', key),
      String(rate.intervalUs),
      String(rate.burst),
    );
    return admitted === 1 ? ADMITTED : { admitted: false, retryMs: waitUs / 1000 };
  }
}
