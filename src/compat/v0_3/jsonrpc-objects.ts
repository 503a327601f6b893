// The A2A objects in 0.3's JSON-RPC dialect (the "JSON Schema" model of
// v0.3/a2a.schema.json: `kind` discriminators, "user"/"agent", kebab task
// states, parts {kind:text|file|data}) ⇄ the same objects in 1.0 ProtoJSON
// (bridge-0.3-1.0.md §5 objects, §6 events; push configs and send params are
// in jsonrpc-params.ts; WN §Part Object, §TaskStatus, §Stream Event Objects).
// 0.3 input is untrusted:
// what does not fit throws a ProtoJsonError naming the field. 1.0 input is
// what writeJson produced (defaults omitted).
//
// Lossy, as @a2a-js/sdk 1.3.0's compat layer does: a 1.0 `data` that is not an
// object travels as {value: X} with metadata.data_part_compat = true and is
// unwrapped on the way back; a text part's mediaType/filename are dropped.
import {
  FINAL_STATES,
  STATE_FROM_V1,
  STATE_TO_V1,
  bad,
  compact,
  isObject,
  nonEmpty,
  nonEmptyList,
  optArray,
  optBool,
  optObject,
  optString,
  optStrings,
  reqArray,
  reqObject,
  reqString,
  type Json,
  type JsonObject,
  at,
} from './common.js';

export const DATA_PART_COMPAT_FLAG = 'data_part_compat';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/** A 0.3 timestamp as RFC 3339 (a zone-less ISO time is read as UTC). */
function timestampToV1(v: unknown, field: string): string | undefined {
  const s = optString(v, field);
  if (s === undefined || s === '' || RFC3339.test(s)) return s || undefined;
  const ms = Date.parse(/(?:Z|[+-]\d{2}:?\d{2})$/i.test(s) ? s : `${s}Z`);
  if (Number.isNaN(ms)) bad(field, 'expected an RFC 3339 timestamp');
  return new Date(ms).toISOString();
}

// --- parts -------------------------------------------------------------------

function partKind(p: JsonObject, field: string): string {
  if (typeof p.kind === 'string') return p.kind;
  const present = ['text', 'file', 'data'].filter((k) => p[k] !== undefined);
  if (present.length === 1) return present[0]!;
  return bad(at(field, 'kind'), 'expected "text", "file" or "data"');
}

export function partToV1(v: unknown, field: string): JsonObject {
  const p = reqObject(v, field);
  const metadata = optObject(p.metadata, at(field, 'metadata'));
  switch (partKind(p, field)) {
    case 'text':
      return compact({ text: reqString(p.text, at(field, 'text')), metadata });
    case 'file': {
      const f = reqObject(p.file, at(field, 'file'));
      const common = {
        mediaType: optString(f.mimeType, at(field, 'file.mimeType')),
        filename: optString(f.name, at(field, 'file.name')),
        metadata,
      };
      if (f.bytes !== undefined) return compact({ raw: reqString(f.bytes, at(field, 'file.bytes')), ...common });
      if (f.uri !== undefined) return compact({ url: reqString(f.uri, at(field, 'file.uri')), ...common });
      return bad(at(field, 'file'), 'expected "bytes" or "uri"');
    }
    case 'data': {
      if (p.data === undefined) bad(at(field, 'data'), 'required');
      let data: Json = p.data;
      let meta = metadata;
      if (meta?.[DATA_PART_COMPAT_FLAG] === true) {
        if (isObject(data) && 'value' in data) data = data.value!;
        const { [DATA_PART_COMPAT_FLAG]: _flag, ...rest } = meta;
        meta = Object.keys(rest).length > 0 ? rest : undefined;
      }
      return compact({ data, metadata: meta });
    }
    default:
      return bad(at(field, 'kind'), `unknown part kind "${String(p.kind)}"`);
  }
}

export function partToV03(p: JsonObject): JsonObject {
  const metadata = isObject(p.metadata) ? p.metadata : undefined;
  if (typeof p.text === 'string') return compact({ kind: 'text', text: p.text, metadata });
  if (typeof p.raw === 'string' || typeof p.url === 'string') {
    const file = compact({
      ...(typeof p.raw === 'string' ? { bytes: p.raw } : { uri: p.url }),
      mimeType: nonEmpty(p.mediaType),
      name: nonEmpty(p.filename),
    });
    return compact({ kind: 'file', file, metadata });
  }
  if ('data' in p) {
    const data = p.data ?? null;
    if (isObject(data)) return compact({ kind: 'data', data, metadata });
    return { kind: 'data', data: { value: data }, metadata: { ...metadata, [DATA_PART_COMPAT_FLAG]: true } };
  }
  return bad('part', 'a 1.0 part with no content has no 0.3 form');
}

// --- messages, artifacts, status, task ---------------------------------------

function role(v: unknown, field: string): string {
  if (v === 'user') return 'ROLE_USER';
  if (v === 'agent') return 'ROLE_AGENT';
  return bad(field, 'expected "user" or "agent"');
}

export function messageToV1(v: unknown, field: string): JsonObject {
  const m = reqObject(v, field);
  return compact({
    messageId: reqString(m.messageId, at(field, 'messageId')),
    contextId: optString(m.contextId, at(field, 'contextId')),
    taskId: optString(m.taskId, at(field, 'taskId')),
    role: role(m.role, at(field, 'role')),
    parts: reqArray(m.parts, at(field, 'parts')).map((p, i) => partToV1(p, at(field, `parts[${i}]`))),
    metadata: optObject(m.metadata, at(field, 'metadata')),
    extensions: optStrings(m.extensions, at(field, 'extensions')),
    referenceTaskIds: optStrings(m.referenceTaskIds, at(field, 'referenceTaskIds')),
  });
}

export function messageToV03(m: JsonObject): JsonObject {
  return compact({
    kind: 'message',
    messageId: typeof m.messageId === 'string' ? m.messageId : '',
    role: m.role === 'ROLE_USER' ? 'user' : 'agent',
    parts: ((m.parts as JsonObject[] | undefined) ?? []).map(partToV03),
    contextId: nonEmpty(m.contextId),
    taskId: nonEmpty(m.taskId),
    metadata: isObject(m.metadata) ? m.metadata : undefined,
    extensions: nonEmptyList(m.extensions as string[] | undefined),
    referenceTaskIds: nonEmptyList(m.referenceTaskIds as string[] | undefined),
  });
}

export function artifactToV1(v: unknown, field: string): JsonObject {
  const a = reqObject(v, field);
  return compact({
    artifactId: reqString(a.artifactId, at(field, 'artifactId')),
    name: optString(a.name, at(field, 'name')),
    description: optString(a.description, at(field, 'description')),
    parts: reqArray(a.parts, at(field, 'parts')).map((p, i) => partToV1(p, at(field, `parts[${i}]`))),
    metadata: optObject(a.metadata, at(field, 'metadata')),
    extensions: optStrings(a.extensions, at(field, 'extensions')),
  });
}

export function artifactToV03(a: JsonObject): JsonObject {
  return compact({
    artifactId: typeof a.artifactId === 'string' ? a.artifactId : '',
    name: nonEmpty(a.name),
    description: nonEmpty(a.description),
    parts: ((a.parts as JsonObject[] | undefined) ?? []).map(partToV03),
    metadata: isObject(a.metadata) ? a.metadata : undefined,
    extensions: nonEmptyList(a.extensions as string[] | undefined),
  });
}

export function statusToV1(v: unknown, field: string): JsonObject {
  const s = reqObject(v, field);
  const state = STATE_TO_V1.get(reqString(s.state, at(field, 'state')));
  if (!state) bad(at(field, 'state'), `unknown task state "${String(s.state)}"`);
  return compact({
    state,
    message: s.message === undefined || s.message === null ? undefined : messageToV1(s.message, at(field, 'message')),
    timestamp: timestampToV1(s.timestamp, at(field, 'timestamp')),
  });
}

export function statusToV03(s: JsonObject | undefined): JsonObject {
  return compact({
    state: STATE_FROM_V1.get(typeof s?.state === 'string' ? s.state : '') ?? 'unknown',
    message: isObject(s?.message) ? messageToV03(s.message) : undefined,
    timestamp: nonEmpty(s?.timestamp),
  });
}

export function taskToV1(v: unknown, field: string): JsonObject {
  const t = reqObject(v, field);
  return compact({
    id: reqString(t.id, at(field, 'id')),
    contextId: optString(t.contextId, at(field, 'contextId')),
    status: statusToV1(t.status, at(field, 'status')),
    artifacts: optArray(t.artifacts, at(field, 'artifacts'))?.map((a, i) =>
      artifactToV1(a, at(field, `artifacts[${i}]`)),
    ),
    history: optArray(t.history, at(field, 'history'))?.map((m, i) => messageToV1(m, at(field, `history[${i}]`))),
    metadata: optObject(t.metadata, at(field, 'metadata')),
  });
}

export function taskToV03(t: JsonObject): JsonObject {
  return compact({
    kind: 'task',
    id: typeof t.id === 'string' ? t.id : '',
    contextId: typeof t.contextId === 'string' ? t.contextId : '',
    status: statusToV03(isObject(t.status) ? t.status : undefined),
    history: nonEmptyList((t.history as JsonObject[] | undefined)?.map(messageToV03)),
    artifacts: nonEmptyList((t.artifacts as JsonObject[] | undefined)?.map(artifactToV03)),
    metadata: isObject(t.metadata) ? t.metadata : undefined,
  });
}

// --- stream events (§6) ------------------------------------------------------

export function statusUpdateToV1(v: unknown, field: string): JsonObject {
  const e = reqObject(v, field);
  optBool(e.final, at(field, 'final')); // dropped: the 1.0 stream ends when its binding closes
  return compact({
    taskId: reqString(e.taskId, at(field, 'taskId')),
    contextId: optString(e.contextId, at(field, 'contextId')),
    status: statusToV1(e.status, at(field, 'status')),
    metadata: optObject(e.metadata, at(field, 'metadata')),
  });
}

export function statusUpdateToV03(e: JsonObject): JsonObject {
  const status = statusToV03(isObject(e.status) ? e.status : undefined);
  return compact({
    kind: 'status-update',
    taskId: typeof e.taskId === 'string' ? e.taskId : '',
    contextId: typeof e.contextId === 'string' ? e.contextId : '',
    status,
    final: FINAL_STATES.has(status.state as string),
    metadata: isObject(e.metadata) ? e.metadata : undefined,
  });
}

export function artifactUpdateToV1(v: unknown, field: string): JsonObject {
  const e = reqObject(v, field);
  return compact({
    taskId: reqString(e.taskId, at(field, 'taskId')),
    contextId: optString(e.contextId, at(field, 'contextId')),
    artifact: artifactToV1(e.artifact, at(field, 'artifact')),
    append: optBool(e.append, at(field, 'append')),
    lastChunk: optBool(e.lastChunk, at(field, 'lastChunk')),
    metadata: optObject(e.metadata, at(field, 'metadata')),
  });
}

export function artifactUpdateToV03(e: JsonObject): JsonObject {
  return compact({
    kind: 'artifact-update',
    taskId: typeof e.taskId === 'string' ? e.taskId : '',
    contextId: typeof e.contextId === 'string' ? e.contextId : '',
    artifact: artifactToV03(isObject(e.artifact) ? e.artifact : {}),
    append: e.append === true,
    lastChunk: e.lastChunk === true,
    metadata: isObject(e.metadata) ? e.metadata : undefined,
  });
}
