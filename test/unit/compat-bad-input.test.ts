// Bad A2A 0.3 input to the bridge (src/compat/v0_3, bridge-0.3-1.0.md §3–§6):
// each dialect's reader throws a ProtoJsonError naming the field — 0.3
// JSON-RPC params, results and events; 0.3 proto (ProtoJSON and gRPC binary)
// requests, answers and events — and what reads but cannot be written back
// (Infinity in a Struct) is named by where it was read: (request),
// (response), (event).
import t from 'tap';
import { fromJson, toBinary, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { eventFromV03, requestFromV03, resultFromV03 } from '../../src/compat/v0_3/jsonrpc-dialect.js';
import { eventFromV03Proto, requestFromV03Proto, responseFromV03Proto } from '../../src/compat/v0_3/proto-dialect.js';
import { grpcResponseFromV03 } from '../../src/compat/v0_3/grpc.js';
import type { MethodName } from '../../src/core/methods.js';
import {
  SendMessageResponseSchema as SendResponseV03,
  StreamResponseSchema as StreamV03,
} from '../../src/gen/a2a/v1/a2a_pb.js';
import { ProtoJsonError, type JsonObject } from '../../src/proto/json.js';
import { throwsWhere } from '../helpers/throws.js';

t.test('bad 0.3 JSON-RPC input is a ProtoJsonError naming the field', async (tt) => {
  const msg = { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'x' }] };
  const cases: Array<[string, unknown, string]> = [
    ['message/send', [], '(params)'],
    ['message/send', { message: { ...msg, messageId: 5 } }, 'message.messageId'],
    ['message/send', { message: { ...msg, role: 'bot' } }, 'message.role'],
    ['message/send', { message: { ...msg, parts: [{ kind: 'video' }] } }, 'message.parts[0].kind'],
    ['message/send', { message: { ...msg, parts: [{ kind: 'file', file: {} }] } }, 'message.parts[0].file'],
    ['message/send', { message: { ...msg, parts: 'x' } }, 'message.parts'],
    ['message/send', { message: msg, configuration: { blocking: 'yes' } }, 'configuration.blocking'],
    ['tasks/get', { id: 1 }, 'id'],
    ['tasks/get', { id: 't', historyLength: 1.5 }, 'historyLength'],
    ['tasks/pushNotificationConfig/set', { taskId: 't', pushNotificationConfig: {} }, 'pushNotificationConfig.url'],
    ['tasks/pushNotificationConfig/delete', { id: 't' }, 'pushNotificationConfigId'],
  ];
  for (const [method, params, field] of cases) {
    throwsWhere(
      tt,
      () => requestFromV03(method, params),
      (e: unknown) => e instanceof ProtoJsonError && e.violations[0]?.field === field,
      `${method} ${JSON.stringify(params)} → ${field}`,
    );
  }
  throwsWhere(
    tt,
    () => resultFromV03('tasks/get', { kind: 'task', id: 't', contextId: 'c', status: { state: 'paused' } }),
    (e: unknown) => e instanceof ProtoJsonError && e.violations[0]?.field === '(result).status.state',
    'unknown task state',
  );
  throwsWhere(
    tt,
    () => eventFromV03({ kind: 'snapshot' }),
    (e) => e instanceof ProtoJsonError,
    'unknown kind',
  );
});

t.test('bad 0.3 proto input is a ProtoJsonError naming the field', async (tt) => {
  const cases: Array<[MethodName, unknown, string]> = [
    ['GetTask', { name: 'task-1' }, 'name'],
    ['GetTask', { name: 'tasks/t', historyLength: 'x' }, 'historyLength'],
    ['GetTaskPushNotificationConfig', { name: 'tasks/t' }, 'name'],
    ['ListTaskPushNotificationConfigs', { parent: '' }, 'parent'],
    ['SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', content: [{}] } }, 'message.content[0]'],
    ['SendMessage', { message: { messageId: 'm', content: [] } }, 'message.role'],
    ['SendMessage', 'x', '(request)'],
  ];
  for (const [m, body, field] of cases) {
    throwsWhere(
      tt,
      () => requestFromV03Proto(m, body),
      (e) => e instanceof ProtoJsonError && e.violations[0]?.field === field,
      `${m} ${JSON.stringify(body)} → ${field}`,
    );
  }
  throwsWhere(
    tt,
    () => eventFromV03Proto({}),
    (e) => e instanceof ProtoJsonError,
    'empty event',
  );
  // what reads and cannot be written back (Infinity in a Struct) is named by where it was: an answer is no request
  const odd = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' }, metadata: { x: Infinity } };
  const unwritable: Array<[string, () => unknown, string]> = [
    [
      'Infinity in a request',
      () =>
        requestFromV03Proto('SendMessage', {
          message: { messageId: 'm', role: 'ROLE_USER', content: [], metadata: { x: Infinity } },
        }),
      '(request)',
    ],
    ['Infinity in an answer', () => responseFromV03Proto('GetTask', odd), '(response)'],
    ['Infinity in an event', () => eventFromV03Proto({ task: odd }), '(event)'],
  ];
  // the same over gRPC (binary of the 0.3 proto: a stream's message is an event), and a non-object answer
  const oddBytes = (schema: DescMessage, json: JsonObject) => {
    const m = fromJson(schema, json as JsonValue) as unknown as { payload: { value: { metadata: unknown } } };
    m.payload.value.metadata = { x: Infinity };
    return toBinary(schema, m as unknown as Parameters<typeof toBinary>[1]);
  };
  const oddTask = { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } };
  unwritable.push(
    [
      'Infinity in a gRPC answer',
      () => grpcResponseFromV03('SendMessage', oddBytes(SendResponseV03, oddTask)),
      '(response)',
    ],
    [
      'Infinity in a gRPC event',
      () => grpcResponseFromV03('TaskSubscription', oddBytes(StreamV03, oddTask)),
      '(event)',
    ],
    ['an answer that is no object', () => responseFromV03Proto('GetTask', []), '(response)'],
  );
  for (const [what, read, field] of unwritable) {
    throwsWhere(tt, read, (e) => e instanceof ProtoJsonError && e.violations[0]?.field === field, `${what}: ${field}`);
  }
});
