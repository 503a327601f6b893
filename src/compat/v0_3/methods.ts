// The A2A 0.3 methods (bridge-0.3-1.0.md §3, WN §Behavioral Changes for Core
// Operations) beside the 1.0 ones of core/methods.ts: each 1.0 MethodName's
// 0.3 JSON-RPC name, its gRPC name in a2a.v1.A2AService, the 0.3 request and
// response schemas and google.api.http rule read from the generated 0.3
// descriptor (src/gen/a2a/v1, package a2a.v1), and the REST route @a2a-js/sdk
// 0.3.14 actually serves and calls, where it differs from that rule:
// - CreateTaskPushNotificationConfig: the rule says `/v1/{parent=task/*/pushNotificationConfigs}`
//   (singular "task", body = `config`); 0.3.14 serves `/v1/tasks/{id}/pushNotificationConfigs`.
//   Its server reads the body as CreateTaskPushNotificationConfigRequest {parent, configId, config},
//   its client (and 1.3.0's legacy client) sends TaskPushNotificationConfig {name, pushNotificationConfig}.
// - TaskSubscription: the rule says GET; 0.3.14 serves GET and POST (1.3.0's legacy client sends GET).
// - GetTask: `historyLength` (or `history_length`) in the query.
// - Success statuses: 201 for message:send and create, 202 for cancel (1.3.0's legacy server: 200), 204 for delete.
// ListTasks has no 0.3 form: toward a 0.3 upstream it is UnsupportedOperation (as 1.3.0 does).
import { getOption, type DescMessage, type DescMethod } from '@bufbuild/protobuf';
import { A2AService as A2AServiceV03 } from '../../gen/a2a/v1/a2a_pb.js';
import { http } from '../../gen/google/api/annotations_pb.js';
import { methodByName, type HttpRule, type MethodName } from '../../core/methods.js';
import { A2AError } from '../../errors/a2a-error.js';

/** The 0.3 gRPC service, registered beside lf.a2a.v1.A2AService. */
export const V03_GRPC_SERVICE = A2AServiceV03.typeName;

export type V03JsonRpcMethod =
  | 'message/send'
  | 'message/stream'
  | 'tasks/get'
  | 'tasks/cancel'
  | 'tasks/resubscribe'
  | 'tasks/pushNotificationConfig/set'
  | 'tasks/pushNotificationConfig/get'
  | 'tasks/pushNotificationConfig/list'
  | 'tasks/pushNotificationConfig/delete'
  | 'agent/getAuthenticatedExtendedCard';

export type V03GrpcMethod =
  | 'SendMessage'
  | 'SendStreamingMessage'
  | 'GetTask'
  | 'CancelTask'
  | 'TaskSubscription'
  | 'CreateTaskPushNotificationConfig'
  | 'GetTaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfig'
  | 'GetAgentCard'
  | 'DeleteTaskPushNotificationConfig';

/** A REST route as @a2a-js/sdk 0.3.14 serves it; `{id}` is the task id, `{configId}` the push config id. */
export interface V03RestRoute {
  verbs: ReadonlyArray<'GET' | 'POST' | 'DELETE'>;
  path: string;
  /** The status a 0.3.14 server answers a success with. */
  status: number;
}

export interface V03MethodInfo {
  /** The 1.0 method this one is. */
  method: MethodName;
  jsonRpc: V03JsonRpcMethod;
  grpc: V03GrpcMethod;
  /** "/a2a.v1.A2AService/SendMessage" */
  grpcPath: string;
  /** 0.3 proto (package a2a.v1) request and response messages. */
  requestSchema: DescMessage;
  responseSchema: DescMessage;
  streaming: boolean;
  /** The google.api.http rule of the 0.3 proto, as written there. */
  httpRule: HttpRule;
  /** The route 0.3.14 serves and calls (see the header for where it differs from httpRule). */
  rest: V03RestRoute;
}

type Row = { jsonRpc: V03JsonRpcMethod; grpc: V03GrpcMethod; rest: V03RestRoute } | null;

const TASK = '/v1/tasks/{id}';
const CONFIGS = `${TASK}/pushNotificationConfigs`;

const ROWS = {
  SendMessage: {
    jsonRpc: 'message/send',
    grpc: 'SendMessage',
    rest: { verbs: ['POST'], path: '/v1/message:send', status: 201 },
  },
  SendStreamingMessage: {
    jsonRpc: 'message/stream',
    grpc: 'SendStreamingMessage',
    rest: { verbs: ['POST'], path: '/v1/message:stream', status: 200 },
  },
  GetTask: { jsonRpc: 'tasks/get', grpc: 'GetTask', rest: { verbs: ['GET'], path: TASK, status: 200 } },
  ListTasks: null,
  CancelTask: {
    jsonRpc: 'tasks/cancel',
    grpc: 'CancelTask',
    rest: { verbs: ['POST'], path: `${TASK}:cancel`, status: 202 },
  },
  SubscribeToTask: {
    jsonRpc: 'tasks/resubscribe',
    grpc: 'TaskSubscription',
    rest: { verbs: ['GET', 'POST'], path: `${TASK}:subscribe`, status: 200 },
  },
  CreateTaskPushNotificationConfig: {
    jsonRpc: 'tasks/pushNotificationConfig/set',
    grpc: 'CreateTaskPushNotificationConfig',
    rest: { verbs: ['POST'], path: CONFIGS, status: 201 },
  },
  GetTaskPushNotificationConfig: {
    jsonRpc: 'tasks/pushNotificationConfig/get',
    grpc: 'GetTaskPushNotificationConfig',
    rest: { verbs: ['GET'], path: `${CONFIGS}/{configId}`, status: 200 },
  },
  ListTaskPushNotificationConfigs: {
    jsonRpc: 'tasks/pushNotificationConfig/list',
    grpc: 'ListTaskPushNotificationConfig',
    rest: { verbs: ['GET'], path: CONFIGS, status: 200 },
  },
  GetExtendedAgentCard: {
    jsonRpc: 'agent/getAuthenticatedExtendedCard',
    grpc: 'GetAgentCard',
    rest: { verbs: ['GET'], path: '/v1/card', status: 200 },
  },
  DeleteTaskPushNotificationConfig: {
    jsonRpc: 'tasks/pushNotificationConfig/delete',
    grpc: 'DeleteTaskPushNotificationConfig',
    rest: { verbs: ['DELETE'], path: `${CONFIGS}/{configId}`, status: 204 },
  },
} as const satisfies Record<MethodName, Row>;

function ruleOf(m: DescMethod): HttpRule {
  const { case: verb, value } = getOption(m, http).pattern;
  if (!verb || verb === 'custom' || typeof value !== 'string') throw new Error(`a2a.v1.${m.name} has no http rule`);
  return { verb: verb.toUpperCase() as HttpRule['verb'], pattern: value, body: getOption(m, http).body || undefined };
}

function build(): Map<MethodName, V03MethodInfo> {
  const byGrpc = new Map(A2AServiceV03.methods.map((m) => [m.name, m]));
  const table = new Map<MethodName, V03MethodInfo>();
  for (const [method, row] of Object.entries(ROWS) as Array<[MethodName, Row]>) {
    if (!row) continue;
    const d = byGrpc.get(row.grpc);
    if (!d) throw new Error(`the 0.3 proto has no rpc ${row.grpc}`);
    table.set(method, {
      method,
      ...row,
      grpcPath: `/${V03_GRPC_SERVICE}/${d.name}`,
      requestSchema: d.input,
      responseSchema: d.output,
      streaming: d.methodKind === 'server_streaming',
      httpRule: ruleOf(d),
    });
  }
  return table;
}

/** The 0.3 form of every 1.0 method that has one (ListTasks has none). */
export const V03_METHODS: ReadonlyMap<MethodName, V03MethodInfo> = build();
const BY_JSONRPC = new Map([...V03_METHODS.values()].map((m) => [m.jsonRpc as string, m]));
const BY_GRPC = new Map([...V03_METHODS.values()].map((m) => [m.grpc as string, m]));

/** The 1.0 methods with no 0.3 form. */
export const V1_ONLY_METHODS: readonly MethodName[] = (Object.keys(ROWS) as MethodName[]).filter((m) => !ROWS[m]);

export function isV03JsonRpcMethod(name: unknown): name is V03JsonRpcMethod {
  return typeof name === 'string' && BY_JSONRPC.has(name);
}

/** A 0.3 method by its JSON-RPC name ("message/send"), or undefined. */
export function v03ByJsonRpc(name: string): V03MethodInfo | undefined {
  return BY_JSONRPC.get(name);
}

/** A 0.3 method by its a2a.v1.A2AService rpc name ("TaskSubscription"), or undefined. */
export function v03ByGrpc(name: string): V03MethodInfo | undefined {
  return BY_GRPC.get(name);
}

/** The 0.3 form of a 1.0 method; UNSUPPORTED_OPERATION for a 1.0-only method (ListTasks). */
export function v03Of(method: MethodName): V03MethodInfo {
  const m = V03_METHODS.get(method);
  if (!m) throw A2AError.of('UNSUPPORTED_OPERATION', `${method} has no A2A 0.3 equivalent`);
  return m;
}

/** The 1.0 method a name stands for: a 1.0 name, a 0.3 JSON-RPC name or a 0.3 gRPC name. */
export function resolveMethod(name: string): MethodName | undefined {
  if (methodByName(name)) return name as MethodName;
  return (BY_JSONRPC.get(name) ?? BY_GRPC.get(name))?.method;
}

/** docs/bridge.md's method table (Markdown): 0.3 names per binding beside the 1.0 method. */
export function v03MethodTableMarkdown(): string {
  // a `|` splits a GitHub table cell even inside a code span: the verbs are joined with `\|`
  const lines = [
    '| 1.0 method | 0.3 JSON-RPC | 0.3 gRPC `a2a.v1.A2AService` | 0.3 REST (@a2a-js/sdk 0.3.14) |',
    '| :-- | :-- | :-- | :-- |',
  ];
  for (const method of Object.keys(ROWS) as MethodName[]) {
    const m = V03_METHODS.get(method);
    lines.push(
      m
        ? `| \`${method}\` | \`${m.jsonRpc}\` | \`${m.grpc}\` | \`${m.rest.verbs.join('\\|')} ${m.rest.path}\` → ${m.rest.status} |`
        : `| \`${method}\` | — | — | — (UnsupportedOperation toward a 0.3 upstream) |`,
    );
  }
  return lines.join('\n');
}
