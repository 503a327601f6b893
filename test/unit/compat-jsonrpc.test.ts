// The A2A 0.3 JSON-RPC dialect (src/compat/v0_3/jsonrpc-dialect.ts, bridge-0.3-1.0.md §3–§6):
// round trips both ways for every method's request and response and every stream event kind,
// valid against the official 0.3 JSON Schema, and the wire forms. (Lossy cases and ListTasks:
// compat-jsonrpc-lossy.test.ts; bad input: compat-bad-input.test.ts; the SDKs' view:
// compat-jsonrpc-sdk.test.ts.)
import t from 'tap';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { equals, type DescMessage } from '@bufbuild/protobuf';
import { METHODS, methodInfo, type AnyRequest, type AnyResponse, type MethodName } from '../../src/core/methods.js';
import { StreamResponseSchema } from '../../src/gen/a2a_pb.js';
import { readJson, writeJson, type JsonObject } from '../../src/proto/json.js';
import { agentMsg, pushConfig, req1, res1 } from '../helpers/compat-fixtures.js';
import {
  eventFromV03,
  eventToV03,
  requestFromV03,
  requestToV03,
  resultFromV03,
  resultToV03,
} from '../../src/compat/v0_3/jsonrpc-dialect.js';
import { V03_METHODS } from '../../src/compat/v0_3/methods.js';

// --- the official 0.3 JSON Schema --------------------------------------------
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(
  JSON.parse(readFileSync(new URL('../fixtures/a2a-v0.3.schema.json', import.meta.url), 'utf8')) as object,
  'a2a03',
);
function valid03(def: string, value: unknown): string | true {
  const v = ajv.getSchema(`a2a03#/definitions/${def}`)!;
  return v(value) ? true : ajv.errorsText(v.errors);
}

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
const V03_SCHEMA_OF_RESULT: Partial<Record<MethodName, string>> = {
  GetTask: 'Task',
  CancelTask: 'Task',
  CreateTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  GetExtendedAgentCard: 'AgentCard',
};
const V03_SCHEMA_OF_PARAMS: Partial<Record<MethodName, string>> = {
  SendMessage: 'MessageSendParams',
  SendStreamingMessage: 'MessageSendParams',
  GetTask: 'TaskQueryParams',
  CancelTask: 'TaskIdParams',
  SubscribeToTask: 'TaskIdParams',
  CreateTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'GetTaskPushNotificationConfigParams',
  ListTaskPushNotificationConfigs: 'ListTaskPushNotificationConfigParams',
  DeleteTaskPushNotificationConfig: 'DeleteTaskPushNotificationConfigParams',
};

const methods = Object.keys(REQUESTS) as Array<keyof typeof REQUESTS>;
const same = (schema: DescMessage, a: AnyRequest | AnyResponse, b: AnyRequest | AnyResponse): boolean =>
  equals(schema, a as never, b as never);

t.test('every method but ListTasks has a 0.3 JSON-RPC form', async (tt) => {
  tt.same(
    [...METHODS.keys()].filter((m) => !V03_METHODS.has(m)),
    ['ListTasks'],
  );
  tt.same(methods.map((m) => V03_METHODS.get(m)!.jsonRpc).sort(), [
    'agent/getAuthenticatedExtendedCard',
    'message/send',
    'message/stream',
    'tasks/cancel',
    'tasks/get',
    'tasks/pushNotificationConfig/delete',
    'tasks/pushNotificationConfig/get',
    'tasks/pushNotificationConfig/list',
    'tasks/pushNotificationConfig/set',
    'tasks/resubscribe',
  ]);
});

t.test('1.0 request → 0.3 params → 1.0 request is the identity, and the params are valid 0.3', async (tt) => {
  for (const m of methods) {
    const r = req1(m, REQUESTS[m]);
    const params = requestToV03(m, r);
    const def = V03_SCHEMA_OF_PARAMS[m];
    if (def) tt.equal(valid03(def, params), true, `${m}: params valid as ${def}`);
    else tt.equal(params, undefined, `${m}: no params`);
    const back = requestFromV03(V03_METHODS.get(m)!.jsonRpc, params);
    tt.ok(same(methodInfo(m).requestSchema, back, r), `${m}: round trip`);
  }
});

t.test('1.0 response → 0.3 result → 1.0 response is the identity, and the result is valid 0.3', async (tt) => {
  for (const m of methods) {
    for (const json of RESPONSES[m]) {
      const r = res1(m, json);
      const result = resultToV03(m, r);
      const def = V03_SCHEMA_OF_RESULT[m];
      if (def) tt.equal(valid03(def, result), true, `${m}: result valid as ${def}`);
      const back = resultFromV03(V03_METHODS.get(m)!.jsonRpc, result);
      if (m === 'GetExtendedAgentCard') {
        tt.match(writeJson(methodInfo(m).responseSchema, back), {
          name: 'Echo',
          capabilities: { streaming: true, extendedAgentCard: true },
          supportedInterfaces: [{ url: 'http://gw.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' }],
        });
        continue;
      }
      tt.ok(same(methodInfo(m).responseSchema, back, r), `${m}: round trip of ${Object.keys(json).join()}`);
    }
  }
  tt.same(resultToV03('DeleteTaskPushNotificationConfig', res1('DeleteTaskPushNotificationConfig', {})), null);
  tt.ok(Array.isArray(resultToV03('ListTaskPushNotificationConfigs', res1('ListTaskPushNotificationConfigs', {}))));
});

t.test('stream events: kind both ways, final on terminal and interrupted states only', async (tt) => {
  const kinds = ['task', 'message', 'status-update', 'artifact-update'];
  events.forEach((e, i) => {
    const ev = readJson(StreamResponseSchema, e);
    const out = eventToV03(ev);
    tt.equal(out.kind, kinds[i]);
    tt.equal(valid03(['Task', 'Message', 'TaskStatusUpdateEvent', 'TaskArtifactUpdateEvent'][i]!, out), true);
    tt.ok(equals(StreamResponseSchema, eventFromV03(out), ev), `${kinds[i]} round trip`);
    const { kind: _kind, ...noKind } = out;
    tt.ok(equals(StreamResponseSchema, eventFromV03(noKind), ev), `${kinds[i]} without kind`);
  });
  const finals: Record<string, boolean> = {
    TASK_STATE_SUBMITTED: false,
    TASK_STATE_WORKING: false,
    TASK_STATE_COMPLETED: true,
    TASK_STATE_CANCELED: true,
    TASK_STATE_FAILED: true,
    TASK_STATE_REJECTED: true,
    TASK_STATE_INPUT_REQUIRED: true,
    TASK_STATE_AUTH_REQUIRED: true,
  };
  for (const [state, final] of Object.entries(finals)) {
    const out = eventToV03(readJson(StreamResponseSchema, statusUpdate(state)));
    tt.equal(out.final, final, `${state}: final ${final}`);
  }
  const unknown = eventToV03(readJson(StreamResponseSchema, statusUpdate('TASK_STATE_UNSPECIFIED')));
  tt.match(unknown, { status: { state: 'unknown' }, final: false });
});

t.test('the 0.3 wire forms', async (tt) => {
  const p = requestToV03('SendMessage', req1('SendMessage', REQUESTS.SendMessage))!;
  const parts = (p.message as JsonObject).parts as JsonObject[];
  tt.same(parts[0], { kind: 'text', text: 'hello', metadata: { k: 'v' } });
  tt.same(parts[1], { kind: 'file', file: { bytes: 'aGVsbG8=', mimeType: 'text/plain', name: 'a.txt' } });
  tt.same(parts[2], {
    kind: 'file',
    file: { uri: 'https://files.example/x.png', mimeType: 'image/png', name: 'x.png' },
  });
  tt.same(parts[4], { kind: 'data', data: { value: [1, 'two'] }, metadata: { data_part_compat: true } });
  tt.same(parts[5], { kind: 'data', data: { value: 'scalar' }, metadata: { keep: 'me', data_part_compat: true } });
  const nul = requestToV03('SendMessage', req1('SendMessage', { message: { ...agentMsg, parts: [{ data: null }] } }))!;
  tt.same(((nul.message as JsonObject).parts as JsonObject[])[0], {
    kind: 'data',
    data: { value: null },
    metadata: { data_part_compat: true },
  });
  tt.match(p, { message: { kind: 'message', role: 'user' }, configuration: { blocking: false } });
  tt.same(
    requestToV03('GetTaskPushNotificationConfig', req1('GetTaskPushNotificationConfig', { taskId: 't', id: 'c' })),
    {
      id: 't',
      pushNotificationConfigId: 'c',
    },
  );
  tt.same(resultToV03('CreateTaskPushNotificationConfig', res1('CreateTaskPushNotificationConfig', pushConfig)), {
    taskId: 't-1',
    pushNotificationConfig: {
      id: 'cfg-1',
      url: 'https://hooks.example/a2a',
      token: 'tok',
      authentication: { schemes: ['Bearer'], credentials: 'secret' },
    },
  });
  const sent = resultToV03('SendMessage', res1('SendMessage', { task })) as JsonObject;
  tt.match(sent, { kind: 'task', status: { state: 'input-required', message: { kind: 'message', role: 'agent' } } });
});
