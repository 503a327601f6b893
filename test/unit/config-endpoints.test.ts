// Config of several endpoints per route and of shared state (issue 14): the
// typed form with its defaults, and each semantic problem with its place.
import t from 'tap';
import { ConfigError, parseConfig } from '../../src/config/load.js';
import { configFromArgs } from '../../src/cli/main.js';

function problems(yaml: string): string[] {
  try {
    parseConfig(yaml, 'c.yaml');
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
}

t.test('endpoints with their defaults; the one-url form is one endpoint', async (tt) => {
  const cfg = parseConfig(
    [
      'state: { redis: { url: "redis://127.0.0.1:6379" } }',
      'routes:',
      '  - name: a',
      '    upstream:',
      '      binding: JSONRPC',
      '      endpoints: [{ url: "http://a1:1/rpc" }, { url: "http://a2:1/rpc", weight: 3, name: two }]',
      '  - { name: b, match: { pathPrefix: /b }, upstream: { url: "http://b:1/rpc", binding: JSONRPC } }',
    ].join('\n'),
    'c.yaml',
  );
  const [a, b] = cfg.routes;
  tt.same(a!.upstream.endpoints, [
    { url: 'http://a1:1/rpc', weight: 1, name: 'endpoint-0' },
    { url: 'http://a2:1/rpc', weight: 3, name: 'two' },
  ]);
  tt.equal(a!.upstream.url, 'http://a1:1/rpc', 'url is the first endpoint');
  tt.same(a!.upstream.healthCheck, { intervalMs: 5000, timeoutMs: 2000, unhealthyThreshold: 2, healthyThreshold: 1 });
  tt.equal(a!.upstream.loadBalancing, 'least-request');
  tt.equal(a!.upstream.sharedTaskStore, false);
  tt.equal(b!.upstream.healthCheck, undefined, 'no active checks for one endpoint');
  tt.same(b!.upstream.endpoints, [{ url: 'http://b:1/rpc', weight: 1, name: 'endpoint-0' }]);
  tt.same(cfg.state, {
    redis: {
      url: 'redis://127.0.0.1:6379',
      keyPrefix: 'a2a-gateway:',
      rateLimitFailure: 'open',
      commandTimeoutMs: 1000,
    },
  });
});

t.test('healthCheck: true is the checks with their defaults, for one endpoint too', async (tt) => {
  const cfg = parseConfig(
    'routes:\n  - { name: a, upstream: { url: "http://a:1/rpc", binding: JSONRPC, healthCheck: true } }',
    'c.yaml',
  );
  tt.same(cfg.routes[0]!.upstream.healthCheck, {
    intervalMs: 5000,
    timeoutMs: 2000,
    unhealthyThreshold: 2,
    healthyThreshold: 1,
  });
});

t.test('semantic problems of endpoints', async (tt) => {
  tt.same(problems('routes:\n  - { name: a, upstream: { binding: JSONRPC } }'), [
    'c.yaml:2:26: routes[0].upstream: give exactly one of url and endpoints',
  ]);
  tt.match(
    problems('routes:\n  - { name: a, upstream: { url: "http://x:1/", endpoints: [{ url: "http://y:1/" }] } }'),
    [/give exactly one of url and endpoints/],
  );
  tt.match(
    problems(
      'routes:\n  - { name: a, upstream: { binding: GRPC, endpoints: [{ url: "h:1" }, { url: "http://h:2/" }] } }',
    ),
    [/routes\[0\]\.upstream\.endpoints\[1\]\.url: must be host:port/],
  );
  tt.match(
    problems('routes:\n  - { name: a, upstream: { endpoints: [{ url: "https://h:1/" }, { url: "http://h:2/" }] } }'),
    [/endpoints\[1\]\.url: every endpoint of a route uses TLS, or none does/],
  );
  tt.match(
    problems(
      'routes:\n  - { name: a, upstream: { endpoints: [{ url: "http://h:1/", name: x }, { url: "http://h:1/", name: x }] } }',
    ),
    [/endpoints\[1\]\.url: "http:\/\/h:1\/" is listed twice/, /endpoints\[1\]\.name: duplicate endpoint name "x"/],
  );
  tt.match(
    problems(
      'routes:\n  - { name: a, passThrough: true, upstream: { binding: JSONRPC, endpoints: [{ url: "http://h:1/" }, { url: "http://h:2/" }] } }',
    ),
    [/a pass-through route forwards calls unread.*sharedTaskStore: true/],
  );
  tt.same(
    problems(
      'routes:\n  - { name: a, passThrough: true, upstream: { binding: JSONRPC, sharedTaskStore: true, endpoints: [{ url: "http://h:1/" }, { url: "http://h:2/" }] } }',
    ),
    [],
    'pass-through over replicas that share a task store',
  );
  tt.match(
    problems(
      'routes:\n  - { name: a, upstream: { url: "http://h:1/", outlierDetection: { baseEjectionMs: 10, maxEjectionMs: 5 }, healthCheck: { intervalMs: 100, timeoutMs: 200 } } }',
    ),
    [/maxEjectionMs is shorter than baseEjectionMs/, /timeoutMs is longer than intervalMs/],
  );
  tt.match(
    problems('state: { redis: { url: "http://x" } }\nroutes:\n  - { name: a, upstream: { url: "http://h:1/" } }'),
    [/state\.redis\.url: must match pattern/],
  );
});

t.test('the quick start: --upstream repeated for replicas, --redis for shared state', async (tt) => {
  const { config } = await configFromArgs([
    '--upstream',
    'http://127.0.0.1:1',
    '--upstream',
    'http://127.0.0.1:2',
    '--redis',
    'redis://127.0.0.1:6379/0',
  ]);
  tt.same(
    config!.routes[0]!.upstream.endpoints.map((e) => e.url),
    ['http://127.0.0.1:1', 'http://127.0.0.1:2'],
  );
  tt.equal(config!.state?.redis.url, 'redis://127.0.0.1:6379/0');
  await tt.rejects(configFromArgs(['--upstream', 'http://127.0.0.1:1', '--redis', 'localhost:6379']), {
    message: /^invalid configuration/,
    problems: [/--redis: "localhost:6379" is not a redis:\/\/ or rediss:\/\/ URL/],
  });
});
