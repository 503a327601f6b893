// The A2A 0.3 JSON-RPC dialect (src/compat/v0_3/jsonrpc-dialect.ts) against
// the real SDKs: @a2a-js/sdk 1.3.0's own 0.3 compatibility layer (its legacy
// JSON-RPC server handler, in-process, and client transport) reads and writes
// what this module does for every method, and @a2a-js/sdk 0.3.14's Client's
// calls read as the intended 1.0 requests (bridge-0.3-1.0.md §3–§6). The
// clients call a node:http agent on 127.0.0.1. The fixtures repeat
// compat-jsonrpc.test.ts's.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { equals, type DescMessage } from '@bufbuild/protobuf';
import * as Sdk from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { methodInfo, type AnyRequest, type AnyResponse, type MethodName } from '../../src/core/methods.js';
import { StreamResponseSchema, type StreamResponse } from '../../src/gen/a2a_pb.js';
import { readJson, writeJson, type Json, type JsonObject } from '../../src/proto/json.js';
import {
  eventToV03,
  requestFromV03,
  requestToV03,
  resultFromV03,
  resultToV03,
} from '../../src/compat/v0_3/jsonrpc-dialect.js';
import { V03_METHODS } from '../../src/compat/v0_3/methods.js';

// --- 1.0 fixtures (ProtoJSON) ------------------------------------------------
const userMsg: JsonObject = {
  messageId: 'm-1',
  contextId: 'c-1',
  taskId: 't-1',
  role: 'ROLE_USER',
  parts: [
    { text: 'hello', metadata: { k: 'v' } },
    { raw: 'aGVsbG8=', mediaType: 'text/plain', filename: 'a.txt' },
    { url: 'https://files.example/x.png', mediaType: 'image/png', filename: 'x.png' },
    { data: { a: 1, b: [true, null] } },
    { data: [1, 'two'] },
    { data: 'scalar', metadata: { keep: 'me' } },
  ],
  metadata: { trace: 'x' },
  extensions: ['urn:ext:1'],
  referenceTaskIds: ['t-0'],
};
const agentMsg: JsonObject = {
  messageId: 'm-2',
  contextId: 'c-1',
  taskId: 't-1',
  role: 'ROLE_AGENT',
  parts: [{ text: 'ok' }],
};
const artifact: JsonObject = {
  artifactId: 'a-1',
  name: 'out',
  description: 'the result',
  parts: [{ text: 'r' }, { data: 42 }],
  metadata: { size: 1 },
  extensions: ['urn:ext:1'],
};
const task: JsonObject = {
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'TASK_STATE_INPUT_REQUIRED', message: agentMsg, timestamp: '2025-01-02T03:04:05.678Z' },
  artifacts: [artifact],
  history: [userMsg, agentMsg],
  metadata: { m: 1 },
};
const pushConfig: JsonObject = {
  taskId: 't-1',
  id: 'cfg-1',
  url: 'https://hooks.example/a2a',
  token: 'tok',
  authentication: { scheme: 'Bearer', credentials: 'secret' },
};
const card: JsonObject = {
  name: 'Echo',
  description: 'echoes',
  supportedInterfaces: [
    { url: 'http://gw.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'http://gw.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
  ],
  version: '1.2.3',
  capabilities: { streaming: true, extendedAgentCard: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
};
const statusUpdate = (state: string): JsonObject => ({
  statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state, timestamp: '2025-01-02T03:04:05.678Z' } },
});
const events: JsonObject[] = [
  { task },
  { message: agentMsg },
  statusUpdate('TASK_STATE_WORKING'),
  { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact, append: true, lastChunk: true, metadata: { e: 1 } } },
];

const REQUESTS: Record<Exclude<MethodName, 'ListTasks'>, JsonObject> = {
  SendMessage: {
    message: userMsg,
    configuration: {
      acceptedOutputModes: ['text/plain'],
      historyLength: 3,
      taskPushNotificationConfig: { id: 'cfg-1', url: 'https://hooks.example/a2a', token: 'tok' },
      returnImmediately: true,
    },
    metadata: { req: 'meta' },
  },
  SendStreamingMessage: { message: userMsg, configuration: { acceptedOutputModes: ['text/plain'] } },
  GetTask: { id: 't-1', historyLength: 2 },
  CancelTask: { id: 't-1', metadata: { why: 'user' } },
  SubscribeToTask: { id: 't-1' },
  CreateTaskPushNotificationConfig: pushConfig,
  GetTaskPushNotificationConfig: { taskId: 't-1', id: 'cfg-1' },
  ListTaskPushNotificationConfigs: { taskId: 't-1' },
  DeleteTaskPushNotificationConfig: { taskId: 't-1', id: 'cfg-1' },
  GetExtendedAgentCard: {},
};
const RESPONSES: Record<Exclude<MethodName, 'ListTasks'>, JsonObject[]> = {
  SendMessage: [{ task }, { message: agentMsg }],
  SendStreamingMessage: events,
  GetTask: [task],
  CancelTask: [{ ...task, status: { state: 'TASK_STATE_CANCELED' } }],
  SubscribeToTask: events,
  CreateTaskPushNotificationConfig: [pushConfig],
  GetTaskPushNotificationConfig: [pushConfig],
  ListTaskPushNotificationConfigs: [
    { configs: [pushConfig, { taskId: 't-1', id: 'cfg-2', url: 'https://hooks.example/b' }] },
  ],
  DeleteTaskPushNotificationConfig: [{}],
  GetExtendedAgentCard: [card],
};

const methods = Object.keys(REQUESTS) as Array<keyof typeof REQUESTS>;
const req1 = (m: MethodName, j: JsonObject): AnyRequest => readJson(methodInfo(m).requestSchema, j) as AnyRequest;
const res1 = (m: MethodName, j: JsonObject): AnyResponse => readJson(methodInfo(m).responseSchema, j) as AnyResponse;
const same = (schema: DescMessage, a: AnyRequest | AnyResponse, b: AnyRequest | AnyResponse): boolean =>
  equals(schema, a as never, b as never);

// --- interoperability with @a2a-js/sdk 1.3.0's own 0.3 layer ---------------------

type SdkFns = { fromJSON(o: unknown): unknown; toJSON(o: unknown): unknown };
const SDK_REQUEST: Record<keyof typeof REQUESTS, SdkFns> = {
  SendMessage: Sdk.SendMessageRequest,
  SendStreamingMessage: Sdk.SendMessageRequest,
  GetTask: Sdk.GetTaskRequest,
  CancelTask: Sdk.CancelTaskRequest,
  SubscribeToTask: Sdk.SubscribeToTaskRequest,
  CreateTaskPushNotificationConfig: Sdk.TaskPushNotificationConfig,
  GetTaskPushNotificationConfig: Sdk.GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigs: Sdk.ListTaskPushNotificationConfigsRequest,
  DeleteTaskPushNotificationConfig: Sdk.DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCard: Sdk.GetExtendedAgentCardRequest,
};

/** A 1.3.0 request handler that records the 1.0 request its legacy layer built and answers `answer`. */
function recordingHandler(answer: (m: string) => unknown): { calls: Array<[string, unknown]>; handler: object } {
  const calls: Array<[string, unknown]> = [];
  const rec =
    (name: string) =>
    async (req: unknown): Promise<unknown> => {
      calls.push([name, req]);
      return answer(name);
    };
  const stream = (name: string) =>
    async function* (req: unknown): AsyncGenerator<unknown> {
      calls.push([name, req]);
      yield answer(name);
    };
  return {
    calls,
    handler: {
      getAgentCard: async () => Sdk.AgentCard.fromJSON(card),
      sendMessage: rec('sendMessage'),
      sendMessageStream: stream('sendMessageStream'),
      getTask: rec('getTask'),
      cancelTask: rec('cancelTask'),
      resubscribe: stream('resubscribe'),
      createTaskPushNotificationConfig: rec('create'),
      getTaskPushNotificationConfig: rec('get'),
      listTaskPushNotificationConfigs: rec('list'),
      deleteTaskPushNotificationConfig: rec('delete'),
      getAuthenticatedExtendedAgentCard: rec('card'),
    },
  };
}

t.test(
  '1.3.0 legacy JSON-RPC server: it reads 0.3 params as requestFromV03 does, and answers what resultToV03 does',
  async (tt) => {
    const sdkAnswer: Record<string, unknown> = {
      sendMessage: Sdk.Task.fromJSON(task),
      sendMessageStream: Sdk.StreamResponse.fromJSON(statusUpdate('TASK_STATE_COMPLETED')),
      resubscribe: Sdk.StreamResponse.fromJSON({ artifactUpdate: (events[3] as JsonObject).artifactUpdate }),
      getTask: Sdk.Task.fromJSON(task),
      cancelTask: Sdk.Task.fromJSON(RESPONSES.CancelTask[0]),
      create: Sdk.TaskPushNotificationConfig.fromJSON(pushConfig),
      get: Sdk.TaskPushNotificationConfig.fromJSON(pushConfig),
      list: Sdk.ListTaskPushNotificationConfigsResponse.fromJSON(RESPONSES.ListTaskPushNotificationConfigs[0]),
      delete: undefined,
      card: Sdk.AgentCard.fromJSON(card),
    };
    const { calls, handler } = recordingHandler((name) => sdkAnswer[name]);
    const sdk = new LegacyJsonRpcTransportHandler(handler as never);
    for (const m of methods) {
      const jsonRpc = V03_METHODS.get(m)!.jsonRpc;
      const params = requestToV03(m, req1(m, REQUESTS[m]));
      calls.length = 0;
      const out = (await sdk.handle(
        { jsonrpc: '2.0', id: 7, method: jsonRpc, ...(params ? { params } : {}) },
        {} as never,
      )) as { result?: unknown; error?: unknown } | AsyncGenerator<{ result: unknown }>;
      const results: unknown[] = [];
      if (Symbol.asyncIterator in out) for await (const frame of out) results.push(frame.result);
      else {
        tt.notOk(out.error, `${m}: no error from the SDK`);
        results.push(out.result);
      }
      const sdkReq = SDK_REQUEST[m].toJSON(calls[0]![1]);
      const mine = writeJson(methodInfo(m).requestSchema, requestFromV03(jsonRpc, params));
      tt.same(mine, sdkReq, `${m}: the same 1.0 request`);

      if (m === 'GetExtendedAgentCard') continue; // compared in compat-card.test.ts
      const answer = sdkAnswer[calls[0]![0]];
      const answer1 =
        m === 'SendMessage'
          ? res1(m, { task })
          : m === 'SendStreamingMessage' || m === 'SubscribeToTask'
            ? readJson(StreamResponseSchema, Sdk.StreamResponse.toJSON(answer as never) as Json)
            : m === 'DeleteTaskPushNotificationConfig'
              ? res1(m, {})
              : res1(m, (SDK_RESPONSE[m] as SdkFns).toJSON(answer) as JsonObject);
      tt.same(resultToV03(m, answer1), results[0], `${m}: the same 0.3 result`);
    }
  },
);

const SDK_RESPONSE: Partial<Record<MethodName, SdkFns>> = {
  GetTask: Sdk.Task,
  CancelTask: Sdk.Task,
  CreateTaskPushNotificationConfig: Sdk.TaskPushNotificationConfig,
  GetTaskPushNotificationConfig: Sdk.TaskPushNotificationConfig,
  ListTaskPushNotificationConfigs: Sdk.ListTaskPushNotificationConfigsResponse,
};

t.test('1.3.0 sets final only on the four terminal states; this bridge also on interrupted ones', async (tt) => {
  const { handler } = recordingHandler(() => Sdk.StreamResponse.fromJSON(statusUpdate('TASK_STATE_INPUT_REQUIRED')));
  const sdk = new LegacyJsonRpcTransportHandler(handler as never);
  const params = requestToV03('SendStreamingMessage', req1('SendStreamingMessage', REQUESTS.SendStreamingMessage));
  const out = (await sdk.handle(
    { jsonrpc: '2.0', id: 1, method: 'message/stream', params },
    {} as never,
  )) as AsyncGenerator<{
    result: JsonObject;
  }>;
  const frames: JsonObject[] = [];
  for await (const frame of out) frames.push(frame.result);
  tt.equal(frames.length, 1, 'one event');
  tt.equal(frames[0]?.final, false, 'the SDK leaves the stream open on input-required');
  const mine = eventToV03(readJson(StreamResponseSchema, statusUpdate('TASK_STATE_INPUT_REQUIRED')));
  tt.same({ ...frames[0], final: true }, mine, 'otherwise the same event');
});

type Answer = { result?: Json; events?: Json[] };

/**
 * A JSON-RPC agent on 127.0.0.1 that answers each call with `answer(request)` (JSON, or SSE for `events`),
 * recording the requests in `sent`; closed in teardown.
 */
async function jsonRpcAgent(tt: Test): Promise<{ url: string; sent: JsonObject[]; answer: (r: JsonObject) => Answer }> {
  const agent = { url: '', sent: [] as JsonObject[], answer: (_r: JsonObject): Answer => ({}) };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString()) as JsonObject;
      agent.sent.push(call);
      const a = agent.answer(call);
      const frame = (result: Json | undefined) =>
        JSON.stringify({ jsonrpc: '2.0', id: call.id, result: result ?? null });
      if (!a.events) return void res.writeHead(200, { 'content-type': 'application/json' }).end(frame(a.result));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(a.events.map((r) => `data: ${frame(r)}\n\n`).join(''));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  tt.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  agent.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return agent;
}

t.test(
  '1.3.0 legacy JSON-RPC client: it sends what requestToV03 does, and reads resultToV03 back to the same 1.0 response',
  async (tt) => {
    const agent = await jsonRpcAgent(tt);
    for (const m of methods) {
      const r = req1(m, REQUESTS[m]);
      for (const json of RESPONSES[m]) {
        if (m === 'GetExtendedAgentCard') continue; // card shapes: compat-card.test.ts
        const response =
          m === 'SendStreamingMessage' || m === 'SubscribeToTask'
            ? readJson(StreamResponseSchema, json)
            : res1(m, json);
        agent.sent.length = 0;
        agent.answer = () =>
          V03_METHODS.get(m)!.streaming
            ? { events: [resultToV03(m, response as AnyResponse)] }
            : { result: resultToV03(m, response as AnyResponse) };
        const client = new LegacyJsonRpcTransport({ endpoint: agent.url } as never) as unknown as Record<
          string,
          (p: unknown) => unknown
        >;
        const call = SDK_CLIENT_CALL[m];
        const got = await collect(client[call]!.call(client, SDK_REQUEST[m].fromJSON(REQUESTS[m])));
        tt.equal(agent.sent.length, 1, `${m}: one call`);
        tt.equal(agent.sent[0]?.method, V03_METHODS.get(m)!.jsonRpc);
        tt.same(agent.sent[0]?.params, requestToV03(m, r), `${m}: the same params`);
        const sdkJson =
          m === 'DeleteTaskPushNotificationConfig'
            ? {}
            : V03_METHODS.get(m)!.streaming
              ? Sdk.StreamResponse.toJSON(got as never)
              : m === 'SendMessage'
                ? 'messageId' in (got as object)
                  ? { message: Sdk.Message.toJSON(got as never) }
                  : { task: Sdk.Task.toJSON(got as never) }
                : SDK_RESPONSE[m]!.toJSON(got);
        const schema = V03_METHODS.get(m)!.streaming ? StreamResponseSchema : methodInfo(m).responseSchema;
        tt.ok(
          equals(
            schema,
            readJson(schema, sdkJson) as never,
            resultFromV03(m, resultToV03(m, response as AnyResponse)) as never,
          ),
          `${m}: the SDK and resultFromV03 read the same 1.0 response (${Object.keys(json).join()})`,
        );
      }
    }
  },
);

const SDK_CLIENT_CALL: Record<keyof typeof REQUESTS, string> = {
  SendMessage: 'sendMessage',
  SendStreamingMessage: 'sendMessageStream',
  GetTask: 'getTask',
  CancelTask: 'cancelTask',
  SubscribeToTask: 'resubscribeTask',
  CreateTaskPushNotificationConfig: 'createTaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'getTaskPushNotificationConfig',
  ListTaskPushNotificationConfigs: 'listTaskPushNotificationConfig',
  DeleteTaskPushNotificationConfig: 'deleteTaskPushNotificationConfig',
  GetExtendedAgentCard: 'getExtendedAgentCard',
};

async function collect(v: unknown): Promise<unknown> {
  if (v && typeof v === 'object' && Symbol.asyncIterator in v) {
    for await (const e of v as AsyncIterable<unknown>) return e;
    return undefined;
  }
  return await v;
}

t.test('an event as 1.3.0 reads a 0.3 push-notification body', async (tt) => {
  const { legacyPushNotificationToV1StreamResponse } = await import('@a2a-js/sdk/compat/v0_3');
  for (const e of events) {
    const ev: StreamResponse = readJson(StreamResponseSchema, e);
    const sdk = Sdk.StreamResponse.toJSON(legacyPushNotificationToV1StreamResponse(eventToV03(ev)));
    tt.ok(equals(StreamResponseSchema, readJson(StreamResponseSchema, sdk as Json), ev), Object.keys(e)[0]!);
  }
});

t.test(
  '@a2a-js/sdk 0.3.14 Client: what it sends reads as the 1.0 request; polling is returnImmediately',
  async (tt) => {
    const { ClientFactory, JsonRpcTransportFactory } = await import('a2a-sdk-03/client');
    const CALL: Record<keyof typeof REQUESTS, string> = {
      SendMessage: 'sendMessage',
      SendStreamingMessage: 'sendMessageStream',
      GetTask: 'getTask',
      CancelTask: 'cancelTask',
      SubscribeToTask: 'resubscribeTask',
      CreateTaskPushNotificationConfig: 'setTaskPushNotificationConfig',
      GetTaskPushNotificationConfig: 'getTaskPushNotificationConfig',
      ListTaskPushNotificationConfigs: 'listTaskPushNotificationConfig',
      DeleteTaskPushNotificationConfig: 'deleteTaskPushNotificationConfig',
      GetExtendedAgentCard: 'getAgentCard',
    };
    const agent = await jsonRpcAgent(tt);
    const card03 = resultToV03(
      'GetExtendedAgentCard',
      res1('GetExtendedAgentCard', {
        ...card,
        supportedInterfaces: [{ url: agent.url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }],
        capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
      }),
    ) as JsonObject;
    for (const polling of [false, true]) {
      for (const m of methods) {
        const r = req1(m, REQUESTS[m]);
        const response = RESPONSES[m][0]!;
        agent.sent.length = 0;
        agent.answer = (req) =>
          V03_METHODS.get(m)!.streaming
            ? { events: [resultToV03(m, readJson(StreamResponseSchema, response) as AnyResponse)] }
            : req.method === 'agent/getAuthenticatedExtendedCard'
              ? { result: card03 }
              : { result: resultToV03(m, res1(m, response)) };
        const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory()], clientConfig: { polling } });
        const client = (await factory.createFromAgentCard(card03 as never)) as unknown as Record<
          string,
          (p?: unknown) => unknown
        >;
        await collect(client[CALL[m]]!.call(client, requestToV03(m, r)));
        tt.equal(agent.sent.length, 1, `${m}: one call`);
        const got = requestFromV03(String(agent.sent[0]?.method), agent.sent[0]?.params);
        tt.ok(same(methodInfo(m).requestSchema, got, r), `${m}: the 1.0 request (polling ${polling})`);
      }
      agent.sent.length = 0;
      agent.answer = () => ({ result: resultToV03('SendMessage', res1('SendMessage', { task })) });
      const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory()], clientConfig: { polling } });
      const client = await factory.createFromAgentCard(card03 as never);
      await client.sendMessage({
        message: { kind: 'message', messageId: 'p', role: 'user', parts: [{ kind: 'text', text: 'x' }] },
      });
      const c = (
        writeJson(
          methodInfo('SendMessage').requestSchema,
          requestFromV03('message/send', agent.sent[0]?.params),
        ) as JsonObject
      ).configuration as JsonObject | undefined;
      tt.equal(c?.returnImmediately === true, polling, `polling ${polling}: returnImmediately ${polling}`);
    }
  },
);
