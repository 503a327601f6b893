// Route rate limits in Redis (`state.redis`, issue 14): one token bucket
// shared by the gateway replicas, with the same rule as in one process — a
// full bucket admits `burst` calls at once, then a token comes each interval,
// and a refusal names the time to the next token, whichever replica answers.
// The bucket is the documented key, expiring when full again; a value left
// by the former counters is a full bucket. `rateLimitFailure: closed` refuses
// calls while Redis is away (Retry-After: 1) and the buckets are used again
// when it is back (fail open: test/integration/scale-out-failures.test.ts).
// No count depends on how fast calls run: each refusal is awaited, never
// slept for, and the limits that must hold refill a token in 100 s.
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { Redis } from 'ioredis';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { parseConfig } from '../../src/config/load.js';
import { CATALOGUE } from '../../src/errors/catalogue.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import type { JsonObject } from '../../src/proto/json.js';
import { callJsonRpc, callRest, userMessage } from '../helpers/harness.js';
import { spawnRedis, testRedisUrl, uniquePrefix } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';

const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
t.teardown(() => agent.close());

const ROUTES: Record<string, JsonObject> = {
  // 5 at once, then one each 100 s
  slow: { requestsPerSecond: 0.01, burst: 5 },
  // 2 at most, a token each 250 ms
  quick: { requestsPerSecond: 4, burst: 2 },
  pc: { requestsPerSecond: 0.01, burst: 2, perCaller: true },
};

function config(url: string, keyPrefix: string, rateLimitFailure = 'open') {
  return parseConfig(
    JSON.stringify({
      listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
      log: { level: 'silent' },
      state: { redis: { url, keyPrefix, rateLimitFailure } },
      routes: Object.entries(ROUTES).map(([name, rateLimit]) => ({
        name,
        match: { pathPrefix: `/${name}` },
        upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' },
        rateLimit,
      })),
    }),
    '<rate limit redis test>',
  );
}

const send = (gw: RunningGateway, route: string) =>
  callJsonRpc(gw, 'SendMessage', { message: userMessage(route) }, { tenant: '', prefix: `/${route}` });
const sendRest = (gw: RunningGateway, route: string) =>
  callRest(gw, 'SendMessage', { message: userMessage(route) }, { tenant: '', prefix: `/${route}` });
/** The RetryInfo's delay in seconds (NaN without one). */
const delayOf = (r: { details?: JsonObject[] }) =>
  Number(/^([\d.]+)s$/.exec(String(r.details?.find((d) => String(d['@type']).endsWith('RetryInfo'))?.retryDelay))?.[1]);

async function twoGateways(tt: Test, keyPrefix: string) {
  const url = await testRedisUrl(tt);
  const cfg = config(url, keyPrefix);
  const gws = [await startGateway(cfg, pino({ level: 'silent' })), await startGateway(cfg, pino({ level: 'silent' }))];
  tt.teardown(() => Promise.all(gws.map((g) => g.close())));
  const client = new Redis(url);
  tt.teardown(() => client.disconnect());
  return { gws: gws as [RunningGateway, RunningGateway], client };
}

t.test('two gateways, one bucket: the burst at once, then refusals that name the next token', async (tt) => {
  const prefix = uniquePrefix('rate');
  const { gws, client } = await twoGateways(tt, prefix);
  const results = [];
  for (let i = 0; i < 8; i++) results.push(await send(gws[i % 2]!, 'slow'));
  tt.same(
    results.map((r) => r.ok),
    [true, true, true, true, true, false, false, false],
    'a burst of 5 in all, not 5 per gateway',
  );
  for (const r of results.slice(5)) {
    tt.equal(r.code, CATALOGUE.RATE_LIMITED.jsonRpc, 'RATE_LIMITED');
    // a fixed window of 5 calls would be 500 s long
    tt.ok(delayOf(r) > 50 && delayOf(r) <= 100, `the next token in ${delayOf(r)} s, at most one 100 s interval`);
  }
  const rest = await sendRest(gws[1], 'slow');
  const after = Number(rest.headers?.['retry-after']);
  tt.equal(rest.httpStatus, 429, 'REST: 429');
  tt.ok(after > 50 && after <= 100, `REST: Retry-After ${after} s`);
  const ttl = await client.pttl(`${prefix}rate:slow`);
  tt.ok(ttl > 400_000 && ttl <= 500_000, `the bucket's key lives until it is full again (${ttl} ms of 500 s)`);
});

t.test('a refusal on one gateway, the next token on the other, one interval later', async (tt) => {
  const { gws } = await twoGateways(tt, uniquePrefix('rate'));
  for (let round = 1; round <= 3; round++) {
    // three calls at once on gateway A: the bucket holds two tokens at most (awaited, however slow)
    const refused = await waitFor(
      async () => (await Promise.all([0, 1, 2].map(() => send(gws[0], 'quick')))).find((r) => !r.ok),
      'a refusal',
    );
    tt.equal(refused.code, CATALOGUE.RATE_LIMITED.jsonRpc, `round ${round}: refused`);
    // a fixed window of 2 calls would be 1 s long
    const delay = delayOf(refused);
    tt.ok(delay > 0 && delay <= 0.25, `round ${round}: the next token in ${delay} s, within one 250 ms interval`);
    tt.ok(await waitFor(async () => (await send(gws[1], 'quick')).ok, 'a call served'), 'gateway B serves it');
  }
});

t.test('per caller: one key per caller; a value left by the former counters is a full bucket', async (tt) => {
  const prefix = uniquePrefix('rate');
  const { gws, client } = await twoGateways(tt, prefix);
  // rate-limiter-flexible kept a count of calls under the same key
  await client.set(`${prefix}rate:slow`, '3', 'EX', 60);
  const slow = [];
  for (let i = 0; i < 6; i++) slow.push((await send(gws[i % 2]!, 'slow')).ok);
  tt.same(slow, [true, true, true, true, true, false], 'the old count is read as a full bucket of 5');
  tt.same(
    [(await send(gws[0], 'pc')).ok, (await send(gws[1], 'pc')).ok, (await send(gws[0], 'pc')).ok],
    [true, true, false],
  );
  const keys = await client.keys(`${prefix}rate:pc|*`);
  tt.equal(keys.length, 1, 'one bucket for this caller');
  tt.match(keys[0], /rate:pc\|peer:/, 'named by the peer address');
});

t.test('rateLimitFailure closed: refused while Redis is away, the buckets used again when it is back', async (tt) => {
  const redis = await spawnRedis(tt);
  const lines: string[] = [];
  const gw = await startGateway(
    config(redis.url, uniquePrefix('rate-closed'), 'closed'),
    pino({ level: 'info' }, { write: (l: string) => void lines.push(l) }),
  );
  tt.teardown(() => gw.close());
  tt.ok((await send(gw, 'slow')).ok, 'served while Redis is up');
  await redis.stop();
  const refused = await waitFor(async () => {
    const r = await sendRest(gw, 'slow');
    return r.ok ? undefined : r;
  }, 'a refusal with Redis away');
  tt.equal(refused.httpStatus, 429, 'RATE_LIMITED');
  tt.equal(refused.headers?.['retry-after'], '1', 'Retry-After: 1');
  tt.match(refused.message, /cannot be checked now/);
  tt.ok(
    lines.some((l) => l.includes('rate limits: redis unavailable')),
    'the outage logged',
  );
  await redis.start();
  tt.ok(await waitFor(async () => (await send(gw, 'slow')).ok, 'a call served'), 'served again with Redis back');
  tt.ok(
    lines.some((l) => l.includes('rate limits: the shared buckets in redis are in use again')),
    'and that logged',
  );
});
