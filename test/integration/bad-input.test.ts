// Every bad input of the issue, answered in the caller's own binding, and the
// gateway still serving afterwards: malformed JSON, non-request JSON-RPC,
// unknown methods, wrong params, bad Content-Type, oversize bodies, bad
// protobuf, no route, and upstreams that refuse, stall or answer garbage.
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import * as grpc from '@grpc/grpc-js';
import type { Binding } from '../../src/config/types.js';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { CATALOGUE, GRPC_CODES, type ErrorName } from '../../src/errors/catalogue.js';
import type { JsonObject } from '../../src/proto/json.js';
import { create, toBinary } from '@bufbuild/protobuf';
import { ListTasksRequestSchema, Role, SendMessageRequestSchema, TaskSchema, TaskState } from '../../src/gen/a2a_pb.js';
import { requestBytes, statusJson } from '../helpers/codec.js';
import { startGateway } from '../../src/server/gateway.js';
import { brokenGrpc, brokenHttp, refusedPort } from '../helpers/broken-upstreams.js';
import {
  BINDINGS,
  CALLERS,
  callGrpcRaw,
  closeGrpcClients,
  gatewayConfig,
  slug,
  userMessage,
  type WireResult,
} from '../helpers/harness.js';

const agent = await startEchoAgent({ bindings: BINDINGS });
const port = await refusedPort();
const hangHttp = await brokenHttp(() => undefined);
const garbageHttp = await brokenHttp((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('this is not A2A');
});
const hangGrpc = await brokenGrpc(() => undefined);
const garbageGrpc = await brokenGrpc((cb) => cb(null, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])));
// a Task whose status timestamp binary protobuf holds and JSON cannot write (nanos past 999,999,999)
const noJsonTask = create(TaskSchema, {
  id: 't',
  contextId: 'c',
  status: { state: TaskState.COMPLETED, timestamp: { seconds: 1n, nanos: 1_500_000_000 } },
});
const noJsonGrpc = await brokenGrpc((cb) => cb(null, Buffer.from(toBinary(TaskSchema, noJsonTask))));
// a JSON-RPC agent whose answer holds a number past a double's range: JSON.parse reads it as Infinity
const infinityHttp = await brokenHttp((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    if (req.method === 'GET') return void res.writeHead(404).end();
    const { id, method } = JSON.parse(body) as { id: number; method: string };
    const task =
      method === 'tasks/get' // an A2A 0.3 agent's task
        ? '{"kind":"task","id":"t","contextId":"c","status":{"state":"completed"},"metadata":{"x":1e999}}'
        : '{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"},"metadata":{"x":1e999}}';
    res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":${id},"result":${task}}`);
  });
});
const broken: Record<string, Record<Binding, string>> = {
  refused: {
    JSONRPC: `http://127.0.0.1:${port}/rpc`,
    'HTTP+JSON': `http://127.0.0.1:${port}`,
    GRPC: `127.0.0.1:${port}`,
  },
  hang: { JSONRPC: `${hangHttp.url}/rpc`, 'HTTP+JSON': hangHttp.url, GRPC: hangGrpc.url },
  garbage: { JSONRPC: `${garbageHttp.url}/rpc`, 'HTTP+JSON': garbageHttp.url, GRPC: garbageGrpc.url },
};
const routes = [
  {
    name: 'good',
    match: { pathPrefix: '/good', tenant: 'good' },
    upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const, tenant: 'clear' },
  },
  {
    name: 'small',
    match: { pathPrefix: '/small', tenant: 'small' },
    upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const, tenant: 'clear' },
    maxBodyBytes: 2048,
  },
  {
    // no tenant: 0.3 callers have none
    name: 'plain',
    match: { pathPrefix: '/plain' },
    upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const, tenant: 'clear' as const },
  },
  {
    name: 'infinity',
    match: { pathPrefix: '/infinity', tenant: 'infinity' },
    upstream: { url: `${infinityHttp.url}/rpc`, binding: 'JSONRPC' as const, tenant: 'clear' as const },
  },
  {
    name: 'infinity03',
    match: { pathPrefix: '/infinity03', tenant: 'infinity03' },
    upstream: {
      url: `${infinityHttp.url}/rpc`,
      binding: 'JSONRPC' as const,
      version: '0.3' as const,
      tenant: 'clear' as const,
    },
  },
  {
    name: 'nojson',
    match: { pathPrefix: '/nojson', tenant: 'nojson' },
    upstream: { url: noJsonGrpc.url, binding: 'GRPC' as const, tenant: 'clear' as const },
  },
  ...Object.entries(broken).flatMap(([kind, urls]) =>
    BINDINGS.map((b) => ({
      name: `${kind}-${slug(b)}`,
      match: { pathPrefix: `/${kind}-${slug(b)}`, tenant: `${kind}-${slug(b)}` },
      upstream: { url: urls[b], binding: b, tenant: 'clear' as const },
      // only the hanging upstream must time out; the others fail fast, and 30 s keeps load from changing that
      timeoutMs: kind === 'hang' ? 300 : 30_000,
    })),
  ),
];
const gw = await startGateway(gatewayConfig(routes), pino({ level: 'silent' }));
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await Promise.all([
    agent.close(),
    hangHttp.close(),
    garbageHttp.close(),
    hangGrpc.close(),
    garbageGrpc.close(),
    noJsonGrpc.close(),
    infinityHttp.close(),
  ]);
});

const good = { tenant: 'good', prefix: '/good' };

async function stillServing(tt: Test, inbound: Binding): Promise<void> {
  const r = await CALLERS[inbound](gw, 'SendMessage', { message: userMessage('still here') }, good);
  tt.equal(r.ok, true, `${inbound}: the gateway keeps serving`);
}

function isError(tt: Test, inbound: Binding, r: WireResult, name: ErrorName): void {
  const row = CATALOGUE[name];
  if (inbound === 'JSONRPC') tt.equal(r.code, row.jsonRpc, `${inbound} ${name}: JSON-RPC code ${row.jsonRpc}`);
  else if (inbound === 'HTTP+JSON')
    tt.same([r.httpStatus, r.status], [row.http, row.grpc], `${inbound} ${name}: HTTP ${row.http} ${row.grpc}`);
  else tt.equal(r.code, GRPC_CODES[row.grpc], `${inbound} ${name}: gRPC ${row.grpc}`);
}

async function post(
  path: string,
  body: string | Buffer,
  contentType = 'application/json',
): Promise<{ status: number; json: JsonObject | JsonObject[] | undefined; contentType: string }> {
  const res = await request(`${gw.httpUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': contentType, 'a2a-version': '1.0' },
    body,
  });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    json: text ? (JSON.parse(text) as JsonObject) : undefined,
    contentType: String(res.headers['content-type'] ?? ''),
  };
}

t.test('malformed JSON', async (tt) => {
  const rpc = await post('/good', '{"jsonrpc": "2.0", "id": 1,');
  tt.same(
    [rpc.status, (rpc.json as JsonObject).id, ((rpc.json as JsonObject).error as JsonObject).code],
    [200, null, -32700],
    'JSON-RPC -32700, id null',
  );
  const rest = await post('/good/good/message:send', '{"message": ');
  tt.same(
    [rest.status, ((rest.json as JsonObject).error as JsonObject).status],
    [400, 'INVALID_ARGUMENT'],
    'REST 400 INVALID_ARGUMENT',
  );
  tt.match(rest.contentType, 'application/a2a+json', 'REST errors are application/a2a+json');
  // a bad escape in a string long enough to be read apart from the parse (a large part's size) is a parse error too
  const long = 'A'.repeat(70_000);
  const send = (text: string, id = '1') =>
    `{"jsonrpc":"2.0","id":${id},"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"${text}"}]}}}`;
  for (const [name, body] of [
    ['a bad escape in a long text', send(`${long}\\x`)],
    ['a bad \\u escape in a long text', send(`${long}\\u12G4`)],
    ['a bad escape in a long id', send('hi', `"${long}\\q"`)],
    ['a batch with one bad long text', `[${send('hi')},${send(`${long}\\x`, '2')}]`],
  ]) {
    const r = await post('/good', body!);
    tt.same([r.status, ((r.json as JsonObject).error as JsonObject).code], [200, -32700], `JSON-RPC: ${name}`);
  }
  const restLong = await post(
    '/good/good/message:send',
    `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"${long}\\x"}]}}`,
  );
  tt.same(
    [restLong.status, ((restLong.json as JsonObject).error as JsonObject).status],
    [400, 'INVALID_ARGUMENT'],
    'REST: a bad escape in a long text',
  );
  await stillServing(tt, 'JSONRPC');
  await stillServing(tt, 'HTTP+JSON');
});

t.test('JSON-RPC that is not a request object', async (tt) => {
  for (const body of [
    '42',
    '"x"',
    '{"foo":1}',
    '{"jsonrpc":"1.0","id":1,"method":"GetTask"}',
    '{"jsonrpc":"2.0","id":{},"method":"GetTask"}',
    '{"jsonrpc":"2.0","id":1,"method":7}',
  ]) {
    const r = await post('/good', body);
    tt.equal(((r.json as JsonObject).error as JsonObject).code, -32600, `-32600 for ${body}`);
  }
  const empty = await post('/good', '[]');
  tt.equal(((empty.json as JsonObject).error as JsonObject).code, -32600, 'empty batch → one -32600');
  await stillServing(tt, 'JSONRPC');
});

t.test('notifications and batches (JSON-RPC 2.0 §6)', async (tt) => {
  const note = await post(
    '/good',
    JSON.stringify({
      jsonrpc: '2.0',
      method: 'SendMessage',
      params: { tenant: 'good', message: userMessage('notified') },
    }),
  );
  tt.same([note.status, note.json], [204, undefined], 'a notification gets no body');
  tt.equal(agent.lastCall()?.text, 'notified', 'but it was forwarded');
  const batch = await post(
    '/good',
    JSON.stringify([
      { jsonrpc: '2.0', id: 'a', method: 'SendMessage', params: { tenant: 'good', message: userMessage('one') } },
      { jsonrpc: '2.0', method: 'SendMessage', params: { tenant: 'good', message: userMessage('two') } },
      { jsonrpc: '2.0', id: 'c', method: 'NoSuchMethod' },
      1,
    ]),
  );
  const arr = batch.json as JsonObject[];
  tt.equal(arr.length, 3, 'one response per non-notification element');
  tt.same(
    arr.map((x) => x.id),
    ['a', 'c', null],
    'ids kept in order',
  );
  tt.ok(arr[0]?.result, 'first succeeded');
  tt.same(
    arr.slice(1).map((x) => (x.error as JsonObject).code),
    [-32601, -32600],
    'then method not found, invalid request',
  );
  const allNotes = await post(
    '/good',
    JSON.stringify([{ jsonrpc: '2.0', method: 'GetTask', params: { tenant: 'good', id: 'x' } }]),
  );
  tt.same([allNotes.status, allNotes.json], [204, undefined], 'a batch of notifications gets no body');
});

t.test('unknown method', async (tt) => {
  const rpc = await post('/good', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/frobnicate', params: {} }));
  tt.equal(((rpc.json as JsonObject).error as JsonObject).code, -32601, 'JSON-RPC -32601');
  const rest = await request(`${gw.httpUrl}/good/good/no/such/thing`, { headers: { 'a2a-version': '1.0' } });
  const body = (await rest.body.json()) as { error: JsonObject };
  tt.same([rest.statusCode, body.error.status], [501, 'UNIMPLEMENTED'], 'REST 501 UNIMPLEMENTED');
  const wrongVerb = await request(`${gw.httpUrl}/good/good/message:send`, {
    method: 'GET',
    headers: { 'a2a-version': '1.0' },
  });
  await wrongVerb.body.dump();
  tt.equal(wrongVerb.statusCode, 501, 'REST wrong verb → 501');
  const g = await callGrpcRaw(gw.grpcAddress, 'NoSuchMethod' as never, Buffer.alloc(0), { 'a2a-version': '1.0' });
  tt.equal(g.err?.code, grpc.status.UNIMPLEMENTED, 'gRPC UNIMPLEMENTED');
  await stillServing(tt, 'GRPC');
});

t.test('params of the wrong type or missing', async (tt) => {
  const violation = (r: WireResult): unknown =>
    (
      r.details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest')?.fieldViolations as
        JsonObject[] | undefined
    )?.[0]?.field;
  for (const inbound of BINDINGS) {
    if (inbound !== 'GRPC') {
      const wrong = await CALLERS[inbound](gw, 'GetTask', { id: 'x', historyLength: 'many' }, good);
      isError(tt, inbound, wrong, 'INVALID_PARAMS');
      tt.equal(violation(wrong), 'historyLength', `${inbound}: the violation names historyLength`);
    } else {
      // protobuf cannot carry "many" in an int32: the caller's encoding refuses it, and a length-delimited
      // value where the varint belongs (field 3, wire type 2) is no valid GetTaskRequest at the gateway
      await tt.rejects(
        CALLERS.GRPC(gw, 'GetTask', { id: 'x', historyLength: 'many' }, good),
        /history_length/,
        'GRPC: the encoding refuses historyLength "many"',
      );
      const bytes = Buffer.concat([requestBytes('GetTask', { id: 'x', tenant: 'good' }), Buffer.from('\x1a\x04many')]);
      const { err } = await callGrpcRaw(gw.grpcAddress, 'GetTask', bytes, { 'a2a-version': '1.0' });
      tt.match(
        { code: err?.code, details: err?.details },
        { code: grpc.status.INVALID_ARGUMENT, details: /not a valid GetTaskRequest/ },
        'GRPC: historyLength as bytes: INVALID_ARGUMENT, no valid request',
      );
    }
    const missing = await CALLERS[inbound](gw, 'CreateTaskPushNotificationConfig', { taskId: 't', token: 'x' }, good);
    isError(tt, inbound, missing, 'INVALID_PARAMS');
    const bad = missing.details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
    tt.same(
      bad?.fieldViolations,
      [{ field: 'url', description: 'url is required' }],
      `${inbound}: names the missing field`,
    );
    // an unknown role is no role (the gRPC caller's encoding drops the unknown name): refused, naming the field
    const role = await CALLERS[inbound](
      gw,
      'SendMessage',
      { message: { messageId: 'm', role: 'ROLE_KING', parts: [{ text: 'x' }] } },
      good,
    );
    isError(tt, inbound, role, 'INVALID_PARAMS');
    tt.equal(violation(role), 'message.role', `${inbound}: the violation names message.role`);
    await stillServing(tt, inbound);
  }
  const params = await post('/good', JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'GetTask', params: ['x'] }));
  tt.equal(((params.json as JsonObject).error as JsonObject).code, -32602, 'JSON-RPC positional params → -32602');
});

t.test('unsupported Content-Type', async (tt) => {
  const rpc = await post('/good', '{}', 'text/plain');
  tt.same(
    [rpc.status, ((rpc.json as JsonObject).error as JsonObject).code],
    [200, -32005],
    'JSON-RPC: ContentTypeNotSupportedError (-32005), as the official SDK answers it',
  );
  const rest = await post('/good/good/message:send', '{}', 'text/plain');
  tt.same(
    [rest.status, ((rest.json as JsonObject).error as JsonObject).status],
    [400, 'INVALID_ARGUMENT'],
    'REST: 400 INVALID_ARGUMENT (spec §5.4)',
  );
  await stillServing(tt, 'HTTP+JSON');
});

t.test('body over the size limit', async (tt) => {
  const big = userMessage('x'.repeat(4096));
  const small = { tenant: 'small', prefix: '/small' };
  for (const inbound of BINDINGS) {
    const r = await CALLERS[inbound](gw, 'SendMessage', { message: big }, small);
    if (inbound === 'JSONRPC')
      tt.same(
        [r.httpStatus, r.code],
        [413, CATALOGUE.PAYLOAD_TOO_LARGE.jsonRpc],
        'JSON-RPC: 413 with a JSON-RPC error saying so',
      );
    else isError(tt, inbound, r, 'PAYLOAD_TOO_LARGE');
    tt.match(r.message ?? '', /limit/, `${inbound}: says what the limit is`);
  }
  const huge = Buffer.alloc(11 * 1024 * 1024, 0x20);
  const rest = await post('/good/good/message:send', huge);
  tt.same(
    [rest.status, ((rest.json as JsonObject).error as JsonObject).status],
    [413, 'RESOURCE_EXHAUSTED'],
    'over the listener limit: REST 413',
  );
  const rpc = await post('/good', huge);
  tt.same(
    [rpc.status, ((rpc.json as JsonObject).error as JsonObject).code],
    [413, -32053],
    'over the listener limit: JSON-RPC 413',
  );
  for (const inbound of BINDINGS) await stillServing(tt, inbound);
});

t.test('invalid protobuf bytes on gRPC', async (tt) => {
  const r = await callGrpcRaw(gw.grpcAddress, 'GetTask', Buffer.from([0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), {
    'a2a-version': '1.0',
  });
  tt.equal(r.err?.code, grpc.status.INVALID_ARGUMENT, 'INVALID_ARGUMENT');
  await stillServing(tt, 'GRPC');
});

// What binary protobuf holds and JSON cannot: a Value number NaN or Infinity, a Timestamp out of its range
t.test('a gRPC request with a NaN, an Infinity or a timestamp out of range: INVALID_ARGUMENT naming it', async (tt) => {
  const send = (message: Record<string, unknown>) =>
    toBinary(
      SendMessageRequestSchema,
      create(SendMessageRequestSchema, {
        tenant: 'good',
        message: { messageId: 'm', role: Role.USER, parts: [{ content: { case: 'text', value: 'x' } }], ...message },
      }),
    );
  const bad = [
    ['SendMessage', send({ metadata: { n: NaN } }), 'message.metadata.n'],
    [
      'SendMessage',
      send({ parts: [{ content: { case: 'data', value: { kind: { case: 'numberValue', value: -Infinity } } } }] }),
      'message.parts[0].data',
    ],
    [
      'ListTasks',
      toBinary(
        ListTasksRequestSchema,
        create(ListTasksRequestSchema, { tenant: 'good', statusTimestampAfter: { seconds: 253_402_300_800n } }),
      ),
      'statusTimestampAfter',
    ],
  ] as const;
  for (const [method, bytes, field] of bad) {
    const r = await callGrpcRaw(gw.grpcAddress, method, Buffer.from(bytes), { 'a2a-version': '1.0' });
    tt.equal(r.err?.code, grpc.status.INVALID_ARGUMENT, `${field}: INVALID_ARGUMENT`);
    const status = statusJson(r.err?.metadata.get('grpc-status-details-bin')[0] as Buffer | undefined);
    const request = (status.details as JsonObject[]).find(
      (d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest',
    );
    tt.equal((request?.fieldViolations as JsonObject[])?.[0]?.field, field, `the violation names ${field}`);
  }
  await stillServing(tt, 'GRPC');
});

t.test("an agent's answer that JSON cannot write: INVALID_AGENT_RESPONSE in every binding", async (tt) => {
  for (const route of ['nojson', 'infinity', 'infinity03']) {
    for (const inbound of BINDINGS) {
      const r = await CALLERS[inbound](gw, 'GetTask', { id: 't' }, { tenant: route, prefix: `/${route}` });
      isError(tt, inbound, r, 'INVALID_AGENT_RESPONSE');
      await stillServing(tt, inbound);
    }
  }
});

t.test("a number past a double's range in a request: the caller's mistake, 1.0 and 0.3 alike", async (tt) => {
  const message = '{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"x":1e999}}';
  const rpc = await post('/plain', `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":${message}}}`);
  tt.equal(
    ((rpc.json as JsonObject).error as JsonObject).code,
    CATALOGUE.INVALID_PARAMS.jsonRpc,
    'JSON-RPC InvalidParams',
  );
  // a 0.3 REST caller (no A2A-Version, a /v1 path): its request is written back through the 0.3 schema first
  const v03 = await request(`${gw.httpUrl}/plain/v1/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"x"}],"metadata":{"x":1e999}}}',
  });
  const text = await v03.body.text();
  tt.equal(v03.statusCode, 400, `0.3 REST: 400 (${text})`);
  tt.notMatch(text, /internal gateway error/);
  await stillServing(tt, 'HTTP+JSON');
});

t.test('no route', async (tt) => {
  const rest = await request(`${gw.httpUrl}/nowhere/tasks/x`, { headers: { 'a2a-version': '1.0' } });
  const body = (await rest.body.json()) as { error: JsonObject };
  tt.same([rest.statusCode, body.error.status], [404, 'NOT_FOUND'], 'REST 404 NOT_FOUND');
  const rpc = await post('/nowhere', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }));
  tt.same(
    [rpc.status, ((rpc.json as JsonObject).error as JsonObject).code],
    [404, CATALOGUE.NO_ROUTE.jsonRpc],
    'JSON-RPC no route',
  );
  const wrongTenant = await CALLERS.JSONRPC(gw, 'GetTask', { id: 'x' }, { tenant: 'other', prefix: '/good' });
  tt.equal(wrongTenant.code, CATALOGUE.NO_ROUTE.jsonRpc, 'JSON-RPC: a tenant no route serves');
  const g = await CALLERS.GRPC(gw, 'GetTask', { id: 'x' }, { tenant: 'nobody', prefix: '' });
  tt.equal(g.code, grpc.status.NOT_FOUND, 'gRPC NOT_FOUND');
});

for (const [kind, name] of [
  ['refused', 'UPSTREAM_UNAVAILABLE'],
  ['hang', 'UPSTREAM_TIMEOUT'],
  ['garbage', 'INVALID_AGENT_RESPONSE'],
] as const) {
  t.test(`upstream ${kind} → ${name}`, async (tt) => {
    for (const inbound of BINDINGS) {
      for (const upstream of BINDINGS) {
        const opts = { tenant: `${kind}-${slug(upstream)}`, prefix: `/${kind}-${slug(upstream)}` };
        const r = await CALLERS[inbound](gw, 'GetTask', { id: 'x' }, opts);
        isError(tt, inbound, r, name);
        const info = r.details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
        tt.equal(info?.reason, name, `${inbound} → ${upstream}: ErrorInfo.reason ${name}`);
      }
      await stillServing(tt, inbound);
    }
  });
}

t.test('JSON nested too deep is the caller mistake, answered 400, not a 500', async (tt) => {
  let deep: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < 1000; i++) deep = { d: deep };
  for (const inbound of ['JSONRPC', 'HTTP+JSON'] as const) {
    const r = await CALLERS[inbound](
      gw,
      'SendMessage',
      { message: userMessage('deep', { metadata: deep as never }) },
      good,
    );
    isError(tt, inbound, r, 'INVALID_PARAMS');
    await stillServing(tt, inbound);
  }
});
