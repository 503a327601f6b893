// A pass-through forwards only the tenant its route was chosen by, and no
// path a URL parser would resolve above its prefix. The tenant a REST call
// names in its query (`tenant`) or its JSON body's top-level `tenant`, and a
// JSON-RPC call's `params.tenant` that is no string, are refused as the
// translated path refuses them (InvalidParams), before anything is sent; so
// is a body that may name one and is no JSON here (a laxer parser may read
// it). The routed tenant named again is still forwarded. Dot segments are refused with
// `\` and its escapes, and an escaped `/`, as separators (`..\`, `..%5C`,
// `..%2F`), as `%2E%2E` is. The agent is a raw HTTP server that records what
// reaches it.
import { connect } from 'node:net';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { startGateway } from '../../src/server/gateway.js';
import type { JsonObject } from '../../src/proto/json.js';
import { brokenHttp } from '../helpers/broken-upstreams.js';
import { gatewayConfig } from '../helpers/harness.js';

/** What reached the agent: "METHOD /path?query" and the body as it came. */
const reached: Array<{ line: string; body: string }> = [];
const agent = await brokenHttp((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    // (the gateway's own card fetches are not callers' requests)
    if (req.url?.includes('/.well-known/')) return void res.writeHead(404).end();
    const body = Buffer.concat(chunks).toString();
    reached.push({ line: `${req.method} ${req.url}`, body });
    const task = { id: 'x', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } };
    if (req.url?.startsWith('/rpc')) {
      const id = (JSON.parse(body) as { id: unknown }).id;
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ jsonrpc: '2.0', id, result: task }));
    }
    res.writeHead(200, { 'content-type': 'application/a2a+json' }).end(JSON.stringify(task));
  });
});
const KEY = 'a-long-enough-key';
const auth = { apiKey: { name: 'X-API-Key', keys: [{ id: 'ops', key: KEY }] } };
const rest = { url: `${agent.url}/rest`, binding: 'HTTP+JSON' as const };
const rpc = { url: `${agent.url}/rpc`, binding: 'JSONRPC' as const };
const gw = await startGateway(
  gatewayConfig([
    { name: 'secret', match: { tenant: 'secret' }, upstream: rest, auth, passThrough: true },
    { name: 'open', upstream: rest, passThrough: true },
    { name: 'rpc-secret', match: { pathPrefix: '/rpc', tenant: 'secret' }, upstream: rpc, auth, passThrough: true },
    { name: 'rpc-open', match: { pathPrefix: '/rpc' }, upstream: rpc, passThrough: true },
    {
      name: 'public',
      match: { pathPrefix: '/public' },
      upstream: { url: `${agent.url}/a2a/public`, binding: 'HTTP+JSON' },
      passThrough: true,
    },
    // the same agent, translated: the answers a pass-through must give alike
    { name: 't-rest', match: { pathPrefix: '/t' }, upstream: rest },
    { name: 't-rpc', match: { pathPrefix: '/trpc' }, upstream: rpc },
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  await gw.close();
  await agent.close();
});

const V1 = { 'a2a-version': '1.0' };
const JSON_TYPE = { 'content-type': 'application/a2a+json' };

interface Reply {
  status: number;
  body: JsonObject;
}

async function call(
  path: string,
  method = 'GET',
  body?: string | Buffer,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const res = await request(`${gw.httpUrl}${path}`, {
    method,
    headers: { ...V1, ...(body === undefined ? {} : JSON_TYPE), ...headers },
    ...(body === undefined ? {} : { body }),
  });
  return { status: res.statusCode, body: (await res.body.json()) as JsonObject };
}

/** A JSON-RPC GetTask whose params are `params`, to the route at `prefix`. */
const rpcCall = (prefix: string, params: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
  call(prefix, 'POST', JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params }), {
    'content-type': 'application/json',
    ...headers,
  });

/** A REST error body's HTTP and google.rpc status, message, and the fields its BadRequest detail names. */
function restError(r: Reply): { http: number; status: unknown; message: unknown; fields: unknown[] } {
  const e = (r.body.error ?? {}) as JsonObject;
  const bad = (e.details as JsonObject[] | undefined)?.find(
    (d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest',
  );
  const fields = ((bad?.fieldViolations as JsonObject[] | undefined) ?? []).map((v) => v.field);
  return { http: r.status, status: e.status, message: e.message, fields };
}

/** A raw HTTP/1.1 GET as written (no client normalizes the target): its status. */
function rawGet(target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = connect(gw.httpPort, '127.0.0.1', () =>
      s.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nA2A-Version: 1.0\r\nConnection: close\r\n\r\n`),
    );
    let out = '';
    s.on('data', (d: Buffer) => (out += d.toString()));
    s.on('end', () => resolve(Number(out.split(' ')[1])));
    s.on('error', reject);
  });
}

const message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };

t.test('REST query: a tenant other than the routed one is refused as on the translated path', async (tt) => {
  reached.length = 0;
  tt.equal((await call('/secret/tasks')).status, 401, 'the tenant route wants its key');
  const translated = restError(await call('/t/tasks?tenant=secret'));
  tt.same([translated.http, translated.status], [400, 'INVALID_ARGUMENT'], 'translated: InvalidParams');
  tt.same(translated.fields, ['tenant'], 'naming the tenant');
  for (const path of [
    '/tasks?tenant=secret',
    '/tasks?tenant=&tenant=secret',
    '/tasks?tenant=open&tenant=secret',
    '/tasks?%74enant=secret',
    '/tasks/x?tenant=secret',
    '/message:send?tenant=secret',
  ]) {
    const method = path.startsWith('/message') ? 'POST' : 'GET';
    const got = restError(await call(path, method, method === 'POST' ? JSON.stringify({ message }) : undefined));
    tt.same(got, translated, `${method} ${path}: the translated path's error`);
  }
  const other = restError(await call('/secret/tasks?tenant=open', 'GET', undefined, { 'x-api-key': KEY }));
  tt.same(other, translated, 'a query tenant other than the path tenant: refused too');
  tt.same(reached, [], 'nothing reached the agent');
  const same = await call('/secret/tasks?tenant=secret', 'GET', undefined, { 'x-api-key': KEY });
  tt.equal(same.status, 200, 'the routed tenant named again: forwarded');
  const none = await call('/tasks?pageSize=2&tenant=', 'GET');
  tt.equal(none.status, 200, 'an empty tenant names none: forwarded');
  tt.same(
    reached.map((r) => r.line),
    ['GET /rest/secret/tasks?tenant=secret', 'GET /rest/tasks?pageSize=2&tenant='],
    'as they came',
  );
});

t.test('REST body: a top-level tenant other than the routed one is refused as on the translated path', async (tt) => {
  reached.length = 0;
  const named = JSON.stringify({ tenant: 'secret', message });
  const translated = restError(await call('/t/message:send', 'POST', named));
  tt.same([translated.http, translated.status], [400, 'INVALID_ARGUMENT'], 'translated: InvalidParams');
  tt.match(translated.message, /the tenant in the request differs/);
  tt.same(restError(await call('/message:send', 'POST', named)), translated, 'pass-through: the same error');
  // "tenant" spelled with JSON escapes is the same key to every JSON parser
  const escaped = `{"\\u0074enant":"secret","message":${JSON.stringify(message)}}`;
  tt.same(restError(await call('/message:send', 'POST', escaped)), translated, 'the key spelled with \\u escapes');
  const lastWins = `{"tenant":"","message":${JSON.stringify(message)},"tenant":"secret"}`;
  tt.same(restError(await call('/message:send', 'POST', lastWins)), translated, 'the key given twice, last "secret"');
  const withKey = { 'x-api-key': KEY };
  const other = JSON.stringify({ tenant: 'open', message });
  tt.same(
    restError(await call('/secret/message:send', 'POST', other, withKey)),
    translated,
    'another tenant than the path',
  );
  for (const tenant of [['secret'], { secret: true }, 7]) {
    const bad = restError(await call('/message:send', 'POST', JSON.stringify({ tenant, message })));
    tt.same([bad.http, bad.status], [400, 'INVALID_ARGUMENT'], `tenant ${JSON.stringify(tenant)}: InvalidParams`);
  }
  // a body that may name a tenant and is no JSON to this gateway, which a laxer parser at the agent may still read
  // (Python's json takes NaN, a UTF-8 BOM and UTF-16 text): refused as the translated path refuses it
  const lax: Array<[string, string | Buffer]> = [
    ['NaN', `{"tenant":"secret","message":${JSON.stringify(message)},"metadata":{"n":NaN}}`],
    ['a BOM', `\ufeff${named}`],
    ['UTF-16', Buffer.from(`\ufeff${named}`, 'utf16le')],
    ['garbled', '{"tenant": "secret", not json'],
  ];
  for (const [what, body] of lax) {
    const translatedLax = restError(await call('/t/message:send', 'POST', body));
    tt.equal(translatedLax.http, 400, `${what}: the translated path refuses it`);
    const got = restError(await call('/message:send', 'POST', body));
    // (NaN is a scalar to the top-level reading: its tenant "secret" is what refuses it there)
    if (what === 'NaN') tt.same([got.http, got.status], [400, 'INVALID_ARGUMENT'], `${what}: refused`);
    else tt.same(got, translatedLax, `${what}: refused alike`);
  }
  // Go's encoding/json (the official Go SDK's servers) matches keys whatever their case, the last one winning
  for (const spelled of ['TENANT', 'Tenant', 'tEnAnT']) {
    const body = `{"tenant":"","message":${JSON.stringify(message)},"${spelled}":"secret"}`;
    tt.same(restError(await call('/message:send', 'POST', body)), translated, `the key spelled ${spelled}`);
  }
  const queried = restError(await call('/tasks?Tenant=secret', 'GET'));
  tt.same([queried.http, queried.status], [400, 'INVALID_ARGUMENT'], 'a query key Tenant: refused too');
  tt.same(reached, [], 'nothing reached the agent');
  const same = JSON.stringify({ tenant: 'secret', message });
  tt.equal((await call('/secret/message:send', 'POST', same, withKey)).status, 200, 'the routed tenant: forwarded');
  const none = JSON.stringify({ message, metadata: { note: 'no tenant here' } });
  tt.equal((await call('/message:send', 'POST', none)).status, 200, 'no tenant: forwarded');
  const garbled = '{"message": not json';
  tt.equal((await call('/message:send', 'POST', garbled)).status, 200, 'no JSON naming no tenant: the agent reads it');
  tt.same(
    reached.map((r) => [r.line, r.body]),
    [
      ['POST /rest/secret/message:send', same],
      ['POST /rest/message:send', none],
      ['POST /rest/message:send', garbled],
    ],
    'the bodies as they came',
  );
});

t.test('JSON-RPC: a params.tenant that is no string is InvalidParams, as on the translated path', async (tt) => {
  reached.length = 0;
  // another case of `tenant`, or of `params`, is the same key to Go's encoding/json
  const code = (r: Reply): unknown => (r.body.error as JsonObject | undefined)?.code;
  tt.equal(code(await rpcCall('/rpc', { id: 'x', Tenant: 'secret' })), -32602, 'params.Tenant: InvalidParams');
  const upper = await request(`${gw.httpUrl}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', PARAMS: { id: 'x', tenant: 'secret' } }),
  });
  const upperBody = (await upper.body.json()) as JsonObject;
  tt.equal((upperBody.error as JsonObject | undefined)?.code, -32602, 'PARAMS.tenant: InvalidParams');
  // a duplicate key: JSON.parse keeps the last, a parser at the agent may keep the first (the protected tenant)
  for (const raw of [
    '{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"tenant":"secret","id":"x","tenant":""}}',
    '{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"x","tenant":"secret"},"params":{"id":"x"}}',
  ]) {
    const dup = await request(`${gw.httpUrl}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: raw,
    });
    const dupBody = (await dup.body.json()) as JsonObject;
    tt.equal(
      (dupBody.error as JsonObject | undefined)?.code,
      -32602,
      `duplicate keys naming "secret": refused, ${raw}`,
    );
  }
  tt.same(reached, [], 'none reached the agent');
  for (const tenant of [['secret'], { name: 'secret' }, 1, true]) {
    const translated = await rpcCall('/trpc', { id: 'x', tenant });
    const got = await rpcCall('/rpc', { id: 'x', tenant });
    tt.equal(code(translated), -32602, `translated, tenant ${JSON.stringify(tenant)}: -32602`);
    tt.equal(code(got), -32602, `pass-through, tenant ${JSON.stringify(tenant)}: -32602`);
    tt.equal(got.status, 200, 'in HTTP 200, as JSON-RPC answers');
    tt.equal(got.body.id, 7, 'with the request id');
  }
  tt.same(reached, [], 'nothing reached the agent');
  tt.equal((await rpcCall('/rpc', { id: 'x', tenant: 'secret' })).status, 401, 'tenant "secret" wants its key');
  const same = await rpcCall('/rpc', { id: 'x', tenant: 'secret' }, { 'x-api-key': KEY });
  tt.ok(same.body.result, 'the routed tenant: forwarded');
  const none = await rpcCall('/rpc', { id: 'x' });
  tt.ok(none.body.result, 'no tenant: forwarded');
  tt.same(
    reached.map((r) => r.line),
    ['POST /rpc', 'POST /rpc'],
    'both reached the agent',
  );
});

t.test('dot segments with "\\" or an escaped separator are refused on a pass-through', async (tt) => {
  reached.length = 0;
  for (const target of [
    '/public/tasks/..\\..\\admin',
    '/public/tasks/..%5C..%5Cadmin',
    '/public/tasks/..%5c..%5cadmin',
    '/public/tasks/.\\x',
    '/public/tasks/x\\..',
    '/public/tasks/%2e%2e%5cadmin',
    '/public/tasks/..%2F..%2Fadmin',
    '/public/tasks/..%2f..%2fadmin',
    '/public/tasks/x%2F..',
    '/public\\..\\admin/tasks/x',
    '/t/tasks/..%2F..%2Fadmin',
    '/t/tasks/..\\..\\admin',
  ]) {
    tt.equal(await rawGet(target), 400, `${target}: 400`);
  }
  tt.same(reached, [], 'nothing reached the agent');
  for (const target of ['/public/tasks/t-1', '/public/tasks/a..b', '/public/tasks/x%5Cy']) {
    tt.equal(await rawGet(target), 200, `${target}: forwarded`);
  }
  tt.same(
    reached.map((r) => r.line),
    ['GET /a2a/public/tasks/t-1', 'GET /a2a/public/tasks/a..b', 'GET /a2a/public/tasks/x%5Cy'],
    'as they came',
  );
});
