// Issue 13, errors across versions (bridge §6–§7): a stream that fails
// midway (its gateway drained while it is open: SHUTTING_DOWN) ends in the
// caller's version and binding, both ways (0.3 caller → 1.0 agent, 1.0 caller
// → 0.3 agent, each binding, read by the official clients); bad 0.3 input is answered in 0.3's form — JSON-RPC error objects
// without 1.0 google.rpc arrays (field violations told in the message), even
// for what is refused before the pipeline (a 0.3 stream in a batch,
// non-object params); 0.3 REST `{code, message}`; 0.3 gRPC status and
// message — and the errors a 0.3 agent answers in its dialect (JSON-RPC code,
// REST body, bare gRPC status) reach 1.0 callers as the catalogue's. The
// gateway keeps serving.
import * as grpc from '@grpc/grpc-js';
import t from 'tap';
import { pino } from 'pino';
import { Client, request } from 'undici';
import { create, toBinary } from '@bufbuild/protobuf';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import {
  GetTaskRequestSchema as GetTaskV03,
  Role as RoleV03,
  SendMessageRequestSchema as SendV03,
} from '../../src/gen/a2a/v1/a2a_pb.js';
import { startGateway } from '../../src/server/gateway.js';
import { refusedPort } from '../helpers/broken-upstreams.js';
import { startEchoAgentV03 } from '../helpers/echo-agent-v03.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, slug } from '../helpers/harness.js';
import { sdkClient, sdkMessage } from '../helpers/sdk.js';
import { v03Client, v03Message, V03_TRANSPORTS } from '../helpers/sdk-v03.js';

const v1 = await startEchoAgent({ bindings: BINDINGS });
const v03 = await startEchoAgentV03({ bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'], extendedCardConfigured: false });
const refused = await refusedPort();
const routes = gatewayConfig([
  { name: 'to-v1', upstream: { url: v1.httpUrl, binding: 'auto' } },
  // an agent that refuses connections: its card cannot be served
  {
    name: 'no-card',
    match: { pathPrefix: '/no-card' },
    upstream: { url: `http://127.0.0.1:${refused}/rpc`, binding: 'JSONRPC' },
  },
  // the same behind a tenant: no 0.3 caller reaches it, so its card is always 1.0's
  {
    name: 'no-card-tenant',
    match: { pathPrefix: '/no-card-tenant', tenant: 'nct' },
    upstream: { url: `http://127.0.0.1:${refused}/rpc`, binding: 'JSONRPC' },
  },
  ...BINDINGS.map((b) => ({
    name: `to-v03-${slug(b)}`,
    match: { pathPrefix: `/v03-${slug(b)}`, tenant: `v03-${slug(b)}` },
    upstream: { url: v03.urlFor(b), binding: b, version: '0.3' as const },
    card: { url: v03.cardUrl },
  })),
]);
const gw = await startGateway(routes, pino({ level: 'silent' }));
// the mid-stream failure under test: this one is drained while its streams are open (SHUTTING_DOWN)
const ending = await startGateway(routes, pino({ level: 'silent' }));
const grpcClient = new grpc.Client(gw.grpcAddress, grpc.credentials.createInsecure());
t.teardown(async () => {
  grpcClient.close();
  closeGrpcClients();
  await Promise.all([gw.close(), ending.close()]);
  await Promise.all([v1.close(), v03.close()]);
});

/** A held stream whose first `n` events have come; `rest` pulls the others (and the failure). */
async function opened<T>(events: AsyncGenerator<T>, n: number) {
  const head: T[] = [];
  for (let i = 0; i < n; i++) head.push((await events.next()).value as T);
  const rest = (async () => {
    for await (const _e of events);
  })();
  rest.catch(() => undefined); // awaited below
  return { head, rest };
}

t.test('a stream failing midway ends in the caller’s version and binding, both ways', async (tt) => {
  const v03Streams = await Promise.all(
    V03_TRANSPORTS.map(async (transport) => {
      const client = await v03Client(`${ending.httpUrl}/.well-known/agent-card.json`, transport);
      return { transport, ...(await opened(client.sendMessageStream({ message: v03Message('hold') }), 2)) };
    }),
  );
  const v1Streams = await Promise.all(
    BINDINGS.flatMap((up) =>
      BINDINGS.map(async (inbound) => {
        const client = await sdkClient(inbound, `${ending.httpUrl}/v03-${slug(up)}/.well-known/agent-card.json`);
        const params = { tenant: '', message: sdkMessage('hold'), configuration: undefined, metadata: undefined };
        return { inbound, up, ...(await opened(client.sendMessageStream(params), 2)) };
      }),
    ),
  );
  for (const s of v03Streams)
    tt.same(
      s.head.map((e) => e.kind),
      ['task', 'status-update'],
      `0.3 ${s.transport}: open`,
    );
  for (const s of v1Streams)
    tt.same(
      s.head.map((e) => e.payload?.$case),
      ['task', 'statusUpdate'],
      `1.0 ${s.inbound} ← ${s.up}: open`,
    );
  await ending.drain(0); // every open stream now ends with SHUTTING_DOWN
  const v03Form = { JSONRPC: /\(Code: -32063\)/, 'HTTP+JSON': /REST error: .*\(Code: -32063\)/, GRPC: /! 14 / };
  for (const s of v03Streams) {
    await tt.rejects(s.rest, v03Form[s.transport], `0.3 ${s.transport} caller → 1.0 agent: 0.3's error form`);
    await tt.rejects(s.rest, /shutting down/, `0.3 ${s.transport}: the reason`);
  }
  for (const s of v1Streams) await tt.rejects(s.rest, /shutting down/, `1.0 ${s.inbound} caller → 0.3 ${s.up} agent`);
});

async function rpc(body: unknown): Promise<any> {
  const res = await request(`${gw.httpUrl}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.body.json();
}
const noArrays = (e: any) => !Array.isArray(e?.data);

t.test('bad 0.3 JSON-RPC input: 0.3 error objects, violations in the message', async (tt) => {
  const batch = await rpc([
    { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'nope' } },
    { jsonrpc: '2.0', id: 2, method: 'message/stream', params: { message: v03Message('x') } },
  ]);
  tt.same(
    batch.map((r: any) => r.error?.code),
    [-32001, -32600],
    'a batch: TaskNotFound, and a stream refused in a batch',
  );
  tt.match(batch[1].error.message, 'message/stream streams its answer', 'named by its 0.3 name');
  tt.ok(
    batch.every((r: any) => noArrays(r.error)),
    'no 1.0 details array',
  );
  const notObject = await rpc({ jsonrpc: '2.0', id: 3, method: 'tasks/get', params: 5 });
  tt.match(notObject.error, { code: -32602, message: /params: params must be an object/ });
  tt.ok(noArrays(notObject.error));
  const wrongType = await rpc({ jsonrpc: '2.0', id: 4, method: 'tasks/get', params: { id: 5 } });
  tt.match(wrongType.error, { code: -32602, message: /id: expected a string/ }, 'the field named in the message');
  tt.ok(noArrays(wrongType.error));
  const badPart = await rpc({
    jsonrpc: '2.0',
    id: 5,
    method: 'message/send',
    params: { message: { ...v03Message('x'), parts: [{ kind: 'video', text: 1 }] } },
  });
  tt.match(badPart.error, { code: -32602 }, 'an unknown part kind');
  tt.ok(noArrays(badPart.error));
});

// before a method names the version, the caller's A2A-Version does: none (or 0.x) is 0.3 (§3.6.2)
t.test('errors before a method is read: 0.3 forms for a caller without A2A-Version, 1.0 with 1.0', async (tt) => {
  const post = async (path: string, body: string, version?: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (version) headers['a2a-version'] = version;
    const res = await request(`${gw.httpUrl}${path}`, { method: 'POST', headers, body });
    return { status: res.statusCode, json: (await res.body.json()) as any };
  };
  for (const [what, body] of [
    ['unparsable JSON', '{"jsonrpc": '],
    ['not a request', '{"jsonrpc":"1.0","id":1,"method":"x"}'],
    ['an unknown method', '{"jsonrpc":"2.0","id":1,"method":"tasks/nothing"}'],
    ['a batch item that is no object', '[7]'],
  ]) {
    const v03 = await post('/', body!);
    const error = (Array.isArray(v03.json) ? v03.json[0] : v03.json).error;
    tt.ok(typeof error.code === 'number' && noArrays(error), `JSON-RPC, ${what}: 0.3's error object`);
    const v1 = await post('/', body!, '1.0');
    const error1 = (Array.isArray(v1.json) ? v1.json[0] : v1.json).error;
    tt.ok(Array.isArray(error1.data), `JSON-RPC, ${what}, A2A-Version 1.0: 1.0's details array`);
  }
  // 0.3 REST paths (/v1/...) refused before any operation reads them: `{code, message}`
  const raw = new Client(gw.httpUrl); // sends the path as written (a URL would resolve its dot segments)
  tt.teardown(() => raw.close());
  const get = async (path: string) => {
    const res = await raw.request({ method: 'GET', path });
    return { status: res.statusCode, json: (await res.body.json()) as any };
  };
  tt.match(await get('/v1/tasks/%zz'), { status: 400, json: { code: -32602, message: /id: malformed/ } }, 'bad %');
  tt.match(await get('/v1/nothing'), { status: 404, json: { code: -32601 } }, 'no such 0.3 operation');
  tt.match(await get('/v1/./tasks/t'), { status: 400, json: { code: -32600 } }, 'a dot segment');
  tt.match(await get('/v1/tasks'), { status: 400, json: { code: -32009 } }, 'a 1.0 operation (ListTasks, tenant v1)');
  // a 1.x caller keeps 1.0's google.rpc form there, its version in the header or the query (§3.6.1)
  for (const [path, headers] of [
    ['/v1/./tasks/t', { 'a2a-version': '1.0' }],
    ['/v1/./tasks/t?A2A-Version=1.0', {}],
    ['/v1/tasks/%zz', { 'a2a-version': '1.1' }],
  ] as const) {
    const res = await raw.request({ method: 'GET', path, headers });
    const json = (await res.body.json()) as any;
    tt.ok(Array.isArray(json.error?.details), `${path} ${JSON.stringify(headers)}: 1.0's form`);
  }
  // `v1` counts only where 0.3's REST paths start: below the route prefix, not anywhere in the path
  // (refusals the edge gives before any route: a dot segment, an OPTIONS no CORS rule allows)
  const deep = await get('/v03-rest/tasks/v1/.');
  tt.ok(Array.isArray(deep.json.error?.details), '/v03-rest/tasks/v1/.: 1.0 form');
  const preflight = await raw.request({ method: 'OPTIONS', path: '/v03-rest/tasks/v1' });
  tt.ok(Array.isArray(((await preflight.body.json()) as any).error?.details), 'an OPTIONS there: 1.0 form too');
  // a card that cannot be served: the error in the form of the version whose card was asked for
  tt.match(await get('/no-card/.well-known/agent-card.json'), { status: 503, json: { code: -32051 } }, 'card: 0.3');
  const card1 = await raw.request({
    method: 'GET',
    path: '/no-card/.well-known/agent-card.json',
    headers: { 'a2a-version': '1.0' },
  });
  tt.match(
    await card1.body.json(),
    { error: { status: 'UNAVAILABLE', details: Array } },
    'card asked for as 1.0: 1.0 form',
  );
  const tenantCard = await get('/no-card-tenant/.well-known/agent-card.json');
  tt.match(tenantCard.json, { error: { status: 'UNAVAILABLE' } }, "a tenant route's card, no A2A-Version: 1.0 form");
  const underPrefix = await get('/v03-rest/v1/./tasks/t');
  tt.match(underPrefix, { status: 400, json: { code: -32600 } }, '/v03-rest/v1/./tasks/t: 0.3 form below the prefix');
  tt.match(await get('/v03-rest/v1/nothing'), { status: 404, json: { code: -32601 } }, 'and from the REST inbound');
});

t.test('bad 0.3 REST and gRPC input: 0.3 forms', async (tt) => {
  const res = await request(`${gw.httpUrl}/v1/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"message": ',
  });
  tt.equal(res.statusCode, 400, 'REST: broken JSON is 400');
  tt.match(await res.body.json(), { code: -32700 }, 'REST: {code: -32700}');
  const wrong = await request(`${gw.httpUrl}/v1/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', content: 'not a list' } }),
  });
  tt.equal(wrong.statusCode, 400, 'REST: a wrong field type is 400');
  tt.match(await wrong.body.json(), { code: -32602, message: /content/ }, 'REST: -32602 naming the field');
  const err = await new Promise<grpc.ServiceError | undefined>((resolve) =>
    grpcClient.makeUnaryRequest(
      '/a2a.v1.A2AService/SendMessage',
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.from([0x0a, 0xff, 0xff]),
      new grpc.Metadata(),
      (e) => resolve(e ?? undefined),
    ),
  );
  tt.equal(err?.code, grpc.status.INVALID_ARGUMENT, 'gRPC: undecodable bytes are INVALID_ARGUMENT');
  tt.same(err?.metadata.get('grpc-status-details-bin'), [], 'gRPC: no 1.0 details');
  // bytes that decode but are no valid request: InvalidParams, its violation told in the message (0.3 has no details)
  const invalid = [
    ['GetTask', toBinary(GetTaskV03, create(GetTaskV03, { name: 'jobs/1' })), /^Invalid parameters: name: /],
    [
      'SendMessage',
      toBinary(
        SendV03,
        create(SendV03, {
          request: { messageId: 'm', role: RoleV03.USER, content: [{ part: { case: 'text', value: 'x' } }] },
          metadata: { x: Infinity }, // binary holds it, JSON cannot write it
        }),
      ),
      /^Invalid parameters: \(request\): /,
    ],
  ] as const;
  for (const [method, bytes, message] of invalid) {
    const e = await new Promise<grpc.ServiceError | undefined>((resolve) =>
      grpcClient.makeUnaryRequest(
        `/a2a.v1.A2AService/${method}`,
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.from(bytes),
        new grpc.Metadata(),
        (e) => resolve(e ?? undefined),
      ),
    );
    tt.equal(e?.code, grpc.status.INVALID_ARGUMENT, `gRPC ${method}: INVALID_ARGUMENT`);
    tt.match(e?.details, message, `gRPC ${method}: InvalidParams, naming what is wrong (${e?.details})`);
  }
});

t.test("a 0.3 agent's errors reach 1.0 callers as the catalogue's", async (tt) => {
  for (const up of BINDINGS) {
    const opts = { tenant: `v03-${slug(up)}`, prefix: `/v03-${slug(up)}` };
    for (const inbound of BINDINGS) {
      const missing = await CALLERS[inbound](gw, 'GetTask', { id: 'nope' }, opts);
      tt.equal(missing.details?.find((d) => d.reason)?.reason, 'TASK_NOT_FOUND', `${inbound} ← ${up}: TaskNotFound`);
      const card = await CALLERS[inbound](gw, 'GetExtendedAgentCard', {}, opts);
      tt.equal(
        card.details?.find((d) => d.reason)?.reason,
        'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
        `${inbound} ← ${up}: AuthenticatedExtendedCardNotConfigured`,
      );
    }
  }
});

t.test('the gateway keeps serving', async (tt) => {
  const client = await v03Client(`${gw.httpUrl}/.well-known/agent-card.json`);
  tt.equal((await client.sendMessage({ message: v03Message('still here') })).kind, 'task');
});
