// Rate and concurrency limits per route and per caller, answered in each
// caller's binding (429 + Retry-After / RESOURCE_EXHAUSTED / a JSON-RPC error,
// all with google.rpc.RetryInfo), and the gateway serving again afterwards.
// The limit is a token bucket: its refusals say when the next token comes
// (not the end of a window), and a caller who waits that long is served. No
// test depends on how fast calls run: the limits that must refuse refill one
// token in 20 s, and a refusal is awaited, never slept for. (The exact counts
// and delays, on a clock the test moves: test/unit/rate-limit.test.ts.)
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { CATALOGUE, GRPC_CODES } from '../../src/errors/catalogue.js';
import { startGateway } from '../../src/server/gateway.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, slug, userMessage } from '../helpers/harness.js';
import { grpcStreamCall, STREAM_CALLERS } from '../helpers/streams.js';
import { waitFor } from '../helpers/wait.js';

const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
const gw = await startGateway(
  gatewayConfig([
    ...BINDINGS.map((b) => ({
      name: `rl-${slug(b)}`,
      match: { pathPrefix: `/rl-${slug(b)}`, tenant: `rl-${slug(b)}` },
      upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const, tenant: 'clear' as const },
      // a burst of 2, then a token each 20 s: the third call is refused however slowly the calls run
      rateLimit: { requestsPerSecond: 0.05, burst: 2 },
    })),
    {
      name: 'refill',
      match: { pathPrefix: '/refill', tenant: 'refill' },
      upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const, tenant: 'clear' as const },
      // a token each 250 ms, 2 at most: a fixed window of 2 calls would be 1 s long
      rateLimit: { requestsPerSecond: 4, burst: 2 },
    },
    {
      name: 'per-caller',
      match: { pathPrefix: '/pc', tenant: 'pc' },
      upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const, tenant: 'clear' as const },
      rateLimit: { requestsPerSecond: 0.05, burst: 1, perCaller: true },
    },
    {
      name: 'one-stream',
      match: { pathPrefix: '/one', tenant: 'one' },
      upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const, tenant: 'clear' as const },
      maxConcurrentStreams: 1,
    },
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await agent.close();
});

const retryInfo = (d: Array<Record<string, unknown>> | undefined) =>
  d?.find((x) => x['@type'] === 'type.googleapis.com/google.rpc.RetryInfo');
/** The RetryInfo's delay in seconds (NaN without one). */
const delayOf = (d: Array<Record<string, unknown>> | undefined) =>
  Number(/^([\d.]+)s$/.exec(String(retryInfo(d)?.retryDelay))?.[1]);

t.test('a rate limit, in every binding', async (tt) => {
  for (const inbound of BINDINGS) {
    const opts = { tenant: `rl-${slug(inbound)}`, prefix: `/rl-${slug(inbound)}` };
    const results = [];
    for (let i = 0; i < 3; i++)
      results.push(await CALLERS[inbound](gw, 'SendMessage', { message: userMessage('rl') }, opts));
    tt.same(
      results.slice(0, 2).map((r) => r.ok),
      [true, true],
      `${inbound}: the burst passes`,
    );
    const limited = results[2]!;
    const row = CATALOGUE.RATE_LIMITED;
    tt.equal(
      limited.code,
      inbound === 'JSONRPC' ? row.jsonRpc : inbound === 'HTTP+JSON' ? 429 : GRPC_CODES.RESOURCE_EXHAUSTED,
      `${inbound}: refused`,
    );
    tt.match(retryInfo(limited.details), { retryDelay: /^\d+(\.\d+)?s$/ }, `${inbound}: with RetryInfo`);
    const delay = delayOf(limited.details);
    // the bucket was full a moment ago: its next token is at most 20 s away (a 40 s window would say ~40)
    tt.ok(delay > 10 && delay <= 20, `${inbound}: the next token comes in ${delay} s, within one 20 s interval`);
  }
  const res = await request(`${gw.httpUrl}/rl-rest/rl-rest/tasks/x`, { headers: { 'a2a-version': '1.0' } });
  await res.body.dump();
  tt.equal(res.statusCode, 429);
  tt.match(res.headers['retry-after'], /^\d+$/, 'REST: Retry-After');
  const after = Number(res.headers['retry-after']);
  tt.ok(after > 10 && after <= 20, `REST: Retry-After ${after} s, the time to the next token`);
});

t.test('refused until the next token, which is one interval away, not a window', async (tt) => {
  const call = () =>
    CALLERS.JSONRPC(gw, 'SendMessage', { message: userMessage('refill') }, { tenant: 'refill', prefix: '/refill' });
  for (let round = 1; round <= 3; round++) {
    // three calls at once: the bucket holds two tokens at most, so one is refused (awaited, however slow)
    const refused = await waitFor(
      async () => (await Promise.all([call(), call(), call()])).find((r) => !r.ok),
      'a refusal',
    );
    tt.equal(refused.code, CATALOGUE.RATE_LIMITED.jsonRpc, `round ${round}: refused over the limit`);
    const delay = delayOf(refused.details);
    tt.ok(delay > 0 && delay <= 0.25, `round ${round}: the next token in ${delay} s, within one 250 ms interval`);
    const again = await waitFor(async () => (await call()).ok, 'a call served again');
    tt.ok(again, `round ${round}: served again`);
  }
});

t.test('per caller on a route without authentication: the peer address, never an unverified credential', async (tt) => {
  const as = (who: string) =>
    CALLERS.JSONRPC(
      gw,
      'SendMessage',
      { message: userMessage('pc') },
      { tenant: 'pc', prefix: '/pc', headers: { authorization: `Bearer ${who}` } },
    );
  tt.equal((await as('alice')).ok, true, 'the first call from this address passes');
  tt.equal((await as('bob')).ok, false, 'a made-up Authorization value does not open a bucket of its own');
  // (per authenticated identity: test/integration/auth.test.ts)
});

t.test('a cap on concurrent streams', async (tt) => {
  const opts = { tenant: 'one', prefix: '/one' };
  const first = STREAM_CALLERS.JSONRPC(
    gw,
    'SendStreamingMessage',
    { message: userMessage('hold') },
    { ...opts, take: 2 },
  );
  const held = await first;
  tt.equal(held.events.length, 2);
  // the first caller has hung up: its slot is free again once the gateway saw it go (refused until then)
  const again = await waitFor(async () => {
    const r = await STREAM_CALLERS['HTTP+JSON'](gw, 'SendStreamingMessage', { message: userMessage('stream') }, opts);
    return r.error?.code === CATALOGUE.RATE_LIMITED.grpc ? undefined : r;
  }, 'the slot of the closed stream');
  tt.equal(again.error, undefined, 'a slot freed by a closed stream is reused');
  tt.equal(again.events.length, 6, 'the whole stream');
  const holding = grpcStreamCall(gw, 'SendStreamingMessage', { message: userMessage('hold') }, opts);
  holding.on('error', () => undefined);
  await new Promise((r) => holding.once('data', r));
  const refused = await STREAM_CALLERS.JSONRPC(gw, 'SendStreamingMessage', { message: userMessage('stream') }, opts);
  tt.same(
    [refused.events.length, refused.error?.code],
    [0, CATALOGUE.RATE_LIMITED.jsonRpc],
    'over the cap: refused before any event',
  );
  holding.cancel();
});
