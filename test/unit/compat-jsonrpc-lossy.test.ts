// What the A2A 0.3 JSON-RPC dialect (src/compat/v0_3/jsonrpc-dialect.ts,
// bridge-0.3-1.0.md §3–§5) cannot carry as is: the lossy and defaulted cases
// (blocking, a push config id and schemes, a text mediaType, data_part_compat,
// a zone-less time) and ListTasks, which 0.3 lacks. (Round trips and wire
// forms: compat-jsonrpc.test.ts.)
import t from 'tap';
import { methodInfo } from '../../src/core/methods.js';
import { writeJson, type Json, type JsonObject } from '../../src/proto/json.js';
import { throwsWhere } from '../helpers/throws.js';
import { agentMsg, req1, res1 } from '../helpers/compat-fixtures.js';
import { A2AError } from '../../src/errors/a2a-error.js';
import { requestFromV03, requestToV03, resultFromV03, resultToV03 } from '../../src/compat/v0_3/jsonrpc-dialect.js';

t.test('lossy and defaulted cases', async (tt) => {
  const msg = { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'x' }] };
  const rI = (configuration: Json | undefined): boolean => {
    const r = requestFromV03('message/send', {
      message: msg,
      ...(configuration === undefined ? {} : { configuration }),
    });
    const c = (writeJson(methodInfo('SendMessage').requestSchema, r) as JsonObject).configuration;
    return (c as JsonObject | undefined)?.returnImmediately === true;
  };
  tt.equal(rI(undefined), false, 'no configuration: blocking');
  tt.equal(rI({}), false, 'configuration {} : blocking (not returnImmediately, unlike 1.3.0)');
  tt.equal(rI({ blocking: true }), false);
  tt.equal(rI({ blocking: false }), true, 'only an explicit blocking:false returns immediately');

  const get = requestFromV03('tasks/pushNotificationConfig/get', { id: 't-9' });
  tt.match(writeJson(methodInfo('GetTaskPushNotificationConfig').requestSchema, get), { taskId: 't-9', id: 't-9' });

  const set = requestFromV03('tasks/pushNotificationConfig/set', {
    taskId: 't',
    pushNotificationConfig: { url: 'https://h/x', authentication: { schemes: ['Basic', 'Bearer'], credentials: 'c' } },
  });
  tt.match(writeJson(methodInfo('CreateTaskPushNotificationConfig').requestSchema, set), {
    authentication: { scheme: 'Basic', credentials: 'c' },
  });

  const text = requestToV03(
    'SendMessage',
    req1('SendMessage', { message: { ...agentMsg, parts: [{ text: 'x', mediaType: 'text/markdown' }] } }),
  )!;
  tt.same(
    ((text.message as JsonObject).parts as JsonObject[])[0],
    { kind: 'text', text: 'x' },
    'text mediaType has no 0.3 form',
  );

  const dataBack = requestFromV03('message/send', {
    message: { ...msg, parts: [{ kind: 'data', data: { value: 7 }, metadata: { data_part_compat: true, other: 1 } }] },
  });
  tt.same((writeJson(methodInfo('SendMessage').requestSchema, dataBack) as JsonObject).message, {
    messageId: 'm',
    role: 'ROLE_USER',
    parts: [{ data: 7, metadata: { other: 1 } }],
  });
  const plainData = requestFromV03('message/send', {
    message: { ...msg, parts: [{ kind: 'data', data: { value: 7 } }] },
  });
  tt.match(
    writeJson(methodInfo('SendMessage').requestSchema, plainData),
    { message: { parts: [{ data: { value: 7 } }] } },
    'no flag: not unwrapped',
  );

  const naive = resultFromV03('tasks/get', {
    kind: 'task',
    id: 't',
    contextId: 'c',
    status: { state: 'working', timestamp: '2025-01-02T03:04:05.123' },
  });
  tt.match(
    writeJson(methodInfo('GetTask').responseSchema, naive),
    { status: { timestamp: '2025-01-02T03:04:05.123Z' } },
    'zone-less time read as UTC',
  );
});

t.test('ListTasks has no 0.3 form: UnsupportedOperation', async (tt) => {
  const r = req1('ListTasks', {});
  const named = (n: string) => (e: unknown) => e instanceof A2AError && e.errorName === n;
  throwsWhere(tt, () => requestToV03('ListTasks', r), named('UNSUPPORTED_OPERATION'), 'request toward 0.3');
  throwsWhere(tt, () => resultToV03('ListTasks', res1('ListTasks', {})), named('UNSUPPORTED_OPERATION'), 'result');
  throwsWhere(tt, () => requestFromV03('tasks/list', {}), named('METHOD_NOT_FOUND'), 'no 0.3 name "tasks/list"');
});
