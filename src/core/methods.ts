// The A2A methods (spec §5.3, §3.1) as one table built from the generated
// service descriptor (a2a.proto's A2AService): request and response schemas,
// streaming or unary, the envelope's Method value and `request` oneof member
// (envelope.proto), idempotence (§3.3.1) and the REST routes from a2a.proto's
// google.api.http rules (§11.3). Bindings look methods up here by their own
// names; nothing else lists them. Types follow the generated descriptor, so a
// method's request and response are typed per method.
import { getOption, type DescMessage, type DescMethod, type MessageShape } from '@bufbuild/protobuf';
import { A2AService } from '../gen/a2a_pb.js';
import { EnvelopeSchema, Method as MethodEnum } from '../gen/a2a/gateway/v1/envelope_pb.js';
import { http } from '../gen/google/api/annotations_pb.js';
import type { HttpRule as GenHttpRule } from '../gen/google/api/http_pb.js';

type Service = typeof A2AService.method;
type LocalName = keyof Service;
type Capitalized<S extends string> = S extends `${infer H}${infer T}` ? `${Uppercase<H>}${T}` : S;

/** A method by its A2A name ("SendMessage", …). */
export type MethodName = Capitalized<LocalName>;
type Local<M extends MethodName> = Uncapitalize<M> & LocalName;

/** The typed request and response of each method. */
export type RequestOf<M extends MethodName> = MessageShape<Service[Local<M>]['input']>;
export type ResponseOf<M extends MethodName> = MessageShape<Service[Local<M>]['output']>;
/** Any method's request / response message. */
export type AnyRequest = RequestOf<MethodName>;
export type AnyResponse = ResponseOf<MethodName>;
/** The envelope's `request` oneof member names. */
export type EnvelopeCase = NonNullable<import('../gen/a2a/gateway/v1/envelope_pb.js').Envelope['request']['case']>;

export interface HttpRule {
  verb: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** e.g. "/{tenant}/tasks/{id=*}:cancel" */
  pattern: string;
  /** The body field ("*" = the whole request), or undefined when the request has no body. */
  body: string | undefined;
}

export interface MethodInfo {
  name: MethodName;
  /** a2a.gateway.v1.Method value. */
  enumValue: MethodEnum;
  requestSchema: DescMessage;
  responseSchema: DescMessage;
  streaming: boolean;
  /** §3.3.1: may be sent again (retry, failover) without changing the agent's state twice. */
  idempotent: boolean;
  /** Envelope.request oneof member ("sendMessage" for both SendMessage and SendStreamingMessage). */
  envelopeCase: EnvelopeCase;
  httpRules: HttpRule[];
}

const IDEMPOTENT = new Set<MethodName>([
  'GetTask',
  'ListTasks',
  'CancelTask',
  'GetExtendedAgentCard',
  // reads the task's updates: a subscription that failed before its first event changed nothing
  'SubscribeToTask',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
]);

function snakeUpper(s: string): string {
  return s.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

function rulesOf(method: DescMethod): HttpRule[] {
  const out: HttpRule[] = [];
  const add = (rule: GenHttpRule): void => {
    const { case: verb, value } = rule.pattern;
    if (verb && verb !== 'custom' && typeof value === 'string') {
      out.push({ verb: verb.toUpperCase() as HttpRule['verb'], pattern: value, body: rule.body || undefined });
    }
    for (const extra of rule.additionalBindings) add(extra);
  };
  add(getOption(method, http));
  // §11.3.2 and the official SDK subscribe with POST; a2a.proto says GET: serve both.
  if (method.name === 'SubscribeToTask') {
    for (const r of [...out]) out.push({ verb: 'POST', pattern: r.pattern, body: undefined });
  }
  return out;
}

function envelopeCaseFor(request: DescMessage): EnvelopeCase {
  const member = EnvelopeSchema.oneofs
    .find((o) => o.name === 'request')
    ?.fields.find((f) => f.message?.typeName === request.typeName);
  if (!member) throw new Error(`envelope.proto has no request member of type ${request.typeName}`);
  return member.localName as EnvelopeCase;
}

function build(): Map<MethodName, MethodInfo> {
  const table = new Map<MethodName, MethodInfo>();
  for (const m of A2AService.methods) {
    const name = m.name as MethodName;
    const enumValue = MethodEnum[snakeUpper(name) as keyof typeof MethodEnum];
    if (enumValue === undefined) throw new Error(`envelope.proto has no Method for ${name}`);
    table.set(name, {
      name,
      enumValue,
      requestSchema: m.input,
      responseSchema: m.output,
      streaming: m.methodKind === 'server_streaming',
      idempotent: IDEMPOTENT.has(name),
      envelopeCase: envelopeCaseFor(m.input),
      httpRules: rulesOf(m),
    });
  }
  return table;
}

export const METHODS: ReadonlyMap<MethodName, MethodInfo> = build();
const BY_ENUM = new Map([...METHODS.values()].map((m) => [m.enumValue, m]));

/** A method by the name a caller sent, or undefined. */
export function methodByName(name: string): MethodInfo | undefined {
  return METHODS.get(name as MethodName);
}

export function methodInfo(name: MethodName): MethodInfo {
  const m = METHODS.get(name);
  if (!m) throw new Error(`unknown method ${name}`);
  return m;
}

export function methodByEnum(value: MethodEnum): MethodInfo | undefined {
  return BY_ENUM.get(value);
}

/** Whether the method addresses one task (its REST path has the task's id): an upstream's bare 404 then means TaskNotFound. */
export function namesTask(m: MethodInfo): boolean {
  return m.httpRules.some((r) => r.pattern.includes('/tasks/{'));
}
