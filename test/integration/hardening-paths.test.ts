// Paths and routing as a hostile caller writes them. Issue 12 item 6: dot
// segments, plain or percent-encoded, are refused before any route sees them
// (also on a pass-through route), a pass-through forwards A2A operations
// only, and ids are percent-encoded in every upstream path the gateway
// builds. Item 10: prefixes and tenants are matched in one canonical form
// (unreserved escapes decoded, case-insensitive), and a tenant that is not
// URL-safe is refused, so no spelling reaches a route other than the one its
// canonical form reaches. Item 20: OPTIONS, TRACE, HEAD and absolute-form
// targets get A2A answers, never fastify's own.
import { connect } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import t from 'tap';
import { pino } from 'pino';
import { startGateway } from '../../src/server/gateway.js';
import { brokenHttp } from '../helpers/broken-upstreams.js';
import { CALLERS, closeGrpcClients, gatewayConfig } from '../helpers/harness.js';
import type { JsonObject } from '../../src/proto/json.js';

// A REST agent that records the raw request line of everything that reaches it.
const reached: string[] = [];
const agent = await brokenHttp((req, res) => {
  req.resume();
  // (the gateway's own card fetches are not callers' requests)
  if (req.method === 'GET' && req.url?.endsWith('/.well-known/agent-card.json')) return void res.writeHead(404).end();
  reached.push(`${req.method} ${req.url}`);
  const task = { id: 'x', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } };
  res.writeHead(200, { 'content-type': 'application/a2a+json' }).end(JSON.stringify(task));
});
const key = { apiKey: { name: 'X-API-Key', keys: [{ id: 'ops', key: 'a-long-enough-key' }] } };
const gw = await startGateway(
  gatewayConfig([
    {
      name: 'pt',
      match: { pathPrefix: '/pt' },
      upstream: { url: `${agent.url}/rest`, binding: 'HTTP+JSON' },
      passThrough: true,
    },
    {
      name: 'rest',
      match: { pathPrefix: '/translated' },
      upstream: { url: `${agent.url}/rest`, binding: 'HTTP+JSON' },
    },
    {
      name: 'secure',
      match: { pathPrefix: '/secure' },
      upstream: { url: `${agent.url}/rest`, binding: 'HTTP+JSON' },
      auth: key,
    },
    {
      name: 'acme',
      match: { tenant: 'acme' },
      upstream: { url: `${agent.url}/rest`, binding: 'HTTP+JSON' },
      auth: key,
    },
    { name: 'catch-all', upstream: { url: `${agent.url}/open`, binding: 'HTTP+JSON' } },
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await agent.close();
});

/** A raw HTTP/1.1 request as written (no client normalizes the target): status line, headers, body. */
function raw(
  target: string,
  method = 'GET',
  headers = '',
  body = '',
): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(gw.httpPort, '127.0.0.1', () =>
      s.write(`${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}Connection: close\r\n\r\n${body}`),
    );
    let out = '';
    s.on('data', (d: Buffer) => (out += d.toString()));
    s.on('end', () => {
      const [head = '', body = ''] = out.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body });
    });
    s.on('error', reject);
  });
}
const errorOf = (body: string): JsonObject => (JSON.parse(body) as { error: JsonObject }).error;
const reasonOf = (body: string): unknown =>
  (errorOf(body).details as JsonObject[] | undefined)?.find(
    (d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo',
  )?.reason;

t.test('dot segments, plain or encoded, are refused before routing', async (tt) => {
  reached.length = 0;
  for (const target of [
    '/pt/../../admin/secret',
    '/pt/./tasks/x',
    '/pt/%2e%2e/%2E%2E/admin/secret',
    '/pt/tasks/%2e%2e',
    '/pt/.%2e/admin',
    '/pt/..;/admin',
    '/translated/tasks/..',
    '/..',
  ]) {
    const r = await raw(target);
    tt.equal(r.status, 400, `${target}: 400`);
    tt.equal(reasonOf(r.body), 'INVALID_REQUEST', `${target}: INVALID_REQUEST`);
  }
  const post = await raw('/pt/../x', 'POST', 'Content-Type: application/json\r\nContent-Length: 2\r\n', '{}');
  tt.equal(post.status, 400, 'a POST too');
  tt.same(reached, [], 'nothing reached the upstream');
});

t.test('a target holding what no URI may (RFC 3986) is refused, never forwarded as it came', async (tt) => {
  reached.length = 0;
  for (const target of ['/pt/tasks/x#frag', '/pt/tasks/a|b', '/pt/tasks/{x}', '/pt/tasks/x?q=<a>', '/pt/tasks/a"b']) {
    const r = await raw(target);
    tt.equal(r.status, 400, `${target}: 400`);
    tt.equal(reasonOf(r.body), 'INVALID_REQUEST', `${target}: INVALID_REQUEST`);
  }
  tt.same(reached, [], 'nothing reached the upstream');
  const ok = await raw('/pt/tasks/a%7Cb?historyLength=1', 'GET', 'A2A-Version: 1.0\r\n');
  tt.equal(ok.status, 200, 'the same id percent-encoded: forwarded');
  tt.same(reached, ['GET /rest/tasks/a%7Cb?historyLength=1'], 'as it came');
});

t.test('a pass-through forwards A2A operations only', async (tt) => {
  reached.length = 0;
  for (const [method, target] of [
    ['PUT', '/pt/not/an/a2a/path'],
    ['GET', '/pt/admin/secret'],
    ['DELETE', '/pt/tasks/x'],
  ] as const) {
    const r = await raw(target, method, 'Content-Length: 0\r\n');
    tt.equal(r.status, 501, `${method} ${target}: 501`);
    tt.equal(errorOf(r.body).status, 'UNIMPLEMENTED', `${method} ${target}: METHOD_NOT_FOUND / UNIMPLEMENTED`);
  }
  tt.same(reached, [], 'nothing reached the upstream');
  const ok = await raw('/pt/tasks/t-1', 'GET', 'A2A-Version: 1.0\r\n');
  tt.equal(ok.status, 200, 'an A2A operation is forwarded');
  tt.same(reached, ['GET /rest/tasks/t-1'], 'as it came');
});

t.test('ids are percent-encoded in the paths the gateway builds, and none is a dot segment', async (tt) => {
  reached.length = 0;
  // encoded, a dot segment still climbs for a WHATWG parser (%2E%2E is "..") or a server that decodes %2F first
  for (const id of ['..', '.', 'a/../../admin', 'a\\..\\admin', '../x']) {
    const r = await CALLERS.JSONRPC(gw, 'GetTask', { id }, { tenant: '', prefix: '/translated' });
    tt.equal(r.code, -32602, `GetTask {"id":${JSON.stringify(id)}}: InvalidParams`);
  }
  tt.same(reached, [], 'none reached the upstream');
  for (const id of ['x?y#z', 'a..b', 'a/b', '.hidden']) {
    await CALLERS.JSONRPC(gw, 'GetTask', { id }, { tenant: '', prefix: '/translated' });
  }
  tt.same(
    reached,
    ['GET /rest/tasks/x%3Fy%23z', 'GET /rest/tasks/a..b', 'GET /rest/tasks/a%2Fb', 'GET /rest/tasks/.hidden'],
    'other ids reach it percent-encoded',
  );
});

t.test('prefixes and tenants match in one canonical form', async (tt) => {
  reached.length = 0;
  for (const target of [
    '/ACME/tasks/x',
    '/Acme/tasks/x',
    '/%73ecure/tasks/x',
    '/SECURE/tasks/x',
    '/sEcUrE/acme/tasks/x',
  ]) {
    const r = await raw(target, 'GET', 'A2A-Version: 1.0\r\n');
    tt.equal(r.status, 401, `${target}: the authenticated route's 401, not the catch-all`);
  }
  const spaced = await raw('/acme%20/tasks/x', 'GET', 'A2A-Version: 1.0\r\n');
  tt.equal(spaced.status, 400, '/acme%20/tasks/x: 400');
  tt.match(JSON.stringify(errorOf(spaced.body)), /tenant/, 'a tenant that is not URL-safe is refused, naming it');
  tt.same(reached, [], 'the unauthenticated catch-all saw none of them');
  const rpc = await CALLERS.JSONRPC(gw, 'GetTask', { id: 'x' }, { tenant: 'ACME', prefix: '' });
  tt.equal(rpc.httpStatus, 401, 'JSON-RPC params.tenant "ACME": authenticated route');
  const g = await CALLERS.GRPC(gw, 'GetTask', { id: 'x' }, { tenant: 'ACME', prefix: '' });
  tt.equal(g.code, grpc.status.UNAUTHENTICATED, 'gRPC tenant "ACME": authenticated route');
  const bad = await CALLERS.GRPC(gw, 'GetTask', { id: 'x' }, { tenant: 'acme ', prefix: '' });
  tt.equal(bad.code, grpc.status.INVALID_ARGUMENT, 'gRPC tenant "acme ": refused');
  tt.same(reached, [], 'and nothing reached an upstream');
  const open = await raw('/other/tasks/x', 'GET', 'A2A-Version: 1.0\r\n');
  tt.equal(open.status, 200, 'another tenant still reaches the catch-all');
});

t.test("OPTIONS, TRACE, HEAD and absolute-form targets: A2A answers, never fastify's", async (tt) => {
  for (const method of ['OPTIONS', 'TRACE']) {
    const r = await raw('/translated/tasks/x', method);
    tt.equal(r.status, 501, `${method}: 501`);
    tt.equal(reasonOf(r.body), 'METHOD_NOT_FOUND', `${method}: an A2A error body`);
  }
  const star = await raw('*', 'OPTIONS');
  tt.equal(reasonOf(star.body), 'INVALID_REQUEST', 'OPTIONS *: an A2A error');
  const head = await raw('/translated/tasks/x', 'HEAD', 'A2A-Version: 1.0\r\n');
  tt.equal(head.status, 501, 'HEAD of an operation: 501, no body');
  tt.match(head.head, /content-type: application\/a2a\+json/i, 'HEAD: the A2A error head');
  const absolute = await raw(`http://127.0.0.1:${gw.httpPort}/nowhere-at-all/x/y/z`, 'GET', 'A2A-Version: 1.0\r\n');
  tt.equal(reasonOf(absolute.body), 'METHOD_NOT_FOUND', 'absolute-form: read as its path, an A2A answer');
  const absoluteOk = await raw(`http://127.0.0.1:${gw.httpPort}/other/tasks/x`, 'GET', 'A2A-Version: 1.0\r\n');
  tt.equal(absoluteOk.status, 200, 'absolute-form of an A2A operation is served (RFC 9112 §3.2.2)');
  const absoluteDots = await raw(`http://127.0.0.1:${gw.httpPort}/pt/../admin`);
  tt.equal(absoluteDots.status, 400, 'absolute-form with dot segments: refused like any other');
  for (const r of [star, head, absolute]) tt.notOk(/Route .* not found/.test(r.body), "not fastify's body");
});
