// The admin console's JSON API and pages over HTTP (issue 16), against a real
// gateway in front of the demo echo agent: every /admin/api endpoint; try-it
// over each binding, unary and streaming, through the public listener; the
// bad try-it requests refused; no configured secret (a route's API key, the
// credential it sets towards its agent, a password in an upstream URL) in
// any page or answer; hostile card text escaped under a strict CSP; nothing
// of the console on the public listener; and, through the real CLI, the
// config file's hash and the outcome of the last reload.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { configHash } from '../../src/ops/config-watch.js';
import { startGateway } from '../../src/server/gateway.js';
import { startGatewayProcess } from '../helpers/cli-process.js';
import { gatewayConfig } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

const API_KEY = 'console-test-api-key-7f3a';
const UPSTREAM_TOKEN = 'console-test-upstream-token-91c2';
const URL_PASSWORD = 'console-url-password-55d0';
const SECRETS = [API_KEY, UPSTREAM_TOKEN, URL_PASSWORD];
const HOSTILE = '<script>alert("card")</script><img src=x onerror="alert(1)">';

const agent = await startEchoAgent({ bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'] });
const dir = t.testdir({
  'hostile-card.json': JSON.stringify({
    name: HOSTILE,
    description: `desc ${HOSTILE}`,
    version: '1.0.0',
    supportedInterfaces: [{ url: agent.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: `skill ${HOSTILE}`, description: HOSTILE, tags: [HOSTILE] }],
  }),
});
const jsonRpcWithPassword = agent.jsonRpcUrl.replace('http://', `http://user:${URL_PASSWORD}@`);
/** The gateway's log lines (the admin listener logs through it). */
const logged: Array<Record<string, unknown>> = [];
const gw = await startGateway(
  gatewayConfig(
    [
      {
        name: 'keyed',
        match: { pathPrefix: '/keyed', tenant: 'keyed' },
        upstream: {
          url: agent.restUrl,
          binding: 'HTTP+JSON',
          tenant: 'clear',
          credentials: { header: 'authorization', value: `Bearer ${UPSTREAM_TOKEN}` },
        },
        auth: { apiKey: { name: 'x-api-key', keys: [{ id: 'ops-team', key: API_KEY }] } },
      },
      {
        name: 'grpc',
        match: { pathPrefix: '/grpc', tenant: 'grpc' },
        upstream: { url: agent.urlFor('GRPC'), binding: 'GRPC', tenant: 'clear' },
        card: { url: `${agent.httpUrl}/.well-known/agent-card.json` },
      },
      {
        name: 'hostile',
        match: { pathPrefix: '/hostile' },
        upstream: { url: jsonRpcWithPassword, binding: 'JSONRPC' },
        card: { file: join(dir, 'hostile-card.json') },
      },
    ],
    { admin: { host: '127.0.0.1', port: 0, allowedHosts: ['console.example'] } },
  ),
  pino({ level: 'info' }, { write: (l: string) => void logged.push(JSON.parse(l) as Record<string, unknown>) }),
);
const admin = gw.adminUrl!;
t.teardown(async () => {
  await gw.close();
  await agent.close();
});

async function get(url: string): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  const res = await request(url);
  return { status: res.statusCode, text: await res.body.text(), headers: res.headers };
}
const getJson = async (path: string): Promise<any> => JSON.parse((await get(`${admin}${path}`)).text);

interface TryFrame {
  type: string;
  [k: string]: any;
}
async function tryIt(
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; frames: TryFrame[]; text: string }> {
  const res = await request(`${admin}/admin/api/try`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  const frames = res.headers['content-type']?.toString().startsWith('text/event-stream')
    ? text
        .split('\n\n')
        .filter((f) => f.includes('data: '))
        .map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)) as TryFrame)
    : [];
  return { status: res.statusCode, frames, text };
}

t.test('GET /admin/api/routes: match, upstream, endpoints, bindings, auth by key id, served card', async (t) => {
  const { routes } = await getJson('/admin/api/routes');
  t.same(
    routes.map((r: any) => r.name),
    ['keyed', 'grpc', 'hostile'],
    'every configured route, in config order',
  );
  const keyed = routes[0];
  t.same(keyed.match, { hosts: [], pathPrefix: '/keyed', tenant: 'keyed' }, 'the match');
  t.match(keyed.upstream, { binding: 'HTTP+JSON', credentials: 'set (header authorization)', tenant: 'clear' });
  t.same(keyed.auth, { modes: ['apiKey'], apiKey: { location: 'header', name: 'x-api-key', keyIds: ['ops-team'] } });
  t.same(keyed.bindings, ['JSONRPC', 'HTTP+JSON', 'GRPC'], 'a tenant route serves every binding');
  t.equal(keyed.endpoints.length, 1, 'one endpoint per route today');
  t.equal(keyed.endpoints[0].url, agent.restUrl, "the endpoint is the route's upstream URL");
  t.equal(keyed.card.served.name, 'Echo Agent', 'the served card');
  t.match(keyed.card.served.supportedInterfaces[0].url, gw.httpUrl, "the card names the gateway's addresses");
  t.equal(routes[2].endpoints[0].url.includes('REDACTED'), true, 'a URL password masked');
});

t.test('POST /admin/api/try over each binding: the echo answer, and a stream with its events', async (t) => {
  for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC']) {
    const unary = await tryIt({ route: 'keyed', binding, text: 'hello', headers: { 'x-api-key': API_KEY } });
    t.equal(unary.status, 200, `${binding}: 200`);
    const types = unary.frames.map((f) => f.type);
    t.same(types, ['request', 'status', 'event', 'done'], `${binding}: request, status, answer, done`);
    t.match(JSON.stringify(unary.frames[2]!.data), /echo: hello/, `${binding}: the echo answer`);
    const shown = unary.frames[0]!.shown.map((s: any) => s.text).join('\n');
    t.match(shown, binding === 'GRPC' ? /^grpcurl -plaintext/ : /^curl -X POST/, `${binding}: the command shown`);
    t.match(shown, /x-api-key: \[REDACTED\]/, `${binding}: the typed header masked in what is shown`);
    t.notMatch(unary.text, API_KEY, `${binding}: the key never echoed`);

    const stream = await tryIt({ route: 'grpc', binding, stream: true, text: 'stream' });
    const events = stream.frames.filter((f) => f.type === 'event').map((f) => Object.keys(f.data)[0]);
    t.same(
      events,
      ['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate'],
      `${binding}: every stream event, in order`,
    );
    t.equal(stream.frames.at(-1)!.type, 'done', `${binding}: then done`);
  }
  const refused = await tryIt({ route: 'keyed', binding: 'JSONRPC', text: 'hello' });
  t.match(refused.frames[2], { type: 'error', data: { code: -32055 } }, "no API key: the gateway's own refusal shown");
});

t.test('POST /admin/api/try refuses bad requests', async (t) => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['an unknown route', { route: 'nope', binding: 'JSONRPC', text: 'x' }, /no route named "nope"/],
    ['an unknown binding', { route: 'keyed', binding: 'SOAP', text: 'x' }, /binding must be one of/],
    ['a binding the route does not serve', { route: 'hostile', binding: 'GRPC', text: 'x' }, /does not serve GRPC/],
    ['no text', { route: 'keyed', binding: 'JSONRPC' }, /text must be/],
    ['stream not a boolean', { route: 'keyed', binding: 'JSONRPC', text: 'x', stream: 'yes' }, /stream must be/],
    ['a Host header', { route: 'keyed', binding: 'JSONRPC', text: 'x', headers: { Host: 'evil' } }, /cannot be set/],
    [
      'a header with a newline',
      { route: 'keyed', binding: 'JSONRPC', text: 'x', headers: { a: 'b\r\nc: d' } },
      /bad value/,
    ],
    [
      'a connection-specific header',
      { route: 'keyed', binding: 'GRPC', text: 'x', headers: { 'Keep-Alive': '5' } },
      /cannot be set/,
    ],
    [
      'gRPC metadata not printable ASCII',
      { route: 'keyed', binding: 'GRPC', text: 'x', headers: { 'x-key': 'clé' } },
      /printable ASCII/,
    ],
    [
      'binary gRPC metadata',
      { route: 'keyed', binding: 'GRPC', text: 'x', headers: { 'x-key-bin': 'AAAA' } },
      /binary metadata cannot be set/,
    ],
    [
      'gRPC metadata ending with a space',
      { route: 'keyed', binding: 'GRPC', text: 'x', headers: { 'x-key': 'secret ' } },
      /start or end with a space/,
    ],
    [
      "a grpc- key (gRPC's own)",
      { route: 'keyed', binding: 'GRPC', text: 'x', headers: { 'grpc-timeout': '1S' } },
      /gRPC’s own/,
    ],
    [
      'an Expect header',
      { route: 'keyed', binding: 'JSONRPC', text: 'x', headers: { Expect: '100-continue' } },
      /cannot be set/,
    ],
    ['not an object', ['keyed'], /expected a JSON object/],
  ];
  for (const [what, body, message] of cases) {
    const r = await tryIt(body);
    t.equal(r.status, 400, `${what}: 400`);
    // (a call made instead is an event stream: one case that fails must not hide the rest)
    t.match(r.status === 400 ? JSON.parse(r.text).error : r.text, message, `${what}: says why`);
  }
  const named = await tryIt({ route: 'keyed', binding: 'GRPC', text: 'x', headers: { 'x_trace.id': 'a' } });
  t.equal(named.status, 200, 'a key with _ and . (gRPC metadata and HTTP allow both): the call is made');
  const other = await tryIt({ route: 'keyed', binding: 'JSONRPC', text: 'x' }, { origin: 'https://evil.example' });
  t.equal(other.status, 403, 'a page of another origin: 403');
  const form = await request(`${admin}/admin/api/try`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: '{"route":"keyed","binding":"JSONRPC","text":"x"}',
  });
  await form.body.dump();
  t.equal(form.statusCode, 415, 'a simple (form-like) request: 415, no call made');
});

t.test("what fastify answers itself under /admin is the console's: its headers and its error form", async (t) => {
  const missing = await request(`${admin}/admin/api/nope`);
  t.equal(missing.statusCode, 404);
  t.match(missing.headers['content-security-policy'], /default-src 'none'/, 'a 404: the CSP');
  t.equal(missing.headers['x-frame-options'], 'DENY');
  t.match(await missing.body.json(), { error: /no console page or API at GET \/admin\/api\/nope/ });
  const garbled = await request(`${admin}/admin/api/try`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: admin },
    body: '{"route":',
  });
  t.equal(garbled.statusCode, 400);
  t.match(garbled.headers['content-security-policy'], /default-src 'none'/, 'a body fastify cannot parse: the CSP');
  const body = (await garbled.body.json()) as Record<string, unknown>;
  t.same(Object.keys(body), ['error'], 'and the {"error": …} form');
  t.ok(
    logged.some((l) => l.msg === 'admin console request refused'),
    "logged, as fastify's own handler logs it",
  );
  const other = await request(`${admin}/nope`);
  t.equal(other.statusCode, 404, 'outside /admin: a 404 as before');
  await other.body.dump();
});

t.test('GET /admin/api/errors: the last errors with their request ids', async (t) => {
  const res = await request(`${gw.httpUrl}/keyed/keyed/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-request-id': 'console-error-1' },
    body: JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } }),
  });
  await res.body.dump();
  t.equal(res.statusCode, 401, 'refused without the key');
  const found = await waitFor(async () => {
    const { errors } = await getJson('/admin/api/errors');
    return errors.find((e: any) => e.requestId === 'console-error-1');
  }, 'the refusal in the last errors');
  t.match(found, { route: 'keyed', inbound: 'HTTP+JSON', outcome: 'UNAUTHENTICATED', status: 401 });
});

t.test('GET /admin/api/traffic: totals per route and per binding pair', async (t) => {
  await tryIt({ route: 'grpc', binding: 'JSONRPC', text: 'hello' });
  const view = await waitFor(async () => {
    const v = await getJson('/admin/api/traffic');
    return v.pairs.some((p: any) => p.key === 'JSONRPC → GRPC') ? v : undefined;
  }, 'the JSONRPC → GRPC pair');
  t.equal(view.intervalSeconds, 5, 'sampled every 5 s by default');
  t.same(
    view.routes.map((r: any) => r.key).filter((k: string) => k !== '-'),
    ['grpc', 'hostile', 'keyed'],
    'every configured route listed, traffic or not',
  );
  const grpc = view.routes.find((r: any) => r.key === 'grpc');
  t.ok(grpc.totals.calls >= 1, 'calls counted');
  t.ok(grpc.totals.meanLatencyMs > 0, 'a mean latency');
  t.equal(view.routes.find((r: any) => r.key === 'hostile').totals.calls, 0, 'a route without calls: zero');
});

t.test('no configured secret in any page or answer of the console', async (t) => {
  const config = await getJson('/admin/api/config');
  t.equal(config.config.routes[0].auth.apiKey.keys[0].key, '[REDACTED]', 'the API key masked');
  t.equal(config.config.routes[0].upstream.credentials.value, '[REDACTED]', 'the upstream credential masked');
  t.equal(config.config.routes[0].auth.apiKey.keys[0].id, 'ops-team', 'the key id kept');
  for (const path of [
    '/admin/routes',
    '/admin/traffic',
    '/admin/try',
    '/admin/config',
    '/admin/api/routes',
    '/admin/api/traffic',
    '/admin/api/errors',
    '/admin/api/config',
  ]) {
    const r = await get(`${admin}${path}`);
    t.equal(r.status, 200, `${path}: 200`);
    for (const s of SECRETS) t.notOk(r.text.includes(s), `${path}: no secret ${s.slice(0, 18)}…`);
  }
});

t.test('hostile card text is escaped, under a strict Content-Security-Policy', async (t) => {
  const page = await get(`${admin}/admin/routes`);
  t.notOk(page.text.includes('<script>alert'), 'no script from the card');
  t.notOk(page.text.includes('<img src=x'), 'no markup from the card');
  t.ok(page.text.includes('&lt;script&gt;alert(&quot;card&quot;)&lt;/script&gt;'), 'the card name shown as text');
  const csp = String(page.headers['content-security-policy']);
  t.match(csp, /default-src 'none'/, 'CSP: nothing by default');
  t.match(csp, /script-src 'self'(;|$)/, 'CSP: scripts from the console only, none inline');
  t.equal(page.headers['x-content-type-options'], 'nosniff');
  const js = await get(`${admin}/admin/assets/console.js`);
  t.equal(js.status, 200, 'the script is served by the gateway (no CDN)');
  t.match(String(js.headers['content-type']), /^text\/javascript/);
  const css = await get(`${admin}/admin/assets/console.css`);
  t.match(String(css.headers['content-type']), /^text\/css/);
  const redirect = await get(`${admin}/admin`);
  t.equal(redirect.status, 302, '/admin: to the routes page');
});

t.test('nothing of the console on the public listener', async (t) => {
  for (const path of [
    '/admin',
    '/admin/routes',
    '/admin/api/routes',
    '/admin/api/config',
    '/admin/assets/console.js',
  ]) {
    const r = await get(`${gw.httpUrl}${path}`);
    t.not(r.status, 200, `${path}: not served publicly (${r.status})`);
    t.notOk(r.text.includes('a2a-gateway console'), `${path}: no console page`);
    for (const s of SECRETS) t.notOk(r.text.includes(s), `${path}: no secret`);
  }
  const post = await request(`${gw.httpUrl}/admin/api/try`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"route":"keyed","binding":"JSONRPC","text":"x"}',
  });
  t.not(post.statusCode, 200, 'no try-it on the public listener');
  await post.body.dump();
  const noAdmin = await startGateway(
    gatewayConfig([
      { name: 'r', match: { pathPrefix: '/r' }, upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' } },
    ]),
    pino({ level: 'silent' }),
  );
  t.teardown(() => noAdmin.close());
  const r = await get(`${noAdmin.httpUrl}/admin/routes`);
  t.not(r.status, 200, 'without an admin listener: no console at all');
});

t.test('the CLI: the config file hash and the last reload, valid and rejected', async (t) => {
  const routes = [{ name: 'r', match: { pathPrefix: '/r' }, upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' } }];
  const base = {
    listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
    admin: { host: '127.0.0.1', port: 0 },
    log: { level: 'info' },
    routes,
  };
  const p = await startGatewayProcess(t.testdir(), base);
  t.teardown(() => p.stop());
  const api = async (): Promise<any> => JSON.parse((await get(`http://${p.admin}/admin/api/config`)).text);
  const first = await api();
  t.equal(first.hash, configHash(readFileSync(p.configPath)), "the hash of the file's bytes");
  t.equal(first.lastReload, null, 'no reload yet');

  writeFileSync(p.configPath, 'routes: [{ name: 7 }]\n');
  const rejected = await waitFor(async () => {
    const c = await api();
    return c.lastReload?.outcome === 'rejected' ? c : undefined;
  }, 'the rejected reload');
  t.equal(rejected.hash, first.hash, 'the previous config stays in force');
  t.ok(rejected.lastReload.problems.length > 0, 'with its problems');
  const page = await get(`http://${p.admin}/admin/config`);
  t.match(page.text, /rejected/, 'the config page shows the rejection');

  p.writeConfig({ ...base, routes: [...routes, { ...routes[0], name: 'r2', match: { pathPrefix: '/r2' } }] });
  const applied = await waitFor(async () => {
    const c = await api();
    return c.lastReload?.outcome === 'success' ? c : undefined;
  }, 'the applied reload');
  t.equal(applied.hash, configHash(readFileSync(p.configPath)), 'the new hash');
  t.not(applied.hash, first.hash, 'changed');
  t.same(
    applied.config.routes.map((r: any) => r.name),
    ['r', 'r2'],
    'the active config is the new one',
  );
});

t.test('a page on another name that resolves to the admin listener is refused (DNS rebinding)', async (t) => {
  const port = new URL(admin).port;
  const as = async (host: string, path = '/admin/api/config') => {
    const res = await request(`${admin}${path}`, { headers: { host } });
    const text = await res.body.text();
    return { status: res.statusCode, text };
  };
  const evil = await as(`rebind.attacker.example:${port}`);
  t.equal(evil.status, 403, 'another name: 403');
  for (const s of SECRETS) t.notOk(evil.text.includes(s));
  t.equal((await as(`rebind.attacker.example:${port}`, '/admin/routes')).status, 403, 'the pages too');
  t.equal((await as(`127.0.0.1:${port}`)).status, 200, 'an IP address');
  t.equal((await as(`localhost:${port}`)).status, 200, 'localhost');
  t.equal((await as(`Console.Example:${port}`)).status, 200, 'a name in admin.allowedHosts');
  t.equal((await as(`rebind.attacker.example:${port}`, '/healthz')).status, 200, 'probes are not the console');
});
