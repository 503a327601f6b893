// A 0.3 caller → gateway → a recording 1.0 JSON-RPC agent (what the agent got
// is what the gateway sent): a task id holding "/" on 0.3 REST (%2F) and a
// gRPC name longer than its field's shape are InvalidParams, and the agent is
// never called (the call once acted on the name's first segment: another
// task); an answer with no 0.3 form (a message part without content) is
// INVALID_AGENT_RESPONSE on every binding, in a stream too; a push config
// with `schemes: []` loses nothing (credentials without a scheme are refused
// naming the 0.3 field); a 0.3 REST body that is not JSON by its Content-Type
// is ContentTypeNotSupported, as on 1.0 REST; the push-config list's paging
// goes through 0.3 REST's query (0.3 JSON-RPC has none: the first page).
// The call's log line says what the caller got: INVALID_AGENT_RESPONSE, not OK.
import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { create, toBinary, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import {
  CancelTaskRequestSchema as CancelV03,
  GetTaskRequestSchema as GetTaskV03,
  Role as RoleV03,
  SendMessageRequestSchema as SendV03,
  SendMessageRequestSchema as SendStreamV03,
  TaskSubscriptionRequestSchema as SubscribeV03,
} from '../../src/gen/a2a/v1/a2a_pb.js';
import { startGateway } from '../../src/server/gateway.js';
import { jsonRpcAgent } from '../helpers/broken-upstreams.js';
import { gatewayConfig } from '../helpers/harness.js';
import { TestSseParser } from '../helpers/sse.js';
import { waitFor } from '../helpers/wait.js';

type Seen = { method: string; params: Record<string, unknown> };
const seen: Seen[] = [];
const task = (id: string, state = 'TASK_STATE_WORKING') => ({ id, contextId: 'c', status: { state } });
const emptyPart = { messageId: 'm-a', role: 'ROLE_AGENT', parts: [{}] };

const agent = await jsonRpcAgent((body, res) => {
  const params = body.params as unknown as Record<string, unknown>;
  seen.push({ method: body.method, params });
  const answer = (result: unknown) =>
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }));
  switch (body.method) {
    case 'SendStreamingMessage': {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const result of [{ task: task('s') }, { message: emptyPart }])
        res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result })}\n\n`);
      return void res.end();
    }
    case 'SendMessage':
      return answer({ message: emptyPart });
    case 'CreateTaskPushNotificationConfig': {
      const { tenant: _t, ...config } = params;
      return answer(config);
    }
    case 'CancelTask':
      return answer(task(String(params.id), 'TASK_STATE_CANCELED'));
    case 'ListTaskPushNotificationConfigs':
      return answer({ configs: [{ taskId: 't', id: 'c', url: 'https://h.x/' }], nextPageToken: 'next' });
    default:
      return answer(task(String(params.id)));
  }
});
const calls: Array<Record<string, unknown>> = [];
const gw = await startGateway(
  gatewayConfig([{ name: 'root', match: { pathPrefix: '' }, upstream: { url: agent.url, binding: 'JSONRPC' } }]),
  pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) {
          const line = JSON.parse(l) as Record<string, unknown>;
          if (line.msg === 'call') calls.push(line);
        }
        cb();
      },
    }),
  ),
);
const grpcClient = new grpc.Client(gw.grpcAddress, grpc.credentials.createInsecure());
t.teardown(async () => {
  grpcClient.close();
  await gw.close();
  await agent.close();
});

/** A 0.3 REST call (no A2A-Version: a `/v1/...` path is 0.3). */
async function rest(method: string, path: string, body?: unknown, contentType = 'application/json') {
  const res = await request(`${gw.httpUrl}${path}`, {
    method: method as 'GET',
    ...(body === undefined ? {} : { headers: { 'content-type': contentType }, body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

function grpcUnary<S extends DescMessage>(rpc: string, schema: S, init: MessageInitShape<S>) {
  return new Promise<{ err?: grpc.ServiceError; value?: Buffer }>((resolve) =>
    grpcClient.makeUnaryRequest(
      `/a2a.v1.A2AService/${rpc}`,
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.from(toBinary(schema, create(schema, init))),
      new grpc.Metadata(),
      (err, value) => resolve(err ? { err } : { value: value! }),
    ),
  );
}

function grpcStream<S extends DescMessage>(rpc: string, schema: S, init: MessageInitShape<S>) {
  return new Promise<grpc.StatusObject>((resolve) => {
    const raw = (b: Buffer): Buffer => b;
    const bytes = Buffer.from(toBinary(schema, create(schema, init)));
    const call = grpcClient.makeServerStreamRequest(`/a2a.v1.A2AService/${rpc}`, raw, raw, bytes);
    call.on('data', () => undefined);
    call.on('error', () => undefined); // the status says it
    call.on('status', resolve);
  });
}

t.test('a name that is not exactly its shape never reaches the agent as another task', async (tt) => {
  seen.length = 0;
  const refusals = [
    await rest('GET', '/v1/tasks/a%2Fb'),
    await rest('POST', '/v1/tasks/victim%2Fx:cancel'),
    await rest('GET', '/v1/tasks/a%2Fb:subscribe'),
    await rest('GET', '/v1/tasks/a%2Fb/pushNotificationConfigs'),
    await rest('GET', '/v1/tasks/t/pushNotificationConfigs/c%2Fd'),
    await rest('POST', '/v1/tasks/a%2Fb/pushNotificationConfigs', { pushNotificationConfig: { url: 'https://h.x/' } }),
  ];
  for (const r of refusals) {
    tt.equal(r.status, 400, 'REST: 400');
    tt.match(r.body, { code: -32602, message: /id: an id containing "\/"|configId: an id containing "\/"/ });
  }
  const grpcCalls = [
    await grpcUnary('GetTask', GetTaskV03, { name: 'tasks/a/b' }),
    await grpcUnary('CancelTask', CancelV03, { name: 'tasks/a/pushNotificationConfigs/x' }),
  ];
  for (const { err } of grpcCalls) {
    tt.equal(err?.code, grpc.status.INVALID_ARGUMENT, 'gRPC: INVALID_ARGUMENT');
    tt.match(err?.details, /^Invalid parameters: name: expected "tasks\/\{id\}"/, 'gRPC: naming the field');
  }
  const sub = await grpcStream('TaskSubscription', SubscribeV03, { name: 'tasks/a/b' });
  tt.equal(sub.code, grpc.status.INVALID_ARGUMENT, 'gRPC stream: INVALID_ARGUMENT');
  tt.same(seen, [], 'the agent got none of them');

  const ok = await rest('GET', '/v1/tasks/a');
  const got = await grpcUnary('CancelTask', CancelV03, { name: 'tasks/victim' });
  tt.equal(ok.status, 200, 'a plain id still works');
  tt.notOk(got.err, 'so does an exact name');
  tt.same(
    seen.map((s) => [s.method, s.params.id]),
    [
      ['GetTask', 'a'],
      ['CancelTask', 'victim'],
    ],
    'the agent got the ids as they were named',
  );
});

const v03Message = { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] };

t.test('an answer with no 0.3 form is InvalidAgentResponse on every binding', async (tt) => {
  const sent = await rest('POST', '/v1/message:send', {
    message: { messageId: 'm-1', role: 'ROLE_USER', content: [{ text: 'hi' }] },
  });
  tt.equal(sent.status, 500, 'REST: 500');
  tt.match(sent.body, { code: -32006, message: /no A2A 0\.3 form: part: a 1\.0 part with no content/ });

  const { err } = await grpcUnary('SendMessage', SendV03, {
    request: { messageId: 'm-1', role: RoleV03.USER, content: [{ part: { case: 'text', value: 'hi' } }] },
  });
  tt.equal(err?.code, grpc.status.INTERNAL, 'gRPC: INTERNAL (0.3 maps -32006 so)');
  tt.match(err?.details, /no A2A 0\.3 form/, 'gRPC: the reason, not "internal gateway error"');

  const res = await request(`${gw.httpUrl}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'message/stream', params: { message: v03Message } }),
  });
  const sse = new TestSseParser();
  const events = [...sse.push(await res.body.text()), ...sse.end()].map(
    (e) => JSON.parse(e.data) as Record<string, any>,
  );
  tt.equal(events[0]?.result?.kind, 'task', 'JSON-RPC stream: the good event first');
  tt.match(events[1], { id: 7, error: { code: -32006, message: /no A2A 0\.3 form/ } }, 'then InvalidAgentResponse');
  tt.equal(events.length, 2, 'and the stream ends');
});

t.test('each of those calls is logged and counted as what its caller got, not OK', async (tt) => {
  calls.length = 0;
  const outcome = (inbound: string, method: string) =>
    calls.filter((l) => l.inbound === inbound && l.method === method).map((l) => [l.outcome, l.events]);
  const message = { messageId: 'm-1', role: 'ROLE_USER', content: [{ text: 'hi' }] };
  const restUnary = await rest('POST', '/v1/message:send', { message });
  tt.equal(restUnary.status, 500, 'REST: answered InvalidAgentResponse');
  const restStream = await request(`${gw.httpUrl}/v1/message:stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message }),
  });
  const restSse = new TestSseParser();
  const restEvents = [...restSse.push(await restStream.body.text()), ...restSse.end()];
  tt.equal(restEvents.length, 2, 'REST stream: the good event, then the error');
  tt.match(restEvents[1], { event: 'error', data: /-32006/ });
  const request03 = () => ({
    messageId: 'm-1',
    role: RoleV03.USER,
    content: [{ part: { case: 'text' as const, value: 'hi' } }],
  });
  const { err } = await grpcUnary('SendMessage', SendV03, { request: request03() });
  tt.equal(err?.code, grpc.status.INTERNAL, 'gRPC: answered InvalidAgentResponse');
  const streamed = await grpcStream('SendStreamingMessage', SendStreamV03, { request: request03() });
  tt.equal(streamed.code, grpc.status.INTERNAL, 'gRPC stream: ended with InvalidAgentResponse');
  const batch = await request(`${gw.httpUrl}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([{ jsonrpc: '2.0', id: 9, method: 'message/send', params: { message: v03Message } }]),
  });
  tt.match(await batch.body.json(), [{ id: 9, error: { code: -32006 } }], 'a batch item: its own error');

  const notified = await request(`${gw.httpUrl}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'message/send', params: { message: v03Message } }),
  });
  tt.equal(notified.statusCode, 204, 'a notification: no answer');
  await notified.body.dump();

  await waitFor(() => calls.length >= 6 || undefined, 'six call lines');
  const failed = ['INVALID_AGENT_RESPONSE', undefined];
  tt.same(outcome('HTTP+JSON', 'SendMessage'), [failed], 'REST unary');
  tt.same(outcome('HTTP+JSON', 'SendStreamingMessage'), [['INVALID_AGENT_RESPONSE', 1]], 'REST stream: one event');
  tt.same(outcome('GRPC', 'SendMessage'), [failed], 'gRPC unary');
  tt.same(outcome('GRPC', 'SendStreamingMessage'), [['INVALID_AGENT_RESPONSE', 1]], 'gRPC stream: one event');
  tt.same(
    outcome('JSONRPC', 'SendMessage'),
    [failed, ['OK', undefined]],
    'JSON-RPC batch item; a notification, whose answer nobody reads, is not written: OK',
  );
  const metrics = await gw.metrics.text();
  const series = /a2a_gateway_calls_total\{[^}]*method="SendStreamingMessage",inbound="GRPC"[^}]*outcome="([A-Z_]+)"/;
  tt.equal(series.exec(metrics)?.[1], 'INVALID_AGENT_RESPONSE', 'counted so');
});

t.test('push configs with no scheme: nothing lost, or refused naming the 0.3 field', async (tt) => {
  seen.length = 0;
  const url = 'https://hooks.example/a2a';
  const empty = await rest('POST', '/v1/tasks/t/pushNotificationConfigs', {
    name: 'tasks/t/pushNotificationConfigs/c',
    pushNotificationConfig: { url, authentication: { schemes: [] } },
  });
  tt.equal(empty.status, 201, 'REST: schemes [] is created');
  tt.same(seen.at(-1)?.params, { taskId: 't', id: 'c', url }, 'the agent got it without authentication');
  const creds = await rest('POST', '/v1/tasks/t/pushNotificationConfigs', {
    name: 'tasks/t/pushNotificationConfigs/c',
    pushNotificationConfig: { url, authentication: { credentials: 'abc' } },
  });
  tt.equal(creds.status, 400, 'REST: credentials without a scheme are 400');
  tt.match(creds.body, { code: -32602, message: /pushNotificationConfig\.authentication\.schemes: credentials need/ });

  const rpc = await request(`${gw.httpUrl}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 8,
      method: 'tasks/pushNotificationConfig/set',
      params: { taskId: 't', pushNotificationConfig: { id: 'd', url, authentication: { schemes: [] } } },
    }),
  });
  const body = (await rpc.body.json()) as Record<string, unknown>;
  tt.same(body.result, { taskId: 't', pushNotificationConfig: { id: 'd', url } }, 'JSON-RPC: set, as it was');
});

t.test('a 0.3 REST body not sent as JSON is ContentTypeNotSupported', async (tt) => {
  seen.length = 0;
  const plain = await rest(
    'POST',
    '/v1/message:send',
    { message: { messageId: 'm-1', role: 'ROLE_USER', content: [{ text: 'hi' }] } },
    'text/plain',
  );
  tt.equal(plain.status, 400, '400 (as 1.3.0 answers it)');
  tt.match(plain.body, { code: -32005 }, 'ContentTypeNotSupported');
  tt.same(seen, [], 'the agent was not called');
  const typed = await rest('POST', '/v1/tasks/t/pushNotificationConfigs', {}, 'application/a2a+json; charset=utf-8');
  tt.not(typed.body.code, -32005, 'application/a2a+json is JSON too');
});

t.test("the push-config list's paging: through 0.3 REST, the first page on 0.3 JSON-RPC", async (tt) => {
  seen.length = 0;
  const page = await rest('GET', '/v1/tasks/t/pushNotificationConfigs?pageSize=1&pageToken=p');
  tt.match(page, {
    status: 200,
    body: { configs: [{ name: 'tasks/t/pushNotificationConfigs/c' }], nextPageToken: 'next' },
  });
  tt.same(seen.at(-1)?.params, { taskId: 't', pageSize: 1, pageToken: 'p' }, 'the agent got the paging');
  const rpc = await request(`${gw.httpUrl}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tasks/pushNotificationConfig/list', params: { id: 't' } }),
  });
  const body = (await rpc.body.json()) as Record<string, unknown>;
  tt.same(
    body.result,
    [{ taskId: 't', pushNotificationConfig: { id: 'c', url: 'https://h.x/' } }],
    'JSON-RPC: a bare array',
  );
});
