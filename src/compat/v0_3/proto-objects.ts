// A2A objects in the 0.3 proto's ProtoJSON (package a2a.v1, as REST bodies and
// — decoded — gRPC messages carry them) ⇄ the same objects in 0.3's JSON-RPC
// dialect (bridge-0.3-1.0.md §5 Part table, §4 push config): Message `content`
// ⇄ `parts`, FilePart {fileWithUri|fileWithBytes, mimeType} ⇄ file {uri|bytes,
// mimeType}, DataPart {data: {...}} ⇄ data {...}, ROLE_* ⇄ "user"/"agent",
// TASK_STATE_CANCELLED (double L) and the other TASK_STATE_* ⇄ kebab states,
// TaskPushNotificationConfig {name: "tasks/{id}/pushNotificationConfigs/{cid}",
// pushNotificationConfig} ⇄ {taskId, pushNotificationConfig}. Composed with
// jsonrpc-objects.ts this is 0.3 ProtoJSON ⇄ 1.0, the way both a2a-js SDKs
// convert (their FromProto/ToProto beside the JSON-RPC types).
//
// The 0.3 proto has no Part metadata, no file name, no referenceTaskIds: those
// are dropped toward it — so a non-object 1.0 data value reaches a 0.3 proto
// peer as {value: X} without the data_part_compat flag and comes back as that
// object, exactly as @a2a-js/sdk 1.3.0's legacy REST/gRPC transports do.
// Input is canonical ProtoJSON (read through the 0.3 schema first).
import {
  PROTO_STATE_TO_RPC,
  RPC_STATE_TO_PROTO,
  bad,
  compact,
  configName,
  isObject,
  nonEmpty,
  nonEmptyList,
  idsOfConfigResource,
  type Json,
  type JsonObject,
  at,
} from './common.js';

const obj = (v: Json | undefined): JsonObject | undefined => (isObject(v) ? v : undefined);
const list = (v: Json | undefined): JsonObject[] => (Array.isArray(v) ? v.filter(isObject) : []);
const str = (v: Json | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

// --- 0.3 proto → 0.3 JSON-RPC -------------------------------------------------

export function partFromProto(p: JsonObject, field: string): JsonObject {
  if (typeof p.text === 'string') return { kind: 'text', text: p.text };
  const f = obj(p.file);
  if (f) {
    const mimeType = nonEmpty(f.mimeType);
    if (typeof f.fileWithBytes === 'string')
      return { kind: 'file', file: compact({ bytes: f.fileWithBytes, mimeType }) };
    if (typeof f.fileWithUri === 'string') return { kind: 'file', file: compact({ uri: f.fileWithUri, mimeType }) };
    return bad(at(field, 'file'), 'expected "fileWithUri" or "fileWithBytes"');
  }
  const d = obj(p.data);
  if (d) return { kind: 'data', data: obj(d.data) ?? {} };
  return bad(field, 'expected "text", "file" or "data"');
}

export function messageFromProto(m: JsonObject, field: string): JsonObject {
  return compact({
    kind: 'message',
    messageId: str(m.messageId) ?? '',
    contextId: nonEmpty(m.contextId),
    taskId: nonEmpty(m.taskId),
    role: m.role === 'ROLE_USER' ? 'user' : m.role === 'ROLE_AGENT' ? 'agent' : undefined,
    parts: list(m.content).map((p, i) => partFromProto(p, at(field, `content[${i}]`))),
    metadata: obj(m.metadata),
    extensions: nonEmptyList(m.extensions as string[] | undefined),
  });
}

function artifactFromProto(a: JsonObject, field: string): JsonObject {
  return compact({
    artifactId: str(a.artifactId) ?? '',
    name: nonEmpty(a.name),
    description: nonEmpty(a.description),
    parts: list(a.parts).map((p, i) => partFromProto(p, at(field, `parts[${i}]`))),
    metadata: obj(a.metadata),
    extensions: nonEmptyList(a.extensions as string[] | undefined),
  });
}

function statusFromProto(s: JsonObject | undefined, field: string): JsonObject {
  const state = str(s?.state);
  return compact({
    // the 1.0 spelling TASK_STATE_CANCELED is read too
    state: state === 'TASK_STATE_CANCELED' ? 'canceled' : (PROTO_STATE_TO_RPC.get(state ?? '') ?? 'unknown'),
    message: obj(s?.message) ? messageFromProto(s!.message as JsonObject, at(field, 'message')) : undefined,
    timestamp: nonEmpty(s?.timestamp),
  });
}

export function taskFromProto(t: JsonObject, field: string): JsonObject {
  return compact({
    kind: 'task',
    id: str(t.id) ?? '',
    contextId: str(t.contextId) ?? '',
    status: statusFromProto(obj(t.status), at(field, 'status')),
    artifacts: list(t.artifacts).map((a, i) => artifactFromProto(a, at(field, `artifacts[${i}]`))),
    history: list(t.history).map((m, i) => messageFromProto(m, at(field, `history[${i}]`))),
    metadata: obj(t.metadata),
  });
}

export function statusUpdateFromProto(e: JsonObject, field: string): JsonObject {
  return compact({
    kind: 'status-update',
    taskId: str(e.taskId) ?? '',
    contextId: str(e.contextId) ?? '',
    status: statusFromProto(obj(e.status), at(field, 'status')),
    final: e.final === true,
    metadata: obj(e.metadata),
  });
}

export function artifactUpdateFromProto(e: JsonObject, field: string): JsonObject {
  return compact({
    kind: 'artifact-update',
    taskId: str(e.taskId) ?? '',
    contextId: str(e.contextId) ?? '',
    artifact: artifactFromProto(obj(e.artifact) ?? {}, at(field, 'artifact')),
    append: e.append === true,
    lastChunk: e.lastChunk === true,
    metadata: obj(e.metadata),
  });
}

/** 0.3 proto PushNotificationConfig and JSON-RPC PushNotificationConfig share their field names. */
export function pushConfigFromProto(c: JsonObject): JsonObject {
  const auth = obj(c.authentication);
  return compact({
    id: nonEmpty(c.id),
    url: str(c.url) ?? '',
    token: nonEmpty(c.token),
    authentication: auth
      ? compact({ schemes: (auth.schemes as string[] | undefined) ?? [], credentials: nonEmpty(auth.credentials) })
      : undefined,
  });
}

/** TaskPushNotificationConfig {name, pushNotificationConfig} → {taskId, pushNotificationConfig}. */
export function taskPushConfigFromProto(c: JsonObject, field: string): JsonObject {
  const pnc = obj(c.pushNotificationConfig);
  if (!pnc) bad(at(field, 'pushNotificationConfig'), 'required');
  const inner = pushConfigFromProto(pnc);
  const { taskId, configId } = idsOfConfigResource(c.name, at(field, 'name'));
  return { taskId, pushNotificationConfig: compact({ ...inner, id: nonEmpty(inner.id) ?? nonEmpty(configId) }) };
}

export function configurationFromProto(c: JsonObject): JsonObject {
  return compact({
    acceptedOutputModes: nonEmptyList(c.acceptedOutputModes as string[] | undefined),
    pushNotificationConfig: obj(c.pushNotification) ? pushConfigFromProto(c.pushNotification as JsonObject) : undefined,
    historyLength: typeof c.historyLength === 'number' && c.historyLength > 0 ? c.historyLength : undefined,
    blocking: typeof c.blocking === 'boolean' ? c.blocking : undefined,
  });
}

// --- 0.3 JSON-RPC → 0.3 proto (loose; normalized through the 0.3 schema after) -

export function partToProto(p: JsonObject): JsonObject {
  if (p.kind === 'text') return { text: str(p.text) ?? '' };
  if (p.kind === 'file') {
    const f = obj(p.file) ?? {};
    const ref = typeof f.bytes === 'string' ? { fileWithBytes: f.bytes } : { fileWithUri: str(f.uri) ?? '' };
    return { file: compact({ ...ref, mimeType: nonEmpty(f.mimeType) }) };
  }
  return { data: { data: obj(p.data) ?? {} } };
}

export function messageToProto(m: JsonObject): JsonObject {
  return compact({
    messageId: str(m.messageId),
    contextId: str(m.contextId),
    taskId: str(m.taskId),
    role: m.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT',
    content: list(m.parts).map(partToProto),
    metadata: obj(m.metadata),
    extensions: m.extensions,
  });
}

function artifactToProto(a: JsonObject): JsonObject {
  return { ...a, parts: list(a.parts).map(partToProto) };
}

function statusToProto(s: JsonObject | undefined): JsonObject {
  return compact({
    state: RPC_STATE_TO_PROTO.get(str(s?.state) ?? '') ?? 'TASK_STATE_UNSPECIFIED',
    message: obj(s?.message) ? messageToProto(s!.message as JsonObject) : undefined,
    timestamp: s?.timestamp,
  });
}

export function taskToProto(t: JsonObject): JsonObject {
  const { kind: _k, ...rest } = t;
  return compact({
    ...rest,
    status: statusToProto(obj(t.status)),
    artifacts: list(t.artifacts).map(artifactToProto),
    history: list(t.history).map(messageToProto),
  });
}

export function statusUpdateToProto(e: JsonObject): JsonObject {
  const { kind: _k, ...rest } = e;
  return { ...rest, status: statusToProto(obj(e.status)) };
}

export function artifactUpdateToProto(e: JsonObject): JsonObject {
  const { kind: _k, ...rest } = e;
  return { ...rest, artifact: artifactToProto(obj(e.artifact) ?? {}) };
}

/** {taskId, pushNotificationConfig} → TaskPushNotificationConfig {name, pushNotificationConfig}. */
export function taskPushConfigToProto(c: JsonObject): JsonObject {
  const pnc = obj(c.pushNotificationConfig) ?? {};
  return { name: configName(str(c.taskId) ?? '', str(pnc.id) ?? ''), pushNotificationConfig: pnc };
}

export function configurationToProto(c: JsonObject): JsonObject {
  return compact({
    acceptedOutputModes: c.acceptedOutputModes,
    pushNotification: c.pushNotificationConfig,
    historyLength: c.historyLength,
    blocking: c.blocking,
  });
}
