// The A2A methods (spec §5.3) as one table: request and response types, the
// envelope's oneof member and Reply member, streaming or unary, and the REST
// routes read from a2a.proto's google.api.http rules (§11.3). Bindings look
// methods up here by their own names; nothing else lists them.
import type protobuf from 'protobufjs';
import { a2aService, EnvelopeType, messageType, MethodEnum } from '../proto/registry.js';

export type MethodName =
  | 'SendMessage'
  | 'SendStreamingMessage'
  | 'GetTask'
  | 'ListTasks'
  | 'CancelTask'
  | 'SubscribeToTask'
  | 'CreateTaskPushNotificationConfig'
  | 'GetTaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfigs'
  | 'DeleteTaskPushNotificationConfig'
  | 'GetExtendedAgentCard';

export interface HttpRule {
  verb: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** e.g. "/{tenant}/tasks/{id=*}:cancel" */
  pattern: string;
  body: string | undefined;
}

export interface MethodInfo {
  name: MethodName;
  /** a2a.gateway.v1.Method enum value. */
  enumValue: number;
  requestType: protobuf.Type;
  responseType: protobuf.Type;
  streaming: boolean;
  /** Envelope.request oneof member, e.g. "sendMessage" (also for SendStreamingMessage). */
  envelopeField: string;
  /** Reply.payload oneof member for a unary answer, e.g. "task". */
  replyField: string;
  httpRules: HttpRule[];
}

const REPLY_FIELD: Record<string, string> = {
  '.lf.a2a.v1.SendMessageResponse': 'sendMessageResponse',
  '.lf.a2a.v1.Task': 'task',
  '.lf.a2a.v1.ListTasksResponse': 'listTasksResponse',
  '.lf.a2a.v1.TaskPushNotificationConfig': 'taskPushNotificationConfig',
  '.lf.a2a.v1.ListTaskPushNotificationConfigsResponse': 'listTaskPushNotificationConfigsResponse',
  '.google.protobuf.Empty': 'empty',
  '.lf.a2a.v1.AgentCard': 'agentCard',
  '.lf.a2a.v1.StreamResponse': 'streamResponse',
};

function snakeUpper(s: string): string {
  return s.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

type RuleOption = Partial<Record<'get' | 'post' | 'delete' | 'put' | 'patch' | 'body', string>> & {
  additional_bindings?: RuleOption | RuleOption[];
};

function rulesOf(method: protobuf.Method): HttpRule[] {
  const opts = (method.parsedOptions ?? []) as Array<Record<string, RuleOption>>;
  const http = opts.find((o) => o['(google.api.http)'])?.['(google.api.http)'];
  if (!http) return [];
  const out: HttpRule[] = [];
  const add = (r: RuleOption): void => {
    for (const verb of ['get', 'post', 'delete', 'put', 'patch'] as const) {
      const pattern = r[verb];
      if (pattern) out.push({ verb: verb.toUpperCase() as HttpRule['verb'], pattern, body: r.body });
    }
    const extra = r.additional_bindings;
    for (const x of Array.isArray(extra) ? extra : extra ? [extra] : []) add(x);
  };
  add(http);
  // §11.3.2 and the official SDK subscribe with POST; a2a.proto says GET: serve both.
  if (method.name === 'SubscribeToTask') {
    for (const r of [...out]) out.push({ verb: 'POST', pattern: r.pattern, body: undefined });
  }
  return out;
}

/** The Envelope.request oneof member that carries this request type. */
function envelopeFieldFor(requestType: protobuf.Type): string {
  const member = EnvelopeType.oneofs.request?.fieldsArray.find(
    (f) => f.resolvedType?.fullName === requestType.fullName,
  );
  if (!member) throw new Error(`envelope.proto has no request member of type ${requestType.fullName}`);
  return member.name;
}

function build(): Map<MethodName, MethodInfo> {
  const table = new Map<MethodName, MethodInfo>();
  for (const m of a2aService.methodsArray) {
    m.resolve();
    const responseType = messageType(m.resolvedResponseType!.fullName.slice(1));
    const name = m.name as MethodName;
    const enumValue = MethodEnum.values[snakeUpper(name)];
    if (enumValue === undefined) throw new Error(`envelope.proto has no Method for ${name}`);
    const requestType = messageType(m.resolvedRequestType!.fullName.slice(1));
    table.set(name, {
      name,
      enumValue,
      requestType,
      responseType,
      streaming: Boolean(m.responseStream),
      envelopeField: envelopeFieldFor(requestType),
      replyField: REPLY_FIELD[responseType.fullName] ?? 'unknown',
      httpRules: rulesOf(m),
    });
  }
  return table;
}

export const METHODS: ReadonlyMap<MethodName, MethodInfo> = build();

export function methodByName(name: string): MethodInfo | undefined {
  return METHODS.get(name as MethodName);
}

export function methodInfo(name: MethodName): MethodInfo {
  const m = METHODS.get(name);
  if (!m) throw new Error(`unknown method ${name}`);
  return m;
}
