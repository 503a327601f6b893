// The A2A 0.3 proto dialect (src/compat/v0_3/proto-dialect.ts and grpc.ts,
// bridge-0.3-1.0.md §3–§6) against the real SDKs: @a2a-js/sdk 0.3.14's REST
// client (what a 0.3.14 caller sends and reads), its ProtoJSON/gRPC readers
// and writers (what a 0.3.14 server accepts and answers, in-process), 1.3.0's
// legacy REST client, and how `blocking` travels. The clients call a
// node:http agent on 127.0.0.1 that reads them with the gateway's own 0.3 REST
// routes (bindings/rest/paths-v0_3.ts). The fixtures repeat compat-proto.test.ts's.
import t, { type Test } from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { equals } from '@bufbuild/protobuf';
import * as Sdk from '@a2a-js/sdk';
import { LegacyRestTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { RestTransport } from 'a2a-sdk-03/client';
import { A2AService as GrpcV03 } from 'a2a-sdk-03/server/grpc';
import { methodInfo, type AnyRequest, type AnyResponse, type MethodName } from '../../src/core/methods.js';
import { StreamResponseSchema } from '../../src/gen/a2a_pb.js';
import { readJson, writeJson, type Json, type JsonObject } from '../../src/proto/json.js';
import {
  requestFromV03Proto,
  requestToV03Proto,
  responseFromV03Proto,
  responseToV03Proto,
} from '../../src/compat/v0_3/proto-dialect.js';
import { grpcRequestFromV03, grpcRequestToV03, grpcResponseFromV03 } from '../../src/compat/v0_3/grpc.js';
import { requestFromV03, requestToV03, resultFromV03, resultToV03 } from '../../src/compat/v0_3/jsonrpc-dialect.js';
import { V03_METHODS } from '../../src/compat/v0_3/methods.js';
import { matchV03RestPath, v03RestRequest } from '../../src/bindings/rest/paths-v0_3.js';

type Fns = { fromJSON(o: unknown): unknown; toJSON(o: unknown): unknown };
type Conv = Record<string, (x: unknown) => unknown>;
/** @a2a-js/sdk 0.3.14's ProtoJSON types and FromProto/ToProto, from the bundle chunk that defines them. */
const chunkDir = join('node_modules', 'a2a-sdk-03', 'dist');
const chunk = readdirSync(chunkDir).find(
  (f) => f.startsWith('chunk-') && readFileSync(join(chunkDir, f), 'utf8').includes('var FromProto = class'),
)!;
const V03 = (await import(join(process.cwd(), chunkDir, chunk))) as Record<string, Fns> & {
  FromProto: Conv;
  ToProto: Conv;
};

// --- 1.0 fixtures the 0.3 proto can carry in full ----------------------------
const userMsg: JsonObject = {
  messageId: 'm-1',
  contextId: 'c-1',
  taskId: 't-1',
  role: 'ROLE_USER',
  parts: [
    { text: 'hello' },
    { raw: 'aGVsbG8=', mediaType: 'text/plain' },
    { url: 'https://files.example/x.png', mediaType: 'image/png' },
    // no null inside: 0.3.14's gRPC codec cannot encode a Struct null and decodes one as 0
    { data: { a: 1, b: [true, 'x', { c: 2.5 }] } },
  ],
  metadata: { trace: 'x' },
  extensions: ['urn:ext:1'],
};
const agentMsg: JsonObject = { messageId: 'm-2', contextId: 'c-1', role: 'ROLE_AGENT', parts: [{ text: 'ok' }] };
const artifact: JsonObject = {
  artifactId: 'a-1',
  name: 'out',
  description: 'd',
  parts: [{ text: 'r' }],
  metadata: { n: 1 },
};
const task: JsonObject = {
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'TASK_STATE_CANCELED', message: agentMsg, timestamp: '2025-01-02T03:04:05.678Z' },
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
const events: JsonObject[] = [
  { task },
  { message: agentMsg },
  {
    statusUpdate: {
      taskId: 't-1',
      contextId: 'c-1',
      status: { state: 'TASK_STATE_AUTH_REQUIRED' },
      metadata: { s: 1 },
    },
  },
  { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact, append: true, lastChunk: true } },
];
type M = Exclude<MethodName, 'ListTasks' | 'GetExtendedAgentCard'>;
const REQUESTS: Record<M, JsonObject> = {
  SendMessage: {
    message: userMsg,
    configuration: {
      acceptedOutputModes: ['text/plain'],
      historyLength: 3,
      taskPushNotificationConfig: { id: 'cfg-1', url: 'https://hooks.example/a2a', token: 't' },
    },
    metadata: { r: 1 },
  },
  SendStreamingMessage: { message: userMsg, configuration: { returnImmediately: true } },
  GetTask: { id: 't-1', historyLength: 2 },
  CancelTask: { id: 't-1' },
  SubscribeToTask: { id: 't-1' },
  CreateTaskPushNotificationConfig: pushConfig,
  GetTaskPushNotificationConfig: { taskId: 't-1', id: 'cfg-1' },
  ListTaskPushNotificationConfigs: { taskId: 't-1' },
  DeleteTaskPushNotificationConfig: { taskId: 't-1', id: 'cfg-1' },
};
const RESPONSES: Record<M, JsonObject[]> = {
  SendMessage: [{ task }, { message: agentMsg }],
  SendStreamingMessage: events,
  GetTask: [task],
  CancelTask: [task],
  SubscribeToTask: events,
  CreateTaskPushNotificationConfig: [pushConfig],
  GetTaskPushNotificationConfig: [pushConfig],
  ListTaskPushNotificationConfigs: [
    { configs: [pushConfig, { taskId: 't-1', id: 'cfg-2', url: 'https://h.example/2' }] },
  ],
  DeleteTaskPushNotificationConfig: [{}],
};
const methods = Object.keys(REQUESTS) as M[];
const streaming = (m: MethodName): boolean => V03_METHODS.get(m)!.streaming;
const req1 = (m: MethodName, j: JsonObject): AnyRequest => readJson(methodInfo(m).requestSchema, j) as AnyRequest;
const resSchema = (m: MethodName) => (streaming(m) ? StreamResponseSchema : methodInfo(m).responseSchema);
const res1 = (m: MethodName, j: JsonObject): AnyResponse => readJson(resSchema(m), j) as AnyResponse;
const sameReq = (m: MethodName, a: AnyRequest, b: AnyRequest): boolean =>
  equals(methodInfo(m).requestSchema, a as never, b as never);
const sameRes = (m: MethodName, a: AnyResponse, b: AnyResponse): boolean =>
  equals(resSchema(m), a as never, b as never);

t.test('blocking: absent is blocking; explicit false or {proto3Blocking} returns immediately', async (tt) => {
  const message = requestToV03Proto('SendMessage', req1('SendMessage', { message: agentMsg })).message;
  const rI = (configuration: Json | undefined, opts?: { proto3Blocking?: boolean }): boolean => {
    const r = requestFromV03Proto(
      'SendMessage',
      { message, ...(configuration === undefined ? {} : { configuration }) },
      opts,
    );
    const c = (writeJson(methodInfo('SendMessage').requestSchema, r) as JsonObject).configuration as
      JsonObject | undefined;
    return c?.returnImmediately === true;
  };
  tt.equal(rI(undefined), false);
  tt.equal(rI({}), false, 'configuration {} is not returnImmediately');
  tt.equal(rI({ acceptedOutputModes: ['a'] }), false);
  tt.equal(rI({ blocking: true }), false);
  tt.equal(rI({ blocking: false }), true);
  tt.equal(rI({}, { proto3Blocking: true }), true, 'proto3 reading: {} = blocking false');
  tt.equal(rI(undefined, { proto3Blocking: true }), false, 'no configuration: blocking either way');
  tt.equal(rI({ blocking: true }, { proto3Blocking: true }), false);
  const bin = GrpcV03.sendMessage.requestSerialize(
    V03.ToProto.messageSendParams!({
      message: requestToV03('SendMessage', req1('SendMessage', { message: agentMsg }))!.message,
      configuration: { blocking: false },
    }) as never,
  );
  const viaGrpc = writeJson(
    methodInfo('SendMessage').requestSchema,
    grpcRequestFromV03('SendMessage', bin),
  ) as JsonObject;
  tt.equal(
    (viaGrpc.configuration as JsonObject | undefined)?.returnImmediately,
    undefined,
    'gRPC has no presence: blocking',
  );
  const viaGrpc3 = writeJson(
    methodInfo('SendMessage').requestSchema,
    grpcRequestFromV03('SendMessage', bin, { proto3Blocking: true }),
  ) as JsonObject;
  tt.equal((viaGrpc3.configuration as JsonObject).returnImmediately, true);
});

// --- interoperability -----------------------------------------------------------

type Seen = { method: MethodName; verb: string; request: AnyRequest; asBlocking: AnyRequest };

/**
 * A 0.3 REST agent on 127.0.0.1 (closed in teardown), below `/base`: it reads each call as the gateway's 0.3 routes
 * do (matchV03RestPath, v03RestRequest), records what it read as (1.0) in `seen`, and answers `answer`.
 */
async function restAgent(tt: Test) {
  const agent = {
    url: '',
    seen: [] as Seen[],
    answer: (_m: MethodName): AnyResponse | AnyResponse[] => ({}) as AnyResponse,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://127.0.0.1');
      const verb = req.method ?? 'GET';
      const hit = matchV03RestPath(verb, u.pathname.replace(/^\/base(?=\/)/, ''));
      if (!hit) return void res.writeHead(404).end(`Cannot ${verb} ${u.pathname}`);
      const { info, ids } = hit;
      const text = Buffer.concat(chunks).toString();
      const req03 = v03RestRequest(info.method, ids, u.searchParams, text ? (JSON.parse(text) as JsonObject) : {});
      agent.seen.push({
        method: info.method,
        verb,
        request: requestFromV03Proto(info.method, req03, { proto3Blocking: true }),
        asBlocking: requestFromV03Proto(info.method, req03),
      });
      const a = agent.answer(info.method);
      if (info.streaming) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const data = (a as AnyResponse[]).map((e) => `data: ${JSON.stringify(responseToV03Proto(info.method, e))}\n\n`);
        return void res.end(data.join(''));
      }
      if (info.rest.status === 204) return void res.writeHead(204).end();
      res.writeHead(info.rest.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(responseToV03Proto(info.method, a as AnyResponse)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  tt.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  agent.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return agent;
}

/**
 * Both SDK clients say "return immediately" as a configuration without
 * `blocking` (proto3 omits false): the default reading keeps such a call
 * blocking (see proto-dialect.ts), the proto3 one returns immediately.
 */
function blockingDefault(tt: Test, m: MethodName, asBlocking: AnyRequest): void {
  if (!REQUESTS[m as M]?.configuration) return;
  const c = (writeJson(methodInfo(m).requestSchema, asBlocking) as JsonObject).configuration as JsonObject;
  tt.equal(c.returnImmediately, undefined, `${m}: by default read as blocking`);
}

/** The response as an SDK reads it: both SDKs' 0.3 FromProto drop an artifact-update's `append`. */
function noAppend(m: MethodName, json: JsonObject): AnyResponse {
  return json.artifactUpdate
    ? res1(m, { artifactUpdate: { ...(json.artifactUpdate as JsonObject), append: false } })
    : res1(m, json);
}

async function first(v: unknown): Promise<unknown> {
  if (v && typeof v === 'object' && Symbol.asyncIterator in v) {
    for await (const e of v as AsyncIterable<unknown>) return e;
    return undefined;
  }
  return await v;
}

t.test(
  '@a2a-js/sdk 0.3.14 REST client: what it sends reads as the 1.0 request, what it reads back is the 1.0 response',
  async (tt) => {
    const CALL: Record<M, string> = {
      SendMessage: 'sendMessage',
      SendStreamingMessage: 'sendMessageStream',
      GetTask: 'getTask',
      CancelTask: 'cancelTask',
      SubscribeToTask: 'resubscribeTask',
      CreateTaskPushNotificationConfig: 'setTaskPushNotificationConfig',
      GetTaskPushNotificationConfig: 'getTaskPushNotificationConfig',
      ListTaskPushNotificationConfigs: 'listTaskPushNotificationConfig',
      DeleteTaskPushNotificationConfig: 'deleteTaskPushNotificationConfig',
    };
    const agent = await restAgent(tt);
    const client = new RestTransport({ endpoint: `${agent.url}/base/` }) as unknown as Record<
      string,
      (p: unknown) => unknown
    >;
    for (const m of methods) {
      for (const json of RESPONSES[m]) {
        const res = res1(m, json);
        agent.seen.length = 0;
        agent.answer = () => (streaming(m) ? [res] : res);
        const r = req1(m, REQUESTS[m]);
        const got = await first(client[CALL[m]]!.call(client, requestToV03(m, r)));
        const { seen } = agent;
        tt.equal(seen.length, 1, `${m}: one call on a route of the table`);
        tt.ok(seen[0] && sameReq(m, seen[0].request, r), `${m}: request (proto3 reading of blocking)`);
        if (seen[0]) blockingDefault(tt, m, seen[0].asBlocking);
        if (m === 'DeleteTaskPushNotificationConfig') continue;
        tt.ok(sameRes(m, resultFromV03(m, got), noAppend(m, json)), `${m}: response ${Object.keys(json).join()}`);
      }
    }
  },
);

t.test('@a2a-js/sdk 1.3.0 legacy REST client: the same, from 1.0 requests', async (tt) => {
  const CALL: Record<M, string> = {
    SendMessage: 'sendMessage',
    SendStreamingMessage: 'sendMessageStream',
    GetTask: 'getTask',
    CancelTask: 'cancelTask',
    SubscribeToTask: 'resubscribeTask',
    CreateTaskPushNotificationConfig: 'createTaskPushNotificationConfig',
    GetTaskPushNotificationConfig: 'getTaskPushNotificationConfig',
    ListTaskPushNotificationConfigs: 'listTaskPushNotificationConfig',
    DeleteTaskPushNotificationConfig: 'deleteTaskPushNotificationConfig',
  };
  const SDK_REQ: Record<M, Fns> = {
    SendMessage: Sdk.SendMessageRequest,
    SendStreamingMessage: Sdk.SendMessageRequest,
    GetTask: Sdk.GetTaskRequest,
    CancelTask: Sdk.CancelTaskRequest,
    SubscribeToTask: Sdk.SubscribeToTaskRequest,
    CreateTaskPushNotificationConfig: Sdk.TaskPushNotificationConfig,
    GetTaskPushNotificationConfig: Sdk.GetTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigs: Sdk.ListTaskPushNotificationConfigsRequest,
    DeleteTaskPushNotificationConfig: Sdk.DeleteTaskPushNotificationConfigRequest,
  };
  const sdkJson = (m: M, got: unknown): Json => {
    if (streaming(m)) return Sdk.StreamResponse.toJSON(got as never) as Json;
    if (m === 'SendMessage')
      return 'messageId' in (got as object)
        ? { message: Sdk.Message.toJSON(got as never) as Json }
        : { task: Sdk.Task.toJSON(got as never) as Json };
    if (m === 'GetTask' || m === 'CancelTask') return Sdk.Task.toJSON(got as never) as Json;
    if (m === 'ListTaskPushNotificationConfigs')
      return Sdk.ListTaskPushNotificationConfigsResponse.toJSON(got as never) as Json;
    return Sdk.TaskPushNotificationConfig.toJSON(got as never) as Json;
  };
  const agent = await restAgent(tt);
  const client = new LegacyRestTransport({ endpoint: `${agent.url}/base` }) as unknown as Record<
    string,
    (p: unknown) => unknown
  >;
  for (const m of methods) {
    for (const json of RESPONSES[m]) {
      const res = res1(m, json);
      agent.seen.length = 0;
      agent.answer = () => (streaming(m) ? [res] : res);
      const got = await first(client[CALL[m]]!.call(client, SDK_REQ[m].fromJSON(REQUESTS[m])));
      const { seen } = agent;
      tt.equal(seen.length, 1, `${m}: one call on a route of the table`);
      tt.ok(seen[0] && sameReq(m, seen[0].request, req1(m, REQUESTS[m])), `${m}: request (proto3 reading of blocking)`);
      if (seen[0]) blockingDefault(tt, m, seen[0].asBlocking);
      if (m === 'DeleteTaskPushNotificationConfig') continue;
      tt.ok(
        sameRes(m, readJson(resSchema(m), sdkJson(m, got)) as AnyResponse, noAppend(m, json)),
        `${m}: response ${Object.keys(json).join()}`,
      );
    }
  }
  agent.seen.length = 0;
  const lister = client as unknown as { listTasks(p: unknown): Promise<unknown> };
  await tt.rejects(lister.listTasks({}), { name: 'UnsupportedOperationError' }, '1.3.0 too: ListTasks has no 0.3 form');
  tt.equal(agent.seen.length, 0, 'and sends nothing');
});

t.test(
  '@a2a-js/sdk 0.3.14 server side: it accepts what the gateway sends and answers what the gateway reads',
  async (tt) => {
    // how a 0.3.14 server reads a request (REST: type.fromJSON + FromProto; gRPC: requestDeserialize + FromProto)
    const READ: Record<M, [string, string]> = {
      SendMessage: ['sendMessage', 'messageSendParams'],
      SendStreamingMessage: ['sendStreamingMessage', 'messageSendParams'],
      GetTask: ['getTask', 'taskQueryParams'],
      CancelTask: ['cancelTask', 'taskIdParams'],
      SubscribeToTask: ['taskSubscription', 'taskIdParams'],
      CreateTaskPushNotificationConfig: ['createTaskPushNotificationConfig', 'createTaskPushNotificationConfig'],
      GetTaskPushNotificationConfig: ['getTaskPushNotificationConfig', 'getTaskPushNotificationConfigParams'],
      ListTaskPushNotificationConfigs: ['listTaskPushNotificationConfig', 'listTaskPushNotificationConfigParams'],
      DeleteTaskPushNotificationConfig: ['deleteTaskPushNotificationConfig', 'deleteTaskPushNotificationConfigParams'],
    };
    // how it writes its answer (ToProto) from the JSON-RPC-dialect result its handler returns
    const WRITE: Partial<Record<M, string>> = {
      SendMessage: 'messageSendResult',
      SendStreamingMessage: 'messageStreamResult',
      SubscribeToTask: 'messageStreamResult',
      GetTask: 'task',
      CancelTask: 'task',
      CreateTaskPushNotificationConfig: 'taskPushNotificationConfig',
      GetTaskPushNotificationConfig: 'taskPushNotificationConfig',
      ListTaskPushNotificationConfigs: 'listTaskPushNotificationConfig',
    };
    const grpc = GrpcV03 as unknown as Record<
      string,
      { requestDeserialize(b: Buffer): unknown; responseSerialize(v: unknown): Buffer }
    >;
    for (const m of methods) {
      const r = req1(m, REQUESTS[m]);
      const [rpc, from] = READ[m];
      const params = V03.FromProto[from]!(grpc[rpc]!.requestDeserialize(Buffer.from(grpcRequestToV03(m, r))));
      // 0.3.14's FromProto drops configuration.historyLength
      const c = REQUESTS[m].configuration as JsonObject | undefined;
      const { historyLength: _h, ...cfg } = c ?? {};
      const want = c ? req1(m, { ...REQUESTS[m], configuration: cfg }) : r;
      tt.ok(sameReq(m, requestFromV03(m, params), want), `${m}: a 0.3.14 gRPC server reads the gateway's request`);
      if (m === 'SendMessage' || m === 'SendStreamingMessage' || m === 'CreateTaskPushNotificationConfig') {
        const type =
          m === 'CreateTaskPushNotificationConfig'
            ? V03.CreateTaskPushNotificationConfigRequest!
            : V03.SendMessageRequest!;
        const viaRest = V03.FromProto[from]!(type.fromJSON(requestToV03Proto(m, r)));
        tt.ok(sameReq(m, requestFromV03(m, viaRest), want), `${m}: a 0.3.14 REST server reads the gateway's body`);
      }
      const write = WRITE[m];
      if (!write) continue;
      for (const json of RESPONSES[m]) {
        const res = res1(m, json);
        const answer = V03.ToProto[write]!(resultToV03(m, res));
        const bytes = grpc[rpc]!.responseSerialize(answer);
        tt.ok(
          sameRes(m, grpcResponseFromV03(m, bytes), res),
          `${m}: the gateway reads a 0.3.14 gRPC answer (${Object.keys(json).join()})`,
        );
        const type = {
          task: 'Task',
          messageSendResult: 'SendMessageResponse',
          messageStreamResult: 'StreamResponse',
          taskPushNotificationConfig: 'TaskPushNotificationConfig',
          listTaskPushNotificationConfig: 'ListTaskPushNotificationConfigResponse',
        }[write]!;
        tt.ok(sameRes(m, responseFromV03Proto(m, V03[type]!.toJSON(answer)), res), `${m}: … and its REST answer`);
      }
    }
    tt.ok(
      sameReq(
        'GetTask',
        requestFromV03Proto('GetTask', V03.ToProto.taskQueryParams!({ id: 't' })),
        req1('GetTask', { id: 't' }),
      ),
      'historyLength 0 from 0.3.14 = unset',
    );
  },
);
