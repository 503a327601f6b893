// ListTasks to the letter of the spec, over REST and JSON-RPC:
// - §3.1.4: the answer always carries `nextPageToken` ("" on the last page) and the REQUIRED `tasks`, `pageSize`
//   and `totalSize`, even at their defaults (ProtoJSON leaves defaults out: the gateway dropped what the SDK agent
//   wrote);
// - §3.3.2: a `status` filter naming no TaskState is InvalidParams naming `status` (it was dropped, so the caller
//   got every task unfiltered);
// - §11.5: queries are read as the official SDK clients write them ("+" a space, %2B a "+"), sent to a REST agent
//   percent-encoded (a space as %20, "+" as %2B: read alike whether the agent decodes "+" as a space or not), and
//   passed through as they came.
import { createServer, type IncomingMessage } from 'node:http';
import { pino } from 'pino';
import t from 'tap';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import { gatewayConfig } from '../helpers/harness.js';

const agent = await startEchoAgent({ bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'] });
// a REST agent that records the request line and answers an empty last page as ProtoJSON writes it, defaults left out
const seen: string[] = [];
const raw = createServer((req: IncomingMessage, res) => {
  seen.push(req.url ?? '');
  res.writeHead(200, { 'content-type': 'application/a2a+json' }).end('{"pageSize":50}');
});
await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
const rawPort = (raw.address() as { port: number }).port;

const gw = await startGateway(
  gatewayConfig([
    { name: 'sdk-rest', match: { pathPrefix: '/sdk-rest' }, upstream: { url: agent.restUrl, binding: 'HTTP+JSON' } },
    { name: 'sdk-grpc', match: { pathPrefix: '/sdk-grpc' }, upstream: { url: agent.grpcAddress, binding: 'GRPC' } },
    {
      name: 'raw',
      match: { pathPrefix: '/raw' },
      upstream: { url: `http://127.0.0.1:${rawPort}`, binding: 'HTTP+JSON' },
    },
    {
      name: 'raw-pt',
      match: { pathPrefix: '/raw-pt' },
      upstream: { url: `http://127.0.0.1:${rawPort}`, binding: 'HTTP+JSON' },
      passThrough: true,
    },
    {
      name: 'raw-pt-key',
      match: { pathPrefix: '/raw-pt-key' },
      upstream: { url: `http://127.0.0.1:${rawPort}`, binding: 'HTTP+JSON' },
      passThrough: true,
      auth: { apiKey: { in: 'query', name: 'api_key', keys: [{ id: 'k', key: 'query-key-0123456789' }] } },
    },
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  await gw.close();
  await new Promise<void>((r) => raw.close(() => r()));
  await agent.close();
});

const V1 = { 'a2a-version': '1.0' };
const rest = async (path: string) => {
  const res = await request(`${gw.httpUrl}${path}`, { headers: V1 });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
};
const rpc = async (prefix: string, params: Record<string, unknown>) => {
  const res = await request(`${gw.httpUrl}${prefix}/`, {
    method: 'POST',
    headers: { ...V1, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params }),
  });
  return (await res.body.json()) as { result?: Record<string, unknown>; error?: { code: number; data?: unknown[] } };
};
const REQUIRED = ['tasks', 'nextPageToken', 'pageSize', 'totalSize'];

t.test('an empty last page carries every REQUIRED field, nextPageToken ""', async (tt) => {
  for (const prefix of ['/sdk-rest', '/sdk-grpc', '/raw']) {
    const r = await rest(`${prefix}/tasks?contextId=nothing-here`);
    tt.equal(r.status, 200, `REST via ${prefix}`);
    for (const k of REQUIRED) tt.ok(k in r.body, `REST via ${prefix}: ${k} present`);
    tt.equal(r.body.nextPageToken, '', `REST via ${prefix}: nextPageToken is "" on the last page`);
    tt.same(r.body.tasks, [], `REST via ${prefix}: tasks []`);
    const j = await rpc(prefix, { contextId: 'nothing-here' });
    for (const k of REQUIRED) tt.ok(j.result && k in j.result, `JSON-RPC via ${prefix}: ${k} present`);
    tt.equal(j.result?.totalSize, 0, `JSON-RPC via ${prefix}: totalSize 0`);
  }
});

t.test('a status filter naming no TaskState is InvalidParams naming status', async (tt) => {
  const r = await rest('/sdk-rest/tasks?status=TASK_STATE_RUNNING');
  tt.equal(r.status, 400, 'REST: 400');
  tt.match(JSON.stringify(r.body), /"field":"status"/, 'REST: the violation names status');
  const j = await rpc('/sdk-grpc', { status: 'working' });
  tt.equal(j.error?.code, -32602, 'JSON-RPC: InvalidParams');
  tt.match(JSON.stringify(j.error?.data), /"field":"status"/, 'JSON-RPC: the violation names status');
  const ok = await rest('/sdk-rest/tasks?status=TASK_STATE_WORKING');
  tt.equal(ok.status, 200, 'a TaskState name still filters');
  tt.equal((await rest('/sdk-rest/tasks?status=')).status, 200, 'an empty status= is no filter, as before');
  const calls = (): number => seen.filter((l) => l.startsWith('/tasks')).length; // (not its card fetches)
  const seenBefore = calls();
  await rest('/raw/tasks?status=TASK_STATE_RUNNING');
  tt.equal(calls(), seenBefore, 'the refused filter never reached the agent');
});

t.test(
  'queries as the SDK clients write them, sent to REST agents percent-encoded, passed through as they came',
  async (tt) => {
    // the official clients (URLSearchParams, Go's url.Values) write a space as "+" and a "+" as %2B
    const toTasks = (): string[] => seen.filter((l) => l.startsWith('/tasks'));
    seen.length = 0;
    const r = await rest('/raw/tasks?pageToken=MjAy%2BLw%3D%3D&contextId=a+b');
    tt.equal(r.status, 200);
    const sent = toTasks()[0] ?? '';
    tt.match(sent, /pageToken=MjAy%2BLw%3D%3D/, 'a "+" of the value went out as %2B');
    tt.match(sent, /contextId=a%20b/, 'a space went out as %20: read alike by agents that take "+" as a space and not');
    tt.equal(new URL(sent, 'http://x').searchParams.get('contextId'), 'a b', 'read back as the caller meant it');
    seen.length = 0;
    const query = 'pageToken=MjAy%2BLw%3D%3D&contextId=a+b&a2a-version=1.0&x=%7e';
    const relayed = await rest(`/raw-pt/tasks?${query}`);
    tt.equal(relayed.status, 200, 'passed through');
    tt.equal(toTasks()[0], `/tasks?${query}`, 'the query as it came, byte for byte');
    seen.length = 0;
    const keyed = await rest('/raw-pt-key/tasks?contextId=a+b&api_key=query-key-0123456789&x=%7e');
    tt.equal(keyed.status, 200, 'passed through with its API key');
    tt.equal(toTasks()[0], '/tasks?contextId=a+b&x=%7e', 'without the key, the rest as it came');
  },
);
