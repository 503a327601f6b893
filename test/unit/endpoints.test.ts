// The endpoint directory's own rules (src/upstream/endpoints.ts): the circuit
// breaker hands a released slot to the call that waited for it (a call
// arriving meanwhile cannot take it), refuses a caller already gone, and
// bounds a wait by what is left of the call's timeout (then
// UPSTREAM_OVERLOADED, the waiter gone from the queue); the balancer's pick
// leaves out an endpoint whose breaker would refuse the call; and a config
// without active health checks drops their last verdict.
import { pino } from 'pino';
import t from 'tap';
import { routeFromRaw } from '../../src/config/load.js';
import { EndpointMetrics } from '../../src/ops/endpoint-metrics.js';
import { Metrics } from '../../src/ops/metrics.js';
import { Endpoint, Endpoints } from '../../src/upstream/endpoints.js';

const cb = { maxConnections: 1, maxPending: 1 };
const live = (): AbortSignal => new AbortController().signal;

t.test('a released slot goes to the waiting call, never to one arriving meanwhile', async (t) => {
  const e = new Endpoint('r', 'e0', 'http://127.0.0.1:9', undefined);
  const releaseA = await e.admit(cb, live());
  const b = e.admit(cb, live());
  releaseA(); // b's now; c, arriving before b runs on, must wait behind it
  let cHas = false;
  const c = e.admit(cb, live()).then((r) => ((cHas = true), r));
  const releaseB = await b;
  t.equal(e.active, 1, 'one call in flight, never two');
  t.notOk(cHas, 'c waits');
  releaseB();
  const releaseC = await c;
  t.equal(e.active, 1, 'c has the slot b released');
  releaseC();
  t.equal(e.active, 0);
});

t.test('a caller already gone does not wait for a slot', async (t) => {
  const e = new Endpoint('r', 'e0', 'http://127.0.0.1:9', undefined);
  const release = await e.admit(cb, live());
  const gone = new AbortController();
  gone.abort();
  const refused = await e.admit(cb, gone.signal).then(
    () => 'admitted',
    (err: { errorName?: string }) => err.errorName,
  );
  t.equal(refused, 'CANCELLED');
  release();
  t.equal(e.active, 0, 'nothing left counted');
});

t.test('a wait for a slot ends with what is left of the timeout: UPSTREAM_OVERLOADED, not sent', async (t) => {
  const e = new Endpoint('r', 'e0', 'http://127.0.0.1:9', undefined);
  const release = await e.admit(cb, live());
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<string>((r) => (timer = setTimeout(() => r('still waiting'), 10_000)));
  const waited = e.admit(cb, live(), 20, process.hrtime.bigint()).then(
    () => 'admitted',
    (err: { errorName?: string; message: string }) => `${err.errorName}: ${err.message}`,
  );
  const got = await Promise.race([waited, bound]);
  clearTimeout(timer);
  t.match(got, /^UPSTREAM_OVERLOADED: .*no free slot within .*20 ms.*not sent/);
  release();
  if (got === 'still waiting') return; // (the slot went to it: nothing more to see)
  t.equal(e.active, 0, 'the slot is not handed to the call that stopped waiting');
  const spent = e.admit(cb, live()).then((r) => r);
  const late = await e.admit(cb, live(), 20, process.hrtime.bigint() - 30_000_000n).then(
    () => 'admitted',
    (err: { errorName?: string }) => err.errorName,
  );
  t.equal(late, 'UPSTREAM_OVERLOADED', 'no time left: refused at once');
  (await spent)();
  t.equal(e.active, 0);
});

t.test("the balancer's pick leaves out an endpoint whose breaker would refuse the call", async (t) => {
  for (const loadBalancing of ['round-robin', 'least-request'] as const) {
    const route = routeFromRaw({
      name: 'r',
      upstream: {
        endpoints: [{ url: 'http://127.0.0.1:9' }, { url: 'http://127.0.0.1:10' }],
        binding: 'JSONRPC',
        loadBalancing,
        healthCheck: false,
        circuitBreaker: { maxConnections: 1, maxPending: 0 },
      },
    });
    const set = new Endpoints(pino({ level: 'silent' })).of(route);
    const [full, free] = set.members;
    const release = await full!.endpoint.admit(route.upstream.circuitBreaker, live());
    const picks = Array.from({ length: 6 }, () => set.pick()!.endpoint.name);
    t.same(picks, Array(6).fill(free!.endpoint.name), `${loadBalancing}: the endpoint with room`);
    t.equal(set.pick(free), full, `${loadBalancing}: no other: the full one (it refuses the call itself)`);
    release();
  }
});

t.test('health checks turned off by a reload: their verdict is dropped', async (t) => {
  const upstream = {
    endpoints: [{ url: 'http://127.0.0.1:9' }, { url: 'http://127.0.0.1:10' }],
    binding: 'JSONRPC' as const,
  };
  const checked = routeFromRaw({ name: 'r', upstream });
  const endpoints = new Endpoints(pino({ level: 'silent' }));
  const m = endpoints.of(checked).members[0]!;
  const hc = checked.upstream.healthCheck!;
  for (let i = 0; i < hc.unhealthyThreshold; i++) endpoints.checked(m, hc, false, 'connect ECONNREFUSED 127.0.0.1:9');
  t.equal(endpoints.report(checked)[0]!.status, 'unhealthy');
  t.notMatch(endpoints.report(checked)[0]!.reason ?? '', /127\.0\.0\.1/, 'the reason names no address');
  const unchecked = routeFromRaw({ name: 'r', upstream: { ...upstream, healthCheck: false } });
  t.equal(endpoints.report(unchecked)[0]!.status, 'healthy', 'no checks: the endpoint is used again');
});

t.test('a reload that drops endpoints drops their metric series', async (t) => {
  const metrics = new Metrics();
  const endpoints = new Endpoints(pino({ level: 'silent' }), new EndpointMetrics(metrics.registry));
  const route = routeFromRaw({
    name: 'gone',
    upstream: { endpoints: [{ url: 'http://127.0.0.1:9' }, { url: 'http://127.0.0.1:10' }], binding: 'JSONRPC' },
  });
  endpoints.of(route);
  t.match(await metrics.text(), /a2a_gateway_endpoint_status\{route="gone",endpoint="endpoint-0",status="healthy"\} 1/);
  endpoints.retain([]);
  t.notMatch(await metrics.text(), /route="gone"/, 'no series of the removed endpoints');
});

t.test("a reload that renames an endpoint drops the old name's series", async (t) => {
  const metrics = new Metrics();
  const endpoints = new Endpoints(pino({ level: 'silent' }), new EndpointMetrics(metrics.registry));
  const urls = ['http://127.0.0.1:9', 'http://127.0.0.1:10'];
  const named = (first: string) =>
    routeFromRaw({
      name: 'r',
      upstream: { endpoints: [{ url: urls[0]!, name: first }, { url: urls[1]! }], binding: 'JSONRPC' },
    });
  endpoints.of(named('old-name'));
  t.match(await metrics.text(), /endpoint="old-name"/);
  endpoints.of(named('new-name'));
  const text = await metrics.text();
  t.match(text, /a2a_gateway_endpoint_status\{route="r",endpoint="new-name",status="healthy"\} 1/);
  t.notMatch(text, /endpoint="old-name"/, 'no series under the old name');
});
