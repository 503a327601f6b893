// The 0.3 method table (src/compat/v0_3/methods.ts, bridge-0.3-1.0.md §3):
// names per dialect as @a2a-js/sdk 1.3.0's compat layer maps them, schemas and
// google.api.http rules from the generated 0.3 descriptor, and where
// @a2a-js/sdk 0.3.14's REST routes differ from those rules.
import { readFile } from 'node:fs/promises';
import t from 'tap';
import {
  legacyGrpcToV1Method,
  legacyJsonRpcToV1Method,
  v1MethodToLegacyGrpc,
  v1MethodToLegacyJsonRpc,
} from '@a2a-js/sdk/compat/v0_3';
import { METHODS } from '../../src/core/methods.js';
import { A2AError } from '../../src/errors/a2a-error.js';
import {
  V03_GRPC_SERVICE,
  V03_METHODS,
  V1_ONLY_METHODS,
  isV03JsonRpcMethod,
  resolveMethod,
  v03ByGrpc,
  v03ByJsonRpc,
  v03MethodTableMarkdown,
  v03Of,
} from '../../src/compat/v0_3/methods.js';

t.test('names per dialect, as 1.3.0 maps them', async (tt) => {
  tt.equal(V03_GRPC_SERVICE, 'a2a.v1.A2AService');
  tt.same(V1_ONLY_METHODS, ['ListTasks']);
  tt.equal(V03_METHODS.size, METHODS.size - 1);
  for (const m of V03_METHODS.values()) {
    tt.equal(legacyJsonRpcToV1Method(m.jsonRpc), m.method, `${m.jsonRpc} → ${m.method}`);
    tt.equal(legacyGrpcToV1Method(m.grpc), m.method, `${m.grpc} → ${m.method}`);
    tt.equal(v1MethodToLegacyJsonRpc(m.method), m.jsonRpc);
    tt.equal(v1MethodToLegacyGrpc(m.method), m.grpc);
    tt.equal(v03ByJsonRpc(m.jsonRpc), m);
    tt.equal(v03ByGrpc(m.grpc), m);
    tt.equal(resolveMethod(m.jsonRpc), m.method);
    tt.equal(resolveMethod(m.grpc), m.method);
    tt.equal(resolveMethod(m.method), m.method);
    tt.ok(isV03JsonRpcMethod(m.jsonRpc));
    tt.equal(m.grpcPath, `/a2a.v1.A2AService/${m.grpc}`);
    tt.equal(m.requestSchema.typeName.startsWith('a2a.v1.'), true, 'a 0.3 proto message');
    tt.equal(m.streaming, METHODS.get(m.method)!.streaming);
  }
  tt.throws(() => v1MethodToLegacyJsonRpc('ListTasks'), '1.3.0: ListTasks has no 0.3 form either');
  try {
    v03Of('ListTasks');
    tt.fail('no 0.3 ListTasks');
  } catch (e) {
    tt.ok(e instanceof A2AError && e.errorName === 'UNSUPPORTED_OPERATION', 'UnsupportedOperation toward 0.3');
  }
  tt.notOk(isV03JsonRpcMethod('SendMessage'), '1.0 names are not 0.3 JSON-RPC names');
  tt.equal(resolveMethod('tasks/list'), undefined);
});

t.test('0.3 schemas and http rules from the descriptor; where 0.3.14 REST differs', async (tt) => {
  const rule = (m: string): string => {
    const r = V03_METHODS.get(m as never)!.httpRule;
    return `${r.verb} ${r.pattern}${r.body ? ` body=${r.body}` : ''}`;
  };
  tt.equal(rule('SendMessage'), 'POST /v1/message:send body=*');
  tt.equal(rule('GetTask'), 'GET /v1/{name=tasks/*}');
  tt.equal(rule('SubscribeToTask'), 'GET /v1/{name=tasks/*}:subscribe');
  tt.equal(
    rule('CreateTaskPushNotificationConfig'),
    'POST /v1/{parent=task/*/pushNotificationConfigs} body=config',
    'the 0.3 proto spells "task/*"',
  );
  tt.equal(rule('GetExtendedAgentCard'), 'GET /v1/card');
  tt.same(V03_METHODS.get('CreateTaskPushNotificationConfig')!.rest, {
    verbs: ['POST'],
    path: '/v1/tasks/{id}/pushNotificationConfigs',
    status: 201,
  });
  tt.same(V03_METHODS.get('SubscribeToTask')!.rest.verbs, ['GET', 'POST']);
  tt.equal(V03_METHODS.get('CancelTask')!.rest.status, 202);
  tt.equal(V03_METHODS.get('DeleteTaskPushNotificationConfig')!.rest.status, 204);
  tt.equal(
    V03_METHODS.get('CreateTaskPushNotificationConfig')!.requestSchema.typeName,
    'a2a.v1.CreateTaskPushNotificationConfigRequest',
  );
  tt.equal(
    V03_METHODS.get('ListTaskPushNotificationConfigs')!.responseSchema.typeName,
    'a2a.v1.ListTaskPushNotificationConfigResponse',
  );
  const md = v03MethodTableMarkdown();
  tt.equal(md.split('\n').length, 2 + METHODS.size);
  tt.match(md, '| `ListTasks` | — | — | — (UnsupportedOperation toward a 0.3 upstream) |');
  tt.match(
    md,
    '| `SubscribeToTask` | `tasks/resubscribe` | `TaskSubscription` | `GET\\|POST /v1/tasks/{id}:subscribe` → 200 |',
  );
  tt.equal(md.split('\n').filter((l) => l.split(/(?<!\\)\|/).length !== 6).length, 0, 'four cells in every row');
});

t.test("docs/bridge.md's method table is v03MethodTableMarkdown()", async (tt) => {
  const readme = await readFile(new URL('../../docs/bridge.md', import.meta.url), 'utf8');
  const m = /<!-- v03-method-table:[^>]*-->\n([\s\S]*?)\n<!-- \/v03-method-table -->/.exec(readme);
  tt.ok(m, 'docs/bridge.md marks the table');
  tt.equal(m?.[1], v03MethodTableMarkdown(), 'the docs/bridge.md table is what methods.ts produces');
});
