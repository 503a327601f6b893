// The admin console's pieces on their own (issue 16): the escaping template,
// the masked config (API keys, set credentials, tracing headers, passwords
// in URLs — userinfo or a query parameter such as ioredis's ?password= — a
// key pasted elsewhere), the last-errors ring, endpoint health
// from call outcomes and card status, and the traffic sampler's rates and
// latency from a real prom-client registry.
import t from 'tap';
import type { GatewayConfig } from '../../src/config/types.js';
import { maskedConfig, maskUrl, withoutSecrets } from '../../src/admin/config-view.js';
import { EndpointHealth } from '../../src/admin/endpoint-health.js';
import type { EndpointReport } from '../../src/upstream/endpoints.js';
import { html, Safe } from '../../src/admin/html.js';
import { RecentErrors } from '../../src/admin/recent-errors.js';
import { TrafficSampler } from '../../src/admin/traffic.js';
import type { AnsweredLine } from '../../src/ops/access-log.js';
import { Metrics } from '../../src/ops/metrics.js';
import { gatewayConfig } from '../helpers/harness.js';

const line = (over: Partial<AnsweredLine>): AnsweredLine => ({
  requestId: 'r',
  client: null,
  method: 'SendMessage',
  route: 'a',
  inbound: 'JSONRPC',
  upstream: 'JSONRPC',
  outcome: 'OK',
  durationMs: 1,
  bytesIn: 0,
  ...over,
});

t.test('html escapes every value, keeps Safe markup and joins arrays', async (t) => {
  const hostile = `<script>alert('x')</script>&"`;
  t.equal(
    html`<p title="${hostile}">${hostile}</p>`.text,
    '<p title="&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;</p>',
  );
  // (an alias: prettier reflows templates tagged `html`)
  const tag = html;
  t.equal(
    tag`<ul>${['<a>', tag`<li>${'<b>'}</li>`]}</ul>`.text,
    '<ul>&lt;a&gt;<li>&lt;b&gt;</li></ul>',
    'arrays joined, Safe kept',
  );
  t.equal(html`${undefined}${null}${false}${0}`.text, '0', 'nothing for absent values; numbers as text');
  t.ok(html`x` instanceof Safe);
});

t.test('the masked config holds no secret and keeps the rest', async (t) => {
  const config: GatewayConfig = {
    ...gatewayConfig([
      {
        name: 'a',
        match: { pathPrefix: '/a' },
        upstream: {
          url: 'http://user:url-pass-123456@agent.internal/rpc?key=api-key-abcdef',
          binding: 'JSONRPC',
          credentials: { header: 'authorization', value: 'Bearer upstream-token-xyz' },
        },
        auth: { apiKey: { name: 'x-api-key', keys: [{ id: 'k1', key: 'api-key-abcdef' }] } },
      },
    ]),
    tracing: {
      otlpEndpoint: 'http://collector:4318',
      protocol: 'http/json',
      headers: { 'x-honeycomb-team': 'tracing-secret-42' },
      serviceName: 'gw',
      sampleRatio: 1,
      flushIntervalMs: 1000,
    },
  };
  const text = JSON.stringify(maskedConfig(config));
  for (const secret of ['url-pass-123456', 'api-key-abcdef', 'upstream-token-xyz', 'tracing-secret-42'])
    t.notOk(text.includes(secret), `${secret} masked`);
  const m = maskedConfig(config) as any;
  t.equal(m.routes[0].upstream.credentials.header, 'authorization', 'the header name kept');
  t.equal(m.routes[0].auth.apiKey.keys[0].id, 'k1', 'key ids kept');
  t.match(
    m.routes[0].upstream.url,
    /^http:\/\/user:REDACTED@agent\.internal\/rpc\?key=\[REDACTED\]$/,
    'the URL readable',
  );
  t.same(Object.keys(m.tracing.headers), ['x-honeycomb-team'], 'tracing header names kept');
  t.equal(m.routes[0].timeoutMs, 30_000, 'defaults shown');
  t.equal(maskUrl('127.0.0.1:50051'), '127.0.0.1:50051', 'a gRPC address as is');
  t.equal(maskedConfig(config) !== config, true, 'the live config untouched');
  t.equal(config.routes[0]!.auth!.apiKey!.keys[0]!.key, 'api-key-abcdef');
});

t.test('masked config: the passwords of every endpoint URL and of the Redis URL', async (t) => {
  const config = gatewayConfig([
    {
      name: 'replicas',
      upstream: {
        endpoints: [{ url: 'http://u:first-pass-1111@a0:9/rpc' }, { url: 'http://u:second-pass-2222@a1:9/rpc' }],
        binding: 'JSONRPC',
      },
    },
  ]);
  config.state = {
    redis: {
      url: 'redis://:redis-pass-3333@redis:6379',
      keyPrefix: 'p:',
      rateLimitFailure: 'open',
      commandTimeoutMs: 1000,
    },
  };
  const m = maskedConfig(config) as any;
  const text = JSON.stringify(m);
  for (const secret of ['first-pass-1111', 'second-pass-2222', 'redis-pass-3333'])
    t.notOk(text.includes(secret), `${secret} masked`);
  t.equal(m.state.redis.url, 'redis://:REDACTED@redis:6379', 'the Redis URL readable');
  t.same(
    m.routes[0].upstream.endpoints.map((e: any) => e.url),
    ['http://u:REDACTED@a0:9/rpc', 'http://u:REDACTED@a1:9/rpc'],
    'each endpoint readable',
  );
});

t.test('masked config: a Redis password with a stray % is masked as written, the config still shown', async (t) => {
  const config = gatewayConfig([{ name: 'r', upstream: { url: 'http://a0:9/rpc', binding: 'JSONRPC' } }]);
  config.state = {
    redis: {
      url: 'redis://:bad%zz-pass-4444@redis:6379',
      keyPrefix: 'p:',
      rateLimitFailure: 'open',
      commandTimeoutMs: 1,
    },
  };
  const text = JSON.stringify(maskedConfig(config));
  t.notOk(text.includes('bad%zz-pass-4444'), 'masked');
});

t.test('masked config: a password in a URL query (ioredis reads ?password=), a token of an endpoint', async (t) => {
  const config = gatewayConfig([
    {
      name: 'q',
      upstream: {
        endpoints: [{ url: 'http://a0:9/rpc?access_token=endpoint-token-6666&v=2' }, { url: 'http://a1:9/rpc' }],
        binding: 'JSONRPC',
      },
    },
  ]);
  config.state = {
    redis: {
      url: 'redis://redis:6379/0?username=gateway&password=query-pass-5555&sentinelPassword=sentinel-pass-7777',
      keyPrefix: 'p:',
      rateLimitFailure: 'open',
      commandTimeoutMs: 1000,
    },
  };
  const m = maskedConfig(config) as any;
  const text = JSON.stringify(m);
  for (const secret of ['query-pass-5555', 'sentinel-pass-7777', 'endpoint-token-6666'])
    t.notOk(text.includes(secret), `${secret} masked`);
  t.equal(
    m.state.redis.url,
    'redis://redis:6379/0?username=gateway&password=[REDACTED]&sentinelPassword=[REDACTED]',
    'the Redis URL readable: the user name kept (it names the account, as in the userinfo)',
  );
  t.equal(
    m.routes[0].upstream.endpoints[0].url,
    'http://a0:9/rpc?access_token=[REDACTED]&v=2',
    'other parameters kept',
  );
  t.equal(
    withoutSecrets('NOAUTH: query-pass-5555 refused; p%20q', config),
    'NOAUTH: [REDACTED] refused; p%20q',
    'the value is a secret elsewhere too',
  );
  t.equal(maskUrl('redis://redis:6379/?password=a%20b%26c'), 'redis://redis:6379/?password=[REDACTED]', 'as written');
  t.equal(maskUrl('http://a/p?q=1&monkey=2'), 'http://a/p?q=1&monkey=2', 'a URL without credentials as it is');
  for (const name of ['access_key', 'secretKey', 'sig', 'x-amz-signature', 'auth', 'apikey', 'client_credential']) {
    t.equal(maskUrl(`http://a/p?${name}=v1&v=2`), `http://a/p?${name}=[REDACTED]&v=2`, `${name} masked`);
  }
});

t.test('the last errors: newest first, OK calls left out, bounded', async (t) => {
  const ring = new RecentErrors(3);
  ring.record(line({ requestId: 'ok' }));
  for (let i = 1; i <= 5; i++)
    ring.record(line({ requestId: `e${i}`, outcome: 'UPSTREAM_UNAVAILABLE', error: 'down' }));
  t.same(
    ring.list().map((e) => e.requestId),
    ['e5', 'e4', 'e3'],
  );
  t.match(ring.list()[0], { outcome: 'UPSTREAM_UNAVAILABLE', error: 'down', route: 'a' });
});

t.test('endpoint health from call outcomes and the card status', async (t) => {
  const config = gatewayConfig([
    { name: 'a', match: { pathPrefix: '/a' }, upstream: { url: 'http://127.0.0.1:9/a', binding: 'JSONRPC' } },
  ]);
  let card = { ready: true } as { ready: boolean; reason?: string };
  const health = new EndpointHealth(() => card, config.routes);
  const route = config.routes[0]!;
  t.match(health.endpoints(route), [{ url: 'http://127.0.0.1:9/a', health: 'unknown' }], 'no call yet');
  health.record(line({ outcome: 'OK' }));
  t.match(health.endpoints(route), [{ health: 'healthy' }], 'an answer');
  health.record(line({ outcome: 'UPSTREAM_TIMEOUT' }));
  health.record(line({ outcome: 'UNAUTHENTICATED', upstream: null }));
  t.match(
    health.endpoints(route),
    [{ health: 'healthy' }],
    'timeouts and calls refused before the upstream change nothing',
  );
  health.record(line({ outcome: 'UPSTREAM_UNAVAILABLE', error: 'upstream unreachable (ECONNREFUSED)' }));
  t.match(health.endpoints(route), [{ health: 'unhealthy', reason: /ECONNREFUSED/ }], 'a refused connection');
  health.record(line({ outcome: 'TASK_NOT_FOUND' }));
  t.match(health.endpoints(route), [{ health: 'healthy' }], "the agent's own error: it answers");
  card = { ready: false, reason: 'cannot read the card' };
  t.match(health.endpoints(route), [{ health: 'unhealthy', reason: 'cannot read the card' }], 'no card');
  card = { ready: true };
  health.record(line({ outcome: 'UPSTREAM_UNAVAILABLE' }));
  const moved = gatewayConfig([
    { name: 'a', match: { pathPrefix: '/a' }, upstream: { url: 'http://127.0.0.1:10/a', binding: 'JSONRPC' } },
  ]);
  health.retain(moved.routes);
  t.match(health.endpoints(moved.routes[0]!), [{ health: 'unknown' }], 'a reload to another URL starts afresh');
});

t.test('traffic: rates, errors and latency per route and binding pair', async (t) => {
  const metrics = new Metrics();
  const sampler = new TrafficSampler(metrics.registry, 1000);
  await sampler.sample();
  metrics.call('a', 'SendMessage', 'JSONRPC', 'GRPC', 'OK', 0.004);
  metrics.call('a', 'SendMessage', 'JSONRPC', 'GRPC', 'OK', 0.004);
  metrics.call('a', 'SendMessage', 'HTTP+JSON', 'GRPC', 'UPSTREAM_UNAVAILABLE', 0.2);
  metrics.call('-', 'unknown', 'HTTP+JSON', '-', 'METHOD_NOT_FOUND', 0.001);
  await sampler.sample();
  const view = await sampler.view();
  t.same(
    view.pairs.map((p) => p.key),
    ['HTTP+JSON → -', 'HTTP+JSON → GRPC', 'JSONRPC → GRPC'],
  );
  const a = view.routes.find((r) => r.key === 'a')!;
  t.same(a.totals.calls, 3);
  t.same(a.totals.errors, 1);
  t.equal(a.points.length, 1, 'one interval sampled');
  const p = a.points[0]!;
  t.ok(p.rate > 0 && p.errorRate > 0 && p.errorRate < p.rate, 'calls and errors per second');
  t.ok(Math.abs(p.latencyMs! - 208 / 3) < 0.01, 'the mean over the interval');
  t.equal(p.p95Ms, 250, 'p95: the upper bound of its histogram bucket');
  await sampler.sample();
  const idle = (await sampler.view()).routes.find((r) => r.key === 'a')!.points[1]!;
  t.match(idle, { rate: 0, errorRate: 0, latencyMs: null, p95Ms: null }, 'an idle interval');
});

t.test('endpoint health of a route with several endpoints: the directory’s verdict per endpoint', async (t) => {
  const config = gatewayConfig([
    {
      name: 'replicas',
      upstream: {
        endpoints: [
          { url: 'http://u:pw-0000@a0:9/rpc', name: 'a0' },
          { url: 'http://a1:9/rpc', name: 'a1' },
        ],
        binding: 'JSONRPC',
      },
    },
  ]);
  const route = config.routes[0]!;
  const reports: EndpointReport[] = [
    { name: 'a0', status: 'ejected', activeRequests: 0, ejections: 1, reason: 'connection refused' },
    { name: 'a1', status: 'healthy', activeRequests: 2, ejections: 0 },
  ];
  const health = new EndpointHealth(
    () => ({ ready: true }),
    config.routes,
    () => reports,
  );
  health.record(line({ route: 'replicas', outcome: 'OK' }));
  t.same(
    health.endpoints(route).map((e) => [e.name, e.url, e.health, e.reason]),
    [
      ['a0', 'http://u:REDACTED@a0:9/rpc', 'unhealthy', 'ejected: connection refused'],
      ['a1', 'http://a1:9/rpc', 'healthy', '2 calls in flight'],
    ],
  );
});
