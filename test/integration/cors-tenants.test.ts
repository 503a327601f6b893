// CORS where routes share a path prefix and differ by tenant: a route's CORS
// rules never open another route of the prefix. At the root, `public` allows
// https://evil.example with credentials and `private` (an API key in a
// cookie) has no `cors`: a REST preflight, REST calls and a JSON-RPC call to
// `private` carry no allow headers, `public` still gets them for its own
// tenant, a JSON-RPC preflight (its tenant is in the body) is refused while one
// route of the prefix has no rule, and an answer given before any route was
// chosen carries none. Under /both, where every route has a rule, a JSON-RPC
// preflight allows only what all of them allow. Raw HTTP on the wire.
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { CATALOGUE } from '../../src/errors/catalogue.js';
import { startGateway } from '../../src/server/gateway.js';
import { gatewayConfig } from '../helpers/harness.js';

const EVIL = 'https://evil.example';
const APP = 'https://app.example';
const KEY = 'private-key-long-enough';
const COOKIE = `session=${KEY}`;
const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
const upstream = { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const, tenant: 'clear' as const };
const gw = await startGateway(
  gatewayConfig([
    {
      name: 'public',
      match: { tenant: 'public' },
      upstream,
      cors: { allowOrigins: [EVIL], allowCredentials: true },
    },
    {
      name: 'private',
      match: { tenant: 'private' },
      upstream,
      auth: { apiKey: { in: 'cookie', name: 'session', keys: [{ id: 'owner', key: KEY }] } },
    },
    {
      name: 'both-a',
      match: { pathPrefix: '/both', tenant: 'a' },
      upstream,
      cors: { allowOrigins: [APP, EVIL], allowCredentials: true, allowHeaders: ['x-a', 'x-shared'], maxAgeSeconds: 60 },
    },
    {
      name: 'both-b',
      match: { pathPrefix: '/both', tenant: 'b' },
      upstream,
      cors: { allowOrigins: [APP], allowHeaders: ['x-shared'], maxAgeSeconds: 30 },
    },
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  await gw.close();
  await agent.close();
});

interface Seen {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** `body`: sent as JSON (a string as it is). */
async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Seen> {
  const res = await request(`${gw.httpUrl}${path}`, {
    method: method as 'GET',
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

const preflight = (path: string, origin: string, method = 'POST') =>
  call('OPTIONS', path, {
    origin,
    'access-control-request-method': method,
    'access-control-request-headers': 'a2a-version, content-type',
  });
const actual = (method: string, path: string, body?: unknown, origin = EVIL) =>
  call(method, path, { origin, cookie: COOKIE, 'a2a-version': '1.0' }, body);
const message = (text: string) => ({ message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } });
const rpc = (method: string, params: unknown, id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });

function closed(tt: Test, seen: Seen, what: string): void {
  tt.notOk(seen.headers['access-control-allow-origin'], `${what}: no Access-Control-Allow-Origin`);
  tt.notOk(seen.headers['access-control-allow-credentials'], `${what}: no Access-Control-Allow-Credentials`);
}

t.test('a route without cors is closed, whatever another route at its prefix allows', async (tt) => {
  const pf = await preflight('/private/message:send', EVIL);
  tt.not(pf.status, 204, 'the REST preflight to the private tenant is refused');
  closed(tt, pf, 'OPTIONS /private/message:send');

  const sent = await actual('POST', '/private/message:send', message('hello'));
  tt.equal(sent.status, 200, 'the private call itself is served (the cookie authenticates it)');
  closed(tt, sent, 'POST /private/message:send');

  const listed = await actual('GET', '/private/tasks');
  tt.equal(listed.status, 200, 'ListTasks of the private tenant is served');
  closed(tt, listed, 'GET /private/tasks');

  const viaRpc = await actual('POST', '/', rpc('ListTasks', { tenant: 'private' }));
  tt.equal(viaRpc.status, 200, 'JSON-RPC ListTasks of the private tenant is served');
  tt.ok(JSON.parse(viaRpc.body).result, 'with a result');
  closed(tt, viaRpc, 'JSON-RPC ListTasks tenant private');
});

t.test('the public route still allows its origin for its own tenant', async (tt) => {
  const pf = await preflight('/public/message:send', EVIL);
  tt.equal(pf.status, 204, 'the preflight to the public tenant: 204');
  tt.equal(pf.headers['access-control-allow-origin'], EVIL, 'the origin allowed');
  tt.equal(pf.headers['access-control-allow-credentials'], 'true', 'with credentials');

  const sent = await actual('POST', '/public/message:send', message('hello'));
  tt.equal(sent.status, 200, 'the public call is served');
  tt.equal(sent.headers['access-control-allow-origin'], EVIL, 'its answer allows the origin');
  tt.equal(sent.headers['access-control-allow-credentials'], 'true', 'with credentials');
  tt.match(String(sent.headers['access-control-expose-headers']), /x-request-id/, 'and exposes X-Request-Id');

  const viaRpc = await actual('POST', '/', rpc('SendMessage', { tenant: 'public', ...message('rpc') }));
  tt.equal(viaRpc.status, 200, 'JSON-RPC SendMessage to the public tenant is served');
  tt.equal(viaRpc.headers['access-control-allow-origin'], EVIL, 'its answer allows the origin');

  const other = await call('POST', '/public/message:send', { origin: APP, 'a2a-version': '1.0' }, message('x'));
  closed(tt, other, 'an origin the public route does not list');
});

t.test('a JSON-RPC batch across both tenants carries only what both routes allow', async (tt) => {
  const batch = await actual('POST', '/', [
    rpc('ListTasks', { tenant: 'public' }, 1),
    rpc('ListTasks', { tenant: 'private' }, 2),
  ]);
  tt.equal(batch.status, 200, 'the batch is answered');
  closed(tt, batch, 'a batch with a private item');
});

t.test('a JSON-RPC preflight speaks for every route its call could reach', async (tt) => {
  const root = await preflight('/', EVIL);
  tt.not(root.status, 204, 'at the root, where one route has no cors: refused');
  closed(tt, root, 'OPTIONS / (JSON-RPC)');

  const both = await preflight('/both', APP);
  tt.equal(both.status, 204, 'under /both, where every route allows the origin: 204');
  tt.equal(both.headers['access-control-allow-origin'], APP, 'the origin allowed');
  tt.notOk(both.headers['access-control-allow-credentials'], 'no credentials: one route does not allow them');
  const allowed = String(both.headers['access-control-allow-headers']).split(', ');
  tt.ok(allowed.includes('x-shared'), 'a header every route allows');
  tt.notOk(allowed.includes('x-a'), 'not a header only one route allows');
  tt.equal(both.headers['access-control-max-age'], '30', 'cached no longer than any route allows');

  const oneOnly = await preflight('/both', EVIL);
  tt.not(oneOnly.status, 204, 'an origin only one route allows: refused');
  closed(tt, oneOnly, 'OPTIONS /both from an origin of one route');

  const tenantA = await preflight('/both/a/message:send', EVIL);
  tt.equal(tenantA.status, 204, "a REST preflight names its tenant: that route's rules");
  tt.equal(tenantA.headers['access-control-allow-credentials'], 'true', 'its credentials');
  tt.ok(String(tenantA.headers['access-control-allow-headers']).split(', ').includes('x-a'), 'its headers');
  tt.equal(tenantA.headers['access-control-max-age'], '60', 'its cache time');
});

t.test('an answer before any route was chosen carries no CORS headers', async (tt) => {
  const broken = await actual('POST', '/', '{"jsonrpc": "2.0", ');
  tt.match(JSON.parse(broken.body), { error: { code: -32700 } }, 'a JSON-RPC body that does not parse: ParseError');
  closed(tt, broken, 'a JSON-RPC parse error');

  const v03 = await actual('POST', '/', rpc('message/send', message('x')));
  tt.match(
    JSON.parse(v03.body),
    { error: { code: CATALOGUE.NO_ROUTE.jsonRpc } },
    `a 0.3 call names no tenant: no route (${CATALOGUE.NO_ROUTE.jsonRpc})`,
  );
  closed(tt, v03, 'a JSON-RPC call no route serves');

  const nobody = await actual('POST', '/nobody/message:send', message('x'));
  tt.equal(nobody.status, 404, 'a tenant no route serves: NO_ROUTE');
  closed(tt, nobody, 'NO_ROUTE');

  const noOperation = await actual('GET', '/public/nothing-here');
  tt.ok(noOperation.status >= 400, 'no A2A operation at the path');
  closed(tt, noOperation, 'METHOD_NOT_FOUND before routing');
});
