// The A2A 0.3 proto dialect (src/compat/v0_3/proto-dialect.ts and grpc.ts, bridge-0.3-1.0.md §3–§6):
// ProtoJSON (REST) and binary (gRPC) of package a2a.v1 ⇄ 1.0, round trips for every method and event
// kind, the wire forms and the lossy cases. (Both CreateTaskPushNotificationConfig bodies:
// compat-proto-push-config.test.ts; bad input: compat-bad-input.test.ts; the SDKs' view:
// compat-proto-sdk.test.ts.)
import t from 'tap';
import { equals } from '@bufbuild/protobuf';
import { methodInfo, type AnyResponse, type MethodName } from '../../src/core/methods.js';
import { StreamResponseSchema } from '../../src/gen/a2a_pb.js';
import { readJson, writeJson, type JsonObject } from '../../src/proto/json.js';
import { pushConfig, req1, sameReq } from '../helpers/compat-fixtures.js';
import {
  eventFromV03Proto,
  eventToV03Proto,
  requestFromV03Proto,
  requestToV03Proto,
  responseFromV03Proto,
  responseToV03Proto,
} from '../../src/compat/v0_3/proto-dialect.js';
import {
  grpcRequestFromV03,
  grpcRequestToV03,
  grpcResponseFromV03,
  grpcResponseToV03,
  methodOfV03GrpcPath,
} from '../../src/compat/v0_3/grpc.js';
import { V03_METHODS } from '../../src/compat/v0_3/methods.js';

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
const resSchema = (m: MethodName) => (streaming(m) ? StreamResponseSchema : methodInfo(m).responseSchema);
const res1 = (m: MethodName, j: JsonObject): AnyResponse => readJson(resSchema(m), j) as AnyResponse;
const sameRes = (m: MethodName, a: AnyResponse, b: AnyResponse): boolean =>
  equals(resSchema(m), a as never, b as never);

t.test('round trips through ProtoJSON and gRPC binary, both directions', async (tt) => {
  for (const m of methods) {
    const r = req1(m, REQUESTS[m]);
    // proto3 has no presence: only the proto3 reading of `blocking` gives returnImmediately back
    const o = { proto3Blocking: true };
    tt.ok(sameReq(m, requestFromV03Proto(m, requestToV03Proto(m, r), o), r), `${m}: request via ProtoJSON`);
    tt.ok(sameReq(m, grpcRequestFromV03(m, grpcRequestToV03(m, r), o), r), `${m}: request via binary`);
    for (const json of RESPONSES[m]) {
      const res = res1(m, json);
      tt.ok(sameRes(m, responseFromV03Proto(m, responseToV03Proto(m, res)), res), `${m}: response via ProtoJSON`);
      tt.ok(sameRes(m, grpcResponseFromV03(m, grpcResponseToV03(m, res)), res), `${m}: response via binary`);
    }
  }
});

t.test('the 0.3 ProtoJSON wire forms', async (tt) => {
  const send = requestToV03Proto('SendMessage', req1('SendMessage', REQUESTS.SendMessage));
  tt.same(send.message, {
    messageId: 'm-1',
    contextId: 'c-1',
    taskId: 't-1',
    role: 'ROLE_USER',
    content: [
      { text: 'hello' },
      { file: { fileWithBytes: 'aGVsbG8=', mimeType: 'text/plain' } },
      { file: { fileWithUri: 'https://files.example/x.png', mimeType: 'image/png' } },
      { data: { data: { a: 1, b: [true, 'x', { c: 2.5 }] } } },
    ],
    metadata: { trace: 'x' },
    extensions: ['urn:ext:1'],
  });
  tt.same(send.configuration, {
    acceptedOutputModes: ['text/plain'],
    pushNotification: { id: 'cfg-1', url: 'https://hooks.example/a2a', token: 't' },
    historyLength: 3,
    blocking: true,
  });
  tt.same(
    requestToV03Proto('SendStreamingMessage', req1('SendStreamingMessage', REQUESTS.SendStreamingMessage))
      .configuration,
    {},
    'returnImmediately: blocking false, omitted',
  );
  tt.same(requestToV03Proto('GetTask', req1('GetTask', REQUESTS.GetTask)), { name: 'tasks/t-1', historyLength: 2 });
  tt.same(
    requestToV03Proto(
      'DeleteTaskPushNotificationConfig',
      req1('DeleteTaskPushNotificationConfig', REQUESTS.DeleteTaskPushNotificationConfig),
    ),
    {
      name: 'tasks/t-1/pushNotificationConfigs/cfg-1',
    },
  );
  tt.same(requestToV03Proto('CreateTaskPushNotificationConfig', req1('CreateTaskPushNotificationConfig', pushConfig)), {
    parent: 'tasks/t-1',
    configId: 'cfg-1',
    config: {
      name: 'tasks/t-1/pushNotificationConfigs/cfg-1',
      pushNotificationConfig: {
        id: 'cfg-1',
        url: 'https://hooks.example/a2a',
        token: 'tok',
        authentication: { schemes: ['Bearer'], credentials: 'secret' },
      },
    },
  });
  tt.same(
    requestToV03Proto('ListTaskPushNotificationConfigs', req1('ListTaskPushNotificationConfigs', { taskId: 't' })),
    {
      parent: 'tasks/t',
    },
  );
  const got = responseToV03Proto('GetTask', res1('GetTask', task));
  tt.match(got, {
    status: { state: 'TASK_STATE_CANCELLED', message: { role: 'ROLE_AGENT', content: [{ text: 'ok' }] } },
  });
  const su = eventToV03Proto(readJson(StreamResponseSchema, events[2]!));
  tt.same(su, {
    statusUpdate: {
      taskId: 't-1',
      contextId: 'c-1',
      status: { state: 'TASK_STATE_AUTH_REQUIRED' },
      final: true,
      metadata: { s: 1 },
    },
  });
  tt.ok(
    equals(StreamResponseSchema, eventFromV03Proto(su), readJson(StreamResponseSchema, events[2]!)),
    'final dropped',
  );
  tt.same(responseToV03Proto('DeleteTaskPushNotificationConfig', res1('DeleteTaskPushNotificationConfig', {})), {});
  tt.equal(methodOfV03GrpcPath('/a2a.v1.A2AService/TaskSubscription'), 'SubscribeToTask');
  tt.equal(methodOfV03GrpcPath('/a2a.v1.A2AService/GetAgentCard'), 'GetExtendedAgentCard');
  tt.equal(methodOfV03GrpcPath('/lf.a2a.v1.A2AService/GetTask'), undefined);
});

t.test('lossy cases toward the 0.3 proto', async (tt) => {
  const msg: JsonObject = {
    ...agentMsg,
    parts: [
      { data: [1, 2] },
      { data: 'x' },
      { text: 't', metadata: { p: 1 }, mediaType: 'text/markdown' },
      { raw: 'AA==', filename: 'f.bin' },
    ],
    referenceTaskIds: ['t-0'],
  };
  const out = requestToV03Proto('SendMessage', req1('SendMessage', { message: msg }));
  tt.same(
    (out.message as JsonObject).content,
    [
      { data: { data: { value: [1, 2] } } },
      { data: { data: { value: 'x' } } },
      { text: 't' },
      { file: { fileWithBytes: 'AA==' } },
    ],
    'non-object data wrapped with no flag (the proto Part has no metadata); filename, part metadata dropped',
  );
  const back = writeJson(
    methodInfo('SendMessage').requestSchema,
    requestFromV03Proto('SendMessage', out),
  ) as JsonObject;
  tt.same((back.message as JsonObject).parts, [
    { data: { value: [1, 2] } },
    { data: { value: 'x' } },
    { text: 't' },
    { raw: 'AA==' },
  ]);
  tt.notOk('referenceTaskIds' in (back.message as JsonObject));

  const nulls = req1('SendMessage', {
    message: { ...agentMsg, parts: [{ data: { n: null, l: [null] } }] },
    metadata: { z: null },
  });
  tt.ok(
    sameReq('SendMessage', grpcRequestFromV03('SendMessage', grpcRequestToV03('SendMessage', nulls)), nulls),
    'nulls in Structs',
  );

  const several = requestFromV03Proto('CreateTaskPushNotificationConfig', {
    parent: 'tasks/t',
    config: { pushNotificationConfig: { url: 'https://h/x', authentication: { schemes: ['Basic', 'Bearer'] } } },
  });
  tt.match(writeJson(methodInfo('CreateTaskPushNotificationConfig').requestSchema, several), {
    taskId: 't',
    authentication: { scheme: 'Basic' },
  });
});
