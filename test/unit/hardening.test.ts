// The pieces of issue 12's hardening that are plain functions: the canonical
// form routing matches on (item 10), the Host check (item 12), the address
// scrubbing of answered errors (item 18), the body reader's limits (items 11,
// 15), and the config fields every added limit has, with their defaults.
import { PassThrough } from 'node:stream';
import t from 'tap';
import { parseConfig } from '../../src/config/load.js';
import { DEFAULT_LIMITS, limitsOf } from '../../src/config/types.js';
import { withoutAddresses } from '../../src/errors/addresses.js';
import { BodyRefused, readBody } from '../../src/http/body-reader.js';
import { canonicalPath, hasDotSegment, isAuthority, isUrlSafeTenant, prefixKey } from '../../src/routing/canonical.js';

t.test('the canonical path: unreserved escapes decoded, others upper-cased', async (tt) => {
  tt.equal(canonicalPath('/%73ecure/tasks/x'), '/secure/tasks/x');
  tt.equal(canonicalPath('/a%2fb/%7e%2D%5f'), '/a%2Fb/~-_');
  tt.equal(canonicalPath('/%zz/%'), '/%zz/%', 'malformed escapes are left as they are');
  tt.equal(prefixKey('/Billing/'), '/billing');
  tt.equal(prefixKey('/%42illing'), '/billing');
});

t.test('dot segments, however written', async (tt) => {
  for (const p of [
    '/..',
    '/a/../b',
    '/a/./b',
    '/a/.',
    '/a/..;x/b',
    canonicalPath('/a/%2e%2E/b'),
    canonicalPath('/.%2e'),
  ])
    tt.ok(hasDotSegment(p), `${p}: a dot segment`);
  for (const p of ['/a/...', '/a/..b', '/.well-known/agent-card.json', '/tasks/t.1', '/'])
    tt.notOk(hasDotSegment(p), `${p}: none`);
});

t.test('URL-safe tenants', async (tt) => {
  for (const ok of ['acme', 'ACME', 'a.b_c~d-e', 'x'.repeat(256)]) tt.ok(isUrlSafeTenant(ok), ok.slice(0, 20));
  for (const bad of ['acme ', 'a/b', '..', '.', 'a%20', '', 'é', 'x'.repeat(257)])
    tt.notOk(isUrlSafeTenant(bad), bad.slice(0, 20));
});

t.test('Host as an authority', async (tt) => {
  for (const ok of [
    'localhost',
    'localhost:8080',
    'a.example.com.',
    '127.0.0.1:1',
    '[::1]:443',
    '[2001:db8::1]',
    'x_y.internal',
  ])
    tt.ok(isAuthority(ok), ok);
  for (const bad of ['evil.example:443/phish?', 'a b', 'a@b', 'host:99999', 'host:', '[::1', 'a/b', '', 'évil.example'])
    tt.notOk(isAuthority(bad), bad);
});

t.test('addresses are taken out of answered text', async (tt) => {
  const cases: Array<[string, string]> = [
    ['connect ECONNREFUSED 10.0.3.7:9000', 'connect ECONNREFUSED <upstream>'],
    ['connect ECONNREFUSED [fd00::7]:50051', 'connect ECONNREFUSED <upstream>'],
    ['connect ECONNREFUSED ::1:80', 'connect ECONNREFUSED <upstream>'],
    ['getaddrinfo ENOTFOUND billing.internal', 'getaddrinfo ENOTFOUND <upstream>'],
    [
      'Name resolution failed for target dns:billing.internal:50051',
      'Name resolution failed for target dns:<upstream>',
    ],
    ['http://10.1.2.3:8080/.well-known/agent-card.json answered HTTP 500', '<upstream> answered HTTP 500'],
    ['JSONRPC at http://agent:9/rpc: host not allowed', 'JSONRPC at <upstream>: host not allowed'],
    ["Host: billing.internal. is not in the cert's altnames", "Host: <upstream> is not in the cert's altnames"],
    ['self-signed certificate in certificate chain', 'self-signed certificate in certificate chain'],
    ['upstream unreachable (ECONNREFUSED)', 'upstream unreachable (ECONNREFUSED)'],
    ['at 2026-01-01T10:30:00.000Z', 'at 2026-01-01T10:30:00.000Z'],
    // OpenSSL's codes are no host:port
    ['error:1E08010C:DECODER routines::unsupported', 'error:1E08010C:DECODER routines::unsupported'],
    [
      'error:0A000086:SSL routines::certificate verify failed',
      'error:0A000086:SSL routines::certificate verify failed',
    ],
    ['key error:1E08010C at agent.internal:8443', 'key error:1E08010C at <upstream>'],
  ];
  for (const [text, shown] of cases) tt.equal(withoutAddresses(text), shown, text);
});

t.test('the body reader: limit, discard, pause', async (tt) => {
  const feed = (chunks: string[]): PassThrough => {
    const s = new PassThrough();
    for (const c of chunks) s.write(c);
    s.end();
    return s;
  };
  tt.equal(
    (await readBody(feed(['ab', 'cd']), 4, { maxBytes: 4, idleMs: 1000 })).toString(),
    'abcd',
    'within the limit',
  );
  // a body of declared length is read into one buffer of that length; a body that does not match it is read whole
  tt.equal(
    (await readBody(feed(['ab', 'cd', 'ef']), 4, { maxBytes: 10, idleMs: 1000 })).toString(),
    'abcdef',
    'more than declared: all of it',
  );
  tt.equal(
    (await readBody(feed(['ab']), 4, { maxBytes: 10, idleMs: 1000 })).toString(),
    'ab',
    'less than declared: what came',
  );
  // chunks until a quarter of the declared length has come, then one buffer of that length
  tt.equal(
    (await readBody(feed(['a', 'b', 'cd', 'efgh', 'ijklmnop']), 16, { maxBytes: 100, idleMs: 1000 })).toString(),
    'abcdefghijklmnop',
    'across the quarter of the declared length',
  );
  tt.equal(
    (await readBody(feed(['a', 'bcdefgh', 'ijklmnopq']), 16, { maxBytes: 100, idleMs: 1000 })).toString(),
    'abcdefghijklmnopq',
    'past the declared length after its buffer was made',
  );
  // a declared length alone reserves no memory: 64 MiB declared, one byte sent
  const slow = new PassThrough();
  const before = process.memoryUsage().arrayBuffers;
  const reading = readBody(slow, 64 * 2 ** 20, { maxBytes: 128 * 2 ** 20, idleMs: 5000 });
  slow.write('x');
  await new Promise((r) => setImmediate(r));
  tt.ok(process.memoryUsage().arrayBuffers - before < 32 * 2 ** 20, 'no buffer of the declared length for one byte');
  slow.end();
  tt.equal((await reading).toString(), 'x', 'and the byte that came');
  tt.equal(
    ((await readBody(feed(['abc', 'def']), 4, { maxBytes: 4, idleMs: 1000 }).catch((e: unknown) => e)) as BodyRefused)
      .error.errorName,
    'PAYLOAD_TOO_LARGE',
    'more than declared and over the limit',
  );
  const over = await readBody(feed(['abc', 'def']), undefined, { maxBytes: 4, idleMs: 1000 }).catch((e: unknown) => e);
  tt.ok(over instanceof BodyRefused, 'over the limit');
  tt.same(
    [(over as BodyRefused).error.errorName, (over as BodyRefused).closeConnection],
    ['PAYLOAD_TOO_LARGE', false],
    'read to its end: the connection may stay',
  );
  const declared = await readBody(feed(['x']), 10, { maxBytes: 4, idleMs: 1000 }).catch((e: unknown) => e);
  tt.equal((declared as BodyRefused).error.errorName, 'PAYLOAD_TOO_LARGE', 'a declared length over the limit');
  const endless = new PassThrough();
  endless.write('0123456789');
  const lingering = await readBody(endless, undefined, { maxBytes: 4, idleMs: 1000, lingerMs: 20 }).catch(
    (e: unknown) => e,
  );
  tt.same(
    [(lingering as BodyRefused).error.errorName, (lingering as BodyRefused).closeConnection],
    ['PAYLOAD_TOO_LARGE', true],
    'discarded for lingerMs at most, then closed',
  );
  const stalled = new PassThrough();
  stalled.write('{');
  const paused = await readBody(stalled, 10, { maxBytes: 100, idleMs: 20 }).catch((e: unknown) => e);
  tt.same(
    [(paused as BodyRefused).error.errorName, (paused as BodyRefused).closeConnection],
    ['REQUEST_TIMEOUT', true],
    'a pause past idleMs',
  );
});

t.test('every added limit is a config field with a default', async (tt) => {
  const route = 'routes: [{ name: a, upstream: { url: "http://x:1" } }]';
  const defaults = parseConfig(route, 't.yaml');
  tt.same(limitsOf(defaults), DEFAULT_LIMITS);
  tt.same(DEFAULT_LIMITS, {
    maxBatchItems: 100,
    batchConcurrency: 8,
    upstreamConnections: 1024,
    upstreamStreams: 1024,
    bodyTimeoutMs: 60_000,
    headersTimeoutMs: 60_000,
    idleTimeoutMs: 75_000,
    grpcStreamsPerConnection: 2_147_483_647,
  });
  tt.equal(defaults.routes[0]!.maxResponseBytes, 16 * 1024 * 1024, 'maxResponseBytes: 16 MiB');
  tt.equal(defaults.routes[0]!.upstream.allowPlaintextInterfaces, false, 'no downgrade by default');
  const set = parseConfig(
    `limits: { maxBatchItems: 5, upstreamStreams: 10, idleTimeoutMs: 1000, grpcStreamsPerConnection: 20 }\nroutes: [{ name: a, upstream: { url: "http://x:1", allowPlaintextInterfaces: true }, maxResponseBytes: 1024 }]`,
    't.yaml',
  );
  tt.same(limitsOf(set), {
    ...DEFAULT_LIMITS,
    maxBatchItems: 5,
    upstreamStreams: 10,
    idleTimeoutMs: 1000,
    grpcStreamsPerConnection: 20,
  });
  tt.same([set.routes[0]!.maxResponseBytes, set.routes[0]!.upstream.allowPlaintextInterfaces], [1024, true]);
  tt.throws(() => parseConfig(`limits: { maxBatchItems: 0 }\n${route}`, 't.yaml'), /maxBatchItems/);
  tt.throws(() => parseConfig(`limits: { nope: 1 }\n${route}`, 't.yaml'), /unknown field "nope"/);
  tt.throws(
    () =>
      parseConfig('routes: [{ name: a, match: { tenant: "acme corp" }, upstream: { url: "http://x:1" } }]', 't.yaml'),
    /tenant/,
    'a route tenant must be URL-safe',
  );
});
