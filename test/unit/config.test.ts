// Config validation with golden files: good files parse into the typed form,
// bad files fail with every problem as file:line:column: field: message
// (test/fixtures/config/*.expected). A trustedProxies entry the checks pass
// is one the card's trust list takes (bad-proxies.yaml: what they refuse).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { trustList } from '../../src/card/public-address.js';
import { trustedProxyProblems } from '../../src/config/checks.js';
import { ConfigError, loadConfigFile, parseConfig } from '../../src/config/load.js';

const DIR = new URL('../fixtures/config/', import.meta.url).pathname;

t.test('a full config in its typed form', async (tt) => {
  const cfg = loadConfigFile(join(DIR, 'good-full.yaml'));
  tt.same([cfg.host, cfg.httpPort, cfg.grpcPort, cfg.logLevel], ['127.0.0.1', 8080, 50051, 'warn']);
  tt.equal(cfg.publicHttpUrl, 'https://agents.example.com', 'trailing slash dropped');
  tt.same(cfg.trustedProxies, ['127.0.0.1', '10.0.0.0/8']);
  const [billing, search] = cfg.routes;
  tt.same(billing, {
    name: 'billing',
    pathPrefix: '/billing',
    hosts: ['billing.example.com'],
    tenant: 'acme',
    upstream: {
      url: 'http://billing:9000/a2a/jsonrpc',
      tls: undefined,
      credentials: { mode: 'forward' },
      binding: 'JSONRPC',
      version: '1.0',
      tenant: { mode: 'set', value: 'internal' },
      allowedHosts: ['billing-2.internal'],
      allowPlaintextInterfaces: false,
      endpoints: [{ url: 'http://billing:9000/a2a/jsonrpc', weight: 1, name: 'endpoint-0' }],
      sharedTaskStore: false,
      loadBalancing: 'least-request',
      healthCheck: undefined,
      outlierDetection: {
        consecutiveFailures: 5,
        baseEjectionMs: 30000,
        maxEjectionMs: 300000,
        maxEjectionPercent: 10,
      },
      circuitBreaker: { maxConnections: 1024, maxPending: 1024 },
      affinityTtlSeconds: 86400,
    },
    card: {
      file: join(DIR, 'billing-card.json'),
      url: undefined,
      publicHttpUrl: 'https://billing.example.com/a2a',
      publicGrpcAddress: undefined,
      bindings: ['HTTP+JSON', 'JSONRPC'],
      overrides: { name: 'Billing (via gateway)' },
      maxAgeSeconds: 60,
      signatures: 'resign',
      signingKey: { file: join(DIR, 'keys/card.pem'), alg: 'ES256', kid: 'gw-1', jku: undefined },
      verifyJwksFile: undefined,
    },
    timeoutMs: 5000,
    streamIdleTimeoutMs: 60000,
    sseKeepAliveMs: 0,
    maxSseEventBytes: 65536,
    maxResponseBytes: 16777216,
    maxBodyBytes: 1024,
    maxStringLength: 1048576,
    forwardHeaders: ['x-request-id'],
    passThrough: false,
    versions: ['1.0', '0.3'],
    ssrfGuard: true,
    rateLimit: undefined,
    maxConcurrentStreams: undefined,
    auth: undefined,
  });
  tt.same(search?.upstream.tenant, { mode: 'clear' });
  tt.equal(search?.pathPrefix, '', 'the root prefix');
  const tls = join(DIR, '../tls');
  tt.same(
    cfg.tls,
    {
      cert: join(tls, 'server.pem'),
      key: join(tls, 'server-key.pem'),
      clientCa: join(tls, 'ca.pem'),
      requireClientCert: false,
    },
    'listener TLS, files resolved',
  );
  const secure = cfg.routes[2];
  tt.same(secure?.upstream.tls, {
    ca: join(tls, 'ca.pem'),
    cert: join(tls, 'client.pem'),
    key: join(tls, 'client-key.pem'),
    servername: 'agent.internal',
  });
  tt.same(secure?.upstream.credentials, { mode: 'set', header: 'authorization', value: 'Bearer for-the-agent' });
  tt.same(secure?.auth, {
    apiKey: { location: 'query', name: 'key', keys: [{ id: 'ops', key: 'a-long-enough-key' }] },
    jwt: {
      jwksUrl: undefined,
      jwksFile: join(DIR, 'jwks.json'),
      issuer: 'https://issuer.example',
      audience: 'gw',
      clockSkewSeconds: 5,
      requireExpiration: false,
      algorithms: ['ES256'],
    },
    mtls: true,
    advertise: false,
  });
  tt.same(search?.upstream.credentials, { mode: 'forward' }, 'forward by default without auth');
});

t.test(
  'upstream TLS from the URL scheme; credentials stripped by default when the gateway authenticates',
  async (tt) => {
    const cfg = parseConfig(
      [
        'routes:',
        '  - { name: a, upstream: { url: "https://agent:443/rpc", binding: JSONRPC }, auth: { apiKey: { name: k, keys: [{ id: x, key: "0123456789" }] } } }',
        '  - { name: b, match: { pathPrefix: /b }, upstream: { url: "grpcs://agent:443", binding: GRPC } }',
        '  - { name: c, match: { pathPrefix: /c }, upstream: { url: "agent:50051", binding: GRPC } }',
      ].join('\n'),
      'inline',
    );
    tt.same(
      cfg.routes.map((r) => r.upstream.tls),
      [
        { ca: undefined, cert: undefined, key: undefined, servername: undefined },
        { ca: undefined, cert: undefined, key: undefined, servername: undefined },
        undefined,
      ],
    );
    tt.same(cfg.routes[0]?.upstream.credentials, { mode: 'strip' });
    tt.same(cfg.routes[0]?.auth?.apiKey?.location, 'header', 'API keys travel in a header by default');
  },
);

t.test('defaults', async (tt) => {
  const cfg = loadConfigFile(join(DIR, 'good-minimal.yaml'));
  tt.same(
    [
      cfg.httpPort,
      cfg.grpcPort,
      cfg.routes[0]?.upstream.binding,
      cfg.routes[0]?.timeoutMs,
      cfg.routes[0]?.maxBodyBytes,
    ],
    [8080, 50051, 'auto', 30000, 10485760],
  );
  tt.same(cfg.routes[0]?.upstream.tenant, { mode: 'keep' });
});

for (const file of readdirSync(DIR).filter((f) => f.startsWith('bad-') && f.endsWith('.yaml'))) {
  t.test(`golden: ${file}`, async (tt) => {
    const expected = readFileSync(join(DIR, file.replace(/\.yaml$/, '.expected')), 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean);
    tt.not(expected.length, 0, 'the golden file lists the problems');
    let problems: string[] | undefined; // stays undefined, and unequal to the golden list, if it parses
    try {
      parseConfig(readFileSync(join(DIR, file), 'utf8'), file);
    } catch (e) {
      tt.ok(e instanceof ConfigError, 'a ConfigError');
      problems = (e as ConfigError).problems;
    }
    tt.same(problems, expected, 'exactly the expected problems');
  });
}

t.test('a missing file', async (tt) => {
  tt.throws(() => loadConfigFile(join(DIR, 'nope.yaml')), {
    message: /^invalid configuration/,
    problems: [/nope\.yaml: cannot read/],
  });
});

t.test('a trustedProxies entry the checks pass is one the trust list takes (no crash at start)', async (tt) => {
  const address = fc.oneof(fc.ipV4(), fc.ipV6(), fc.domain(), fc.constantFrom('[::1]', '300.1.1.1', ''));
  const prefix = fc.oneof(fc.integer({ min: -2, max: 140 }).map(String), fc.string({ maxLength: 4 }));
  const entry = fc.tuple(address, fc.option(prefix)).map(([a, p]) => (p === null ? a : `${a}/${p}`));
  fc.assert(
    fc.property(entry, (e) => {
      if (trustedProxyProblems([e]).length === 0) trustList([e]);
    }),
    { numRuns: 2000 },
  );
  for (const e of ['lb.internal', '10.0.0.0/40', 'fd00::/129'])
    tt.throws(() => trustList([e]), `${e}: the trust list throws, so the checks refuse it`);
  tt.same(trustedProxyProblems(['10.0.0.0/8', '10.1.2.3', '::1', 'fd00::/8', '::/0', '0.0.0.0/0']), [], 'these pass');
});
