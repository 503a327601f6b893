// The in-process token buckets (src/core/token-bucket.ts, GCRA) against a
// token bucket written the textbook way — credit that refills with time up to
// `burst` tokens, one token spent per admitted call — for any rate, burst and
// arrivals (fast-check): the same calls admitted, the same wait named for the
// others. And the memory kept: a bucket that is full again is forgotten.
import t from 'tap';
import fc from 'fast-check';
import { MemoryBuckets, rateOf } from '../../src/core/token-bucket.js';

t.test('full buckets are forgotten: the memory holds the buckets that are not full', async (tt) => {
  const clock = { now: 0 };
  const buckets = new MemoryBuckets(() => clock.now);
  for (let i = 0; i < 100; i++) await buckets.take(`caller-${i}`, { requestsPerSecond: 1, burst: 1 });
  await buckets.take('slow', { requestsPerSecond: 0.01, burst: 1 });
  tt.equal(buckets.size, 101);
  clock.now = 20_000;
  await buckets.take('another', { requestsPerSecond: 1, burst: 1 });
  tt.equal(buckets.size, 2, 'the 100 full again were dropped; the one still refilling and the new one stay');
  tt.same(await buckets.take('slow', { requestsPerSecond: 0.01, burst: 1 }), { admitted: false, retryMs: 80_000 });
});

t.test('the same counts as a textbook token bucket, for any rate, burst and arrivals', async (tt) => {
  const run = await fc.check(
    fc.asyncProperty(
      fc.double({ min: 0.01, max: 5000, noNaN: true }),
      fc.integer({ min: 1, max: 50 }),
      fc.array(fc.integer({ min: 0, max: 3_000_000 }), { maxLength: 200 }),
      async (requestsPerSecond, burst, gapsUs) => {
        const clock = { now: 0 };
        const buckets = new MemoryBuckets(() => clock.now / 1000);
        // the textbook bucket in whole microseconds of credit: full at start, one token = one interval
        const { intervalUs } = rateOf({ requestsPerSecond, burst });
        let credit = burst * intervalUs;
        let last = 0;
        for (const gap of gapsUs) {
          clock.now += gap;
          credit = Math.min(burst * intervalUs, credit + clock.now - last);
          last = clock.now;
          const textbook = credit >= intervalUs;
          if (textbook) credit -= intervalUs;
          const taken = await buckets.take('k', { requestsPerSecond, burst });
          if (taken.admitted !== textbook) return false;
          if (!taken.admitted && Math.abs(taken.retryMs * 1000 - (intervalUs - credit)) > 1e-6) return false;
        }
        return true;
      },
    ),
    { numRuns: 300 },
  );
  tt.notOk(run.failed, fc.defaultReportMessage(run) ?? 'token bucket and GCRA agree');
  tt.equal(run.numRuns, 300, 'every run was checked');
});
