// The A2A 0.3 dialects read what a 0.3 peer sends strictly and fail an answer
// they cannot write as the agent's fault (src/compat/v0_3): a resource name
// not exactly of its field's shape ("tasks/a/b" for a GetTask name) and a REST
// path id holding "/" are InvalidParams naming the field, never cut to the
// first segment; a 1.0 answer with no 0.3 form (a part without content) is
// INVALID_AGENT_RESPONSE; a push config with no scheme loses nothing or is
// refused naming the 0.3 field; a task state that is a prototype key is an
// unknown state.
import t from 'tap';
import { grpcResponseToV03 } from '../../src/compat/v0_3/grpc.js';
import { eventToV03, requestFromV03, resultFromV03, resultToV03 } from '../../src/compat/v0_3/jsonrpc-dialect.js';
import { eventToV03Proto, requestFromV03Proto, responseToV03Proto } from '../../src/compat/v0_3/proto-dialect.js';
import { v03RestRequest } from '../../src/bindings/rest/paths-v0_3.js';
import { methodInfo, type MethodName } from '../../src/core/methods.js';
import { A2AError } from '../../src/errors/a2a-error.js';
import { StreamResponseSchema } from '../../src/gen/a2a_pb.js';
import { ProtoJsonError, readJson, writeJson, type JsonObject } from '../../src/proto/json.js';
import { req1, res1, sameReq } from '../helpers/compat-fixtures.js';
import { throwsWhere } from '../helpers/throws.js';

const violation = (field: string) => (e: unknown) =>
  e instanceof ProtoJsonError && e.violations.length === 1 && e.violations[0]!.field === field;

t.test('0.3 proto names: exactly their shape, or InvalidParams naming the field', async (tt) => {
  const pnc = { url: 'https://hooks.example/a2a' };
  const refused: Array<[MethodName, JsonObject, string]> = [
    ['GetTask', { name: 'tasks/a/b' }, 'name'],
    ['GetTask', { name: 'task/a' }, 'name'],
    ['GetTask', { name: 'tasks/' }, 'name'],
    ['CancelTask', { name: 'tasks/a/pushNotificationConfigs/x' }, 'name'],
    ['SubscribeToTask', { name: 'tasks/a/b' }, 'name'],
    ['GetTaskPushNotificationConfig', { name: 'tasks/a/pushNotificationConfigs/b/c' }, 'name'],
    ['GetTaskPushNotificationConfig', { name: 'tasks/a/b/pushNotificationConfigs/c' }, 'name'],
    ['DeleteTaskPushNotificationConfig', { name: 'tasks/a/pushNotificationConfigs/' }, 'name'],
    ['ListTaskPushNotificationConfigs', { parent: 'tasks/a/b' }, 'parent'],
    ['ListTaskPushNotificationConfigs', { parent: 'tasks/a/pushNotificationConfigs' }, 'parent'],
    ['CreateTaskPushNotificationConfig', { parent: 'tasks/a/b', config: { pushNotificationConfig: pnc } }, 'parent'],
    [
      'CreateTaskPushNotificationConfig',
      { config: { name: 'tasks/a/b/pushNotificationConfigs/c', pushNotificationConfig: pnc } },
      'config.name',
    ],
    [
      'CreateTaskPushNotificationConfig',
      { parent: 'tasks/a', config: { name: 'tasks/a/pushNotificationConfigs/c/d', pushNotificationConfig: pnc } },
      'config.name',
    ],
  ];
  for (const [m, body, field] of refused) {
    throwsWhere(tt, () => requestFromV03Proto(m, body), violation(field), `${m} ${JSON.stringify(body)}`);
  }
  const read: Array<[MethodName, JsonObject, JsonObject]> = [
    ['GetTask', { name: 'tasks/a' }, { id: 'a' }],
    ['CancelTask', { name: 'tasks/a%2Fb' }, { id: 'a%2Fb' }],
    ['GetTaskPushNotificationConfig', { name: 'tasks/a/pushNotificationConfigs/c' }, { taskId: 'a', id: 'c' }],
    ['ListTaskPushNotificationConfigs', { parent: 'tasks/a' }, { taskId: 'a' }],
    [
      'CreateTaskPushNotificationConfig',
      { parent: 'task/a', config: { pushNotificationConfig: pnc } },
      { taskId: 'a', ...pnc },
    ],
  ];
  for (const [m, body, want] of read) {
    tt.ok(sameReq(m, requestFromV03Proto(m, body), req1(m, want)), `${m} ${JSON.stringify(body)} is read`);
  }
});

t.test('a 0.3 REST path id holding "/" is InvalidParams naming it', async (tt) => {
  const q = new URLSearchParams();
  const named = (field: string) => (e: unknown) =>
    e instanceof A2AError && e.errorName === 'INVALID_PARAMS' && JSON.stringify(e.details).includes(`"${field}"`);
  throwsWhere(tt, () => v03RestRequest('GetTask', ['a/b'], q, {}), named('id'), 'GET /v1/tasks/a%2Fb');
  throwsWhere(tt, () => v03RestRequest('CancelTask', ['victim/x'], q, {}), named('id'), 'cancel');
  throwsWhere(tt, () => v03RestRequest('SubscribeToTask', ['a/b'], q, {}), named('id'), 'subscribe');
  throwsWhere(
    tt,
    () => v03RestRequest('DeleteTaskPushNotificationConfig', ['t', 'c/d'], q, {}),
    named('configId'),
    'a config id',
  );
  tt.same(v03RestRequest('GetTask', ['a:b'], q, {}), { name: 'tasks/a:b' }, 'another id as it came');
});

const emptyPart = { messageId: 'm-1', role: 'ROLE_AGENT', parts: [{}] };
const agentFault = (e: unknown) =>
  e instanceof A2AError && e.errorName === 'INVALID_AGENT_RESPONSE' && /no (A2A )?0\.3 form/.test(e.message);

t.test('an answer with no 0.3 form is INVALID_AGENT_RESPONSE, saying why', async (tt) => {
  const send = res1('SendMessage', { message: emptyPart });
  const task = res1('GetTask', { id: 't', status: { state: 'TASK_STATE_WORKING', message: emptyPart } });
  const event = readJson(StreamResponseSchema, { message: emptyPart });
  const none = readJson(StreamResponseSchema, {});
  throwsWhere(tt, () => resultToV03('message/send', send), agentFault, 'JSON-RPC result');
  throwsWhere(tt, () => resultToV03('tasks/get', task), agentFault, 'JSON-RPC result, a part deep in the task');
  throwsWhere(tt, () => resultToV03('message/stream', event), agentFault, 'JSON-RPC stream result');
  throwsWhere(tt, () => eventToV03(event), agentFault, 'JSON-RPC event');
  throwsWhere(tt, () => eventToV03(none), agentFault, 'JSON-RPC event without payload');
  throwsWhere(tt, () => responseToV03Proto('SendMessage', send), agentFault, 'proto response');
  throwsWhere(tt, () => responseToV03Proto('GetTask', task), agentFault, 'proto response, in the task');
  throwsWhere(tt, () => eventToV03Proto(event), agentFault, 'proto event');
  throwsWhere(tt, () => eventToV03Proto(none), agentFault, 'proto event without payload');
  throwsWhere(tt, () => grpcResponseToV03('SendMessage', send), agentFault, 'gRPC response');
  const bad = (() => {
    try {
      resultToV03('message/send', send);
    } catch (e) {
      return e as A2AError;
    }
  })();
  tt.match(bad?.message, /part: a 1\.0 part with no content/, 'the reason told');
});

t.test('push configs without a scheme: nothing lost, or refused naming the 0.3 field', async (tt) => {
  const url = 'https://hooks.example/a2a';
  const set = (auth: JsonObject) =>
    requestFromV03('tasks/pushNotificationConfig/set', {
      taskId: 't',
      pushNotificationConfig: { url, authentication: auth },
    });
  const plain = req1('CreateTaskPushNotificationConfig', { taskId: 't', url });
  tt.ok(sameReq('CreateTaskPushNotificationConfig', set({ schemes: [] }), plain), 'schemes: [] → no authentication');
  const schemesField = 'pushNotificationConfig.authentication.schemes';
  throwsWhere(tt, () => set({ schemes: [], credentials: 'abc' }), violation(schemesField), 'credentials, no scheme');
  const send = (auth: JsonObject) =>
    requestFromV03('message/send', {
      message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'hi' }] },
      configuration: { pushNotificationConfig: { url, authentication: auth } },
    });
  const sent = writeJson(methodInfo('SendMessage').requestSchema, send({ schemes: [] })) as JsonObject;
  tt.same(
    (sent.configuration as JsonObject).taskPushNotificationConfig,
    { url },
    'message/send: schemes: [] → no authentication',
  );
  throwsWhere(
    tt,
    () => send({ schemes: [], credentials: 'abc' }),
    violation('configuration.pushNotificationConfig.authentication.schemes'),
    'message/send: credentials, no scheme',
  );
  const create = (auth: JsonObject) =>
    requestFromV03Proto('CreateTaskPushNotificationConfig', {
      parent: 'tasks/t',
      name: 'tasks/t/pushNotificationConfigs/',
      pushNotificationConfig: { url, authentication: auth },
    });
  tt.ok(sameReq('CreateTaskPushNotificationConfig', create({}), plain), 'proto: no schemes, no credentials');
  throwsWhere(tt, () => create({ credentials: 'abc' }), violation(schemesField), 'proto: credentials, no scheme');
  const answer = resultFromV03('tasks/pushNotificationConfig/get', {
    taskId: 't',
    pushNotificationConfig: { url, authentication: { schemes: [], credentials: 'abc' } },
  });
  tt.same(
    writeJson(methodInfo('GetTaskPushNotificationConfig').responseSchema, answer),
    { taskId: 't', url, authentication: { credentials: 'abc' } },
    "an agent's answer is read as it is",
  );
});

t.test('a task state that is a prototype key is an unknown state', async (tt) => {
  for (const state of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
    const task = JSON.parse(`{"kind":"task","id":"t","contextId":"c","status":{"state":"${state}"}}`) as JsonObject;
    throwsWhere(
      tt,
      () => resultFromV03('tasks/get', task),
      (e) =>
        violation('(result).status.state')(e) &&
        (e as ProtoJsonError).violations[0]!.description === `unknown task state "${state}"`,
      `"${state}" from a 0.3 agent`,
    );
  }
  const working = { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } };
  const event = readJson(StreamResponseSchema, { statusUpdate: working });
  tt.match(eventToV03(event), { status: { state: 'working' } }, 'a known one still is');
});
