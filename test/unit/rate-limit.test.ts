// The route rate limit is a token bucket, to the microsecond: the limiter
// (src/core/limits.ts over src/core/token-bucket.ts) on a clock the test
// moves, so every count and every Retry-After is exact. A full bucket admits
// `burst` calls at once, then one per 1/requestsPerSecond s — never a fixed
// window of `burst` calls — and a refused call is told when the next token
// comes. And the config refusing what the bucket cannot count. (The bucket
// against a textbook token bucket: test/unit/token-bucket.test.ts.)
import t from 'tap';
import { ConfigError, parseConfig, routeFromRaw } from '../../src/config/load.js';
import type { RouteConfig } from '../../src/config/types.js';
import { Limits, retryAfterSeconds } from '../../src/core/limits.js';
import { A2AError } from '../../src/errors/a2a-error.js';

const route = (requestsPerSecond: number, burst: number, perCaller = false, name = 'r'): RouteConfig =>
  routeFromRaw({ name, upstream: { url: 'http://agent:1' }, rateLimit: { requestsPerSecond, burst, perCaller } });

/** A limiter on a clock the test sets (ms). */
function limiter() {
  const clock = { now: 0 };
  const limits = new Limits(undefined, undefined, { clock: () => clock.now });
  /** undefined when admitted, else the refusal's RetryInfo delay and Retry-After. */
  const call = async (r: RouteConfig, caller = '') => {
    try {
      await limits.admit(r, caller);
      return undefined;
    } catch (e) {
      if (!(e instanceof A2AError) || e.errorName !== 'RATE_LIMITED') throw e;
      const info = e.details.find((d) => String(d['@type']).endsWith('RetryInfo'));
      return { retryDelay: info?.retryDelay, retryAfter: retryAfterSeconds(e) };
    }
  };
  /** Calls at each of `times` (ms); how many were admitted. */
  const offer = async (r: RouteConfig, times: number[]) => {
    let admitted = 0;
    for (const at of times) {
      clock.now = at;
      if ((await call(r)) === undefined) admitted++;
    }
    return admitted;
  };
  return { clock, call, offer };
}

/** `n` calls evenly `stepMs` apart from `fromMs`. */
const every = (stepMs: number, n: number, fromMs = 0) => Array.from({ length: n }, (_, i) => fromMs + i * stepMs);

t.test('burst 5 at 0.5/s: 5 at once, then one every 2 s, each refusal told the time to the next token', async (tt) => {
  const { clock, call } = limiter();
  const r = route(0.5, 5);
  clock.now = 1000;
  for (let i = 0; i < 5; i++) tt.equal(await call(r), undefined, `call ${i + 1} of the full bucket`);
  tt.same(await call(r), { retryDelay: '2.000s', retryAfter: 2 }, 'the 6th: refused, the next token in 2 s');
  clock.now = 2999;
  tt.same(await call(r), { retryDelay: '0.001s', retryAfter: 1 }, '1 ms before the token');
  clock.now = 3000;
  tt.equal(await call(r), undefined, 'the token has come');
  tt.same(await call(r), { retryDelay: '2.000s', retryAfter: 2 }, 'and the bucket is empty again');
  clock.now = 3000 + 10 * 2000;
  for (let i = 0; i < 5; i++) tt.equal(await call(r), undefined, `after a long idle, call ${i + 1}`);
  tt.not(await call(r), undefined, 'the bucket held no more than its burst');
});

t.test('the sustained rate is requestsPerSecond (the defects measured on the fixed window)', async (tt) => {
  const { offer } = limiter();
  // 50 calls a second for 3 s against 100/s with a burst of 10: the fixed window admitted 30
  tt.equal(await offer(route(100, 10, false, 'a'), every(20, 150)), 150, '100/s, burst 10: all 150 at 50/s');
  // 10 calls a second for 3 s against 2/s, burst 1: one every 500 ms (the fixed window: 1/s)
  tt.equal(await offer(route(2, 1, false, 'b'), every(100, 30)), 6, '2/s, burst 1: 6 in 3 s');
  // 50/s (at 0, 20, … 3000 ms) against 10/s, burst 25: 25 at once, then 10 a second (the window: 8.3/s)
  tt.equal(await offer(route(10, 25, false, 'c'), every(20, 151)), 25 + 30, '10/s, burst 25: 55 in 3 s');
  // 199 calls in 150 ms against 50/s, burst 100: the fixed window let all 199 through across its edge
  const quick = await offer(route(50, 100, false, 'd'), every(150 / 198, 199));
  tt.equal(quick, 100 + 7, '50/s, burst 100: 107 in 150 ms (100 + 7.5 tokens)');
});

t.test('a rate under one call a second, and one that is not a whole number', async (tt) => {
  const { clock, call, offer } = limiter();
  tt.equal(await offer(route(3, 1, false, 'third'), every(1, 1000)), 3, '3/s for 1 s of calls each 1 ms: 3');
  const slow = route(0.05, 2, false, 'slow');
  clock.now = 0;
  await call(slow);
  await call(slow);
  clock.now = 5000;
  tt.same(await call(slow), { retryDelay: '15.000s', retryAfter: 15 }, '1 per 20 s: 15 s to go, 5 s after');
});

t.test('per caller: one bucket per caller, the route bucket otherwise', async (tt) => {
  const { call } = limiter();
  const pc = route(1, 1, true, 'pc');
  tt.equal(await call(pc, 'alice'), undefined);
  tt.not(await call(pc, 'alice'), undefined, 'alice spent her token');
  tt.equal(await call(pc, 'bob'), undefined, 'bob has his own bucket');
  const shared = route(1, 1, false, 'shared');
  tt.equal(await call(shared, 'alice'), undefined);
  tt.not(await call(shared, 'bob'), undefined, 'without perCaller the route has one bucket');
});

t.test('a reload to a faster rate: a bucket emptied at the slow rate refills at the new one', async (tt) => {
  const { clock, call } = limiter();
  clock.now = 0;
  tt.equal(await call(route(0.001, 1, false, 'x')), undefined, 'one call at 1 per 1,000 s');
  tt.same(await call(route(10, 1, false, 'x')), { retryDelay: '0.100s', retryAfter: 1 }, 'at 10/s: 100 ms to go');
  clock.now = 100;
  tt.equal(await call(route(10, 1, false, 'x')), undefined, 'not 1,000 s');
});

t.test('the config refuses what a token bucket cannot count', async (tt) => {
  const problems = (rateLimit: object): string[] => {
    try {
      parseConfig(JSON.stringify({ routes: [{ name: 'r', upstream: { url: 'http://a:1' }, rateLimit }] }), 'x');
      return [];
    } catch (e) {
      return (e as ConfigError).problems;
    }
  };
  tt.same(problems({ requestsPerSecond: 10, burst: 1 }), [], 'a usual limit');
  tt.match(problems({ requestsPerSecond: 10, burst: 0 }), [/burst: must be >= 1/], 'no bucket');
  tt.match(problems({ requestsPerSecond: 0, burst: 1 }), [/requestsPerSecond: must be > 0/], 'no rate');
  tt.match(problems({ requestsPerSecond: 2e6 }), [/requestsPerSecond: must be <= 1000000/], 'past 1 per µs');
  tt.match(
    problems({ requestsPerSecond: 1e-10, burst: 1 }),
    [/rateLimit: burst \/ requestsPerSecond, the time an empty bucket takes to fill, is over 100 years/],
    'a bucket that would take centuries to fill',
  );
});
