// Shared pieces of the A2A 0.3 ↔ 1.0 translators (shared/a2a/bridge-0.3-1.0.md
// §4–§5): reading untrusted 0.3 JSON with field violations (a value that does
// not fit becomes a ProtoJsonError naming the field, so the caller answers
// InvalidParams), the task-state spellings of both versions, the 0.3
// gRPC/REST resource names ("tasks/{id}", "tasks/{id}/pushNotificationConfigs/{cid}",
// read only in exactly their shape), and how an answer with no 0.3 form fails
// (INVALID_AGENT_RESPONSE).
import { A2AError } from '../../errors/a2a-error.js';
import { ProtoJsonError, isObject, type Json, type JsonObject } from '../../proto/json.js';

export { isObject, type Json, type JsonObject };

/** The path of `key` below `field` ("" is the top level). */
export function at(field: string, key: string): string {
  return field ? `${field}.${key}` : key;
}

/** Throws a ProtoJsonError with one field violation. */
export function bad(field: string, description: string): never {
  throw new ProtoJsonError([{ field, description }]);
}

export function reqObject(v: unknown, field: string): JsonObject {
  if (!isObject(v)) bad(field, 'expected a JSON object');
  return v;
}

export function optObject(v: unknown, field: string): JsonObject | undefined {
  return v === undefined || v === null ? undefined : reqObject(v, field);
}

export function reqString(v: unknown, field: string): string {
  if (typeof v !== 'string') bad(field, 'expected a string');
  return v;
}

export function optString(v: unknown, field: string): string | undefined {
  return v === undefined || v === null ? undefined : reqString(v, field);
}

export function reqArray(v: unknown, field: string): Json[] {
  if (!Array.isArray(v)) bad(field, 'expected an array');
  return v as Json[];
}

export function optArray(v: unknown, field: string): Json[] | undefined {
  return v === undefined || v === null ? undefined : reqArray(v, field);
}

export function optStrings(v: unknown, field: string): string[] | undefined {
  const a = optArray(v, field);
  return a?.map((s, i) => reqString(s, `${field}[${i}]`));
}

export function optBool(v: unknown, field: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') bad(field, 'expected a boolean');
  return v;
}

export function optInt(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) bad(field, 'expected an integer');
  return n;
}

/** Copies the entries whose value is not undefined (JSON has no undefined). */
export function compact(o: Record<string, Json | undefined>): JsonObject {
  // fromEntries defines own properties: a "__proto__" key stays data
  return Object.fromEntries(Object.entries(o).filter((e): e is [string, Json] => e[1] !== undefined));
}

/** A non-empty string or undefined (1.0 ProtoJSON omits empty strings, 0.3 optional fields are absent). */
export function nonEmpty(v: Json | undefined): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A non-empty array or undefined. */
export function nonEmptyList<T extends Json>(v: T[] | undefined): T[] | undefined {
  return v && v.length > 0 ? v : undefined;
}

// --- task states (bridge §5) -------------------------------------------------
// Maps, not object literals: a state read from a peer ("toString", "__proto__")
// must not find a prototype's member.

/** 0.3 JSON-RPC (kebab) → 1.0 TaskState name. */
export const STATE_TO_V1: ReadonlyMap<string, string> = new Map([
  ['unknown', 'TASK_STATE_UNSPECIFIED'],
  ['submitted', 'TASK_STATE_SUBMITTED'],
  ['working', 'TASK_STATE_WORKING'],
  ['completed', 'TASK_STATE_COMPLETED'],
  ['failed', 'TASK_STATE_FAILED'],
  ['canceled', 'TASK_STATE_CANCELED'],
  ['input-required', 'TASK_STATE_INPUT_REQUIRED'],
  ['rejected', 'TASK_STATE_REJECTED'],
  ['auth-required', 'TASK_STATE_AUTH_REQUIRED'],
]);

/** 1.0 TaskState name → 0.3 JSON-RPC (kebab). */
export const STATE_FROM_V1: ReadonlyMap<string, string> = new Map([...STATE_TO_V1].map(([k, v]) => [v, k]));

/**
 * The states after which a 1.0 stream closes (spec §11.7: terminal and
 * interrupted): a 0.3 status-update in one of them carries `final: true`.
 */
export const FINAL_STATES: ReadonlySet<string> = new Set([
  'completed',
  'canceled',
  'failed',
  'rejected',
  'input-required',
  'auth-required',
]);

/** 0.3 ProtoJSON (TASK_STATE_CANCELLED, double L) ↔ 0.3 JSON-RPC kebab. */
export const PROTO_STATE_TO_RPC: ReadonlyMap<string, string> = new Map([
  ['TASK_STATE_UNSPECIFIED', 'unknown'],
  ['TASK_STATE_SUBMITTED', 'submitted'],
  ['TASK_STATE_WORKING', 'working'],
  ['TASK_STATE_COMPLETED', 'completed'],
  ['TASK_STATE_FAILED', 'failed'],
  ['TASK_STATE_CANCELLED', 'canceled'],
  ['TASK_STATE_INPUT_REQUIRED', 'input-required'],
  ['TASK_STATE_REJECTED', 'rejected'],
  ['TASK_STATE_AUTH_REQUIRED', 'auth-required'],
]);
export const RPC_STATE_TO_PROTO: ReadonlyMap<string, string> = new Map([...PROTO_STATE_TO_RPC].map(([k, v]) => [v, k]));

// --- 0.3 gRPC/REST resource names (WN §ID Format Simplification) ------------
// A name is read only in exactly the shape its field has: a longer or shorter
// one is InvalidParams naming the field, never cut to a prefix (which would
// name another task).

const TASK_NAME = /^tasks\/([^/]+)$/;
/**
 * CreateTaskPushNotificationConfigRequest.parent: "tasks/{id}", or as the 0.3 proto's own http rule spells it,
 * "task/{id}/pushNotificationConfigs".
 */
const PARENT_NAME = /^tasks?\/([^/]+)(?:\/pushNotificationConfigs)?$/;
const CONFIG_NAME = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]+)$/;
/** TaskPushNotificationConfig.name: 0.3 SDKs write "…/pushNotificationConfigs/" for a config without an id. */
const CONFIG_RESOURCE = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]*)$/;

/** An id as one segment of a resource name: one containing "/" would name another resource. */
function segment(id: string, field: string): string {
  if (id.includes('/')) bad(field, 'an id containing "/" has no A2A 0.3 resource name');
  return id;
}

export function taskName(taskId: string, field = 'id'): string {
  return `tasks/${segment(taskId, field)}`;
}

export function configName(taskId: string, configId: string): string {
  return `tasks/${segment(taskId, 'taskId')}/pushNotificationConfigs/${segment(configId, 'id')}`;
}

function matched(re: RegExp, name: unknown, field: string, shape: string): RegExpExecArray {
  const m = re.exec(reqString(name, field));
  if (!m) bad(field, `expected "${shape}", got "${String(name)}"`);
  return m;
}

/** The task id of exactly "tasks/{id}". */
export function taskIdOfName(name: unknown, field: string): string {
  return matched(TASK_NAME, name, field, 'tasks/{id}')[1]!;
}

/** The task id of a CreateTaskPushNotificationConfig `parent`: exactly "tasks/{id}" (or the http rule's form). */
function taskIdOfParent(name: unknown, field: string): string {
  return matched(PARENT_NAME, name, field, 'tasks/{id}')[1]!;
}

/** Task and config ids of exactly "tasks/{id}/pushNotificationConfigs/{configId}". */
export function idsOfConfigName(name: unknown, field: string): { taskId: string; configId: string } {
  const m = matched(CONFIG_NAME, name, field, 'tasks/{id}/pushNotificationConfigs/{configId}');
  return { taskId: m[1]!, configId: m[2]! };
}

/** The ids a TaskPushNotificationConfig's `name` holds (the config id may be empty: "" then). */
export function idsOfConfigResource(name: unknown, field: string): { taskId: string; configId: string } {
  const m = matched(CONFIG_RESOURCE, name, field, 'tasks/{id}/pushNotificationConfigs/{configId}');
  return { taskId: m[1]!, configId: m[2]! };
}

/**
 * The task (and fallback config id) of a CreateTaskPushNotificationConfig: the parent (on REST, the path's) names the
 * task, as 0.3.14's server reads it, else the config's own name; that name, when given, is exactly
 * "tasks/{id}/pushNotificationConfigs/{cid?}", and its config id counts only for the same task.
 */
export function idsOfCreate(parent: unknown, name: unknown, nameField: string): { taskId: string; configId?: string } {
  const named = typeof name === 'string' && name !== '' ? idsOfConfigResource(name, nameField) : undefined;
  const hasParent = typeof parent === 'string' && parent !== '';
  const taskId = hasParent || !named ? taskIdOfParent(parent, 'parent') : named.taskId;
  return { taskId, configId: named?.taskId === taskId ? named.configId : undefined };
}

/**
 * `write()`, an answer written for a 0.3 caller: what has no 0.3 form (a
 * ProtoJsonError: a part without content, an event without payload) is an
 * answer the agent should not have given, INVALID_AGENT_RESPONSE saying why.
 */
export function writtenForV03<T>(what: string, write: () => T): T {
  try {
    return write();
  } catch (e) {
    if (!(e instanceof ProtoJsonError)) throw e;
    throw A2AError.of('INVALID_AGENT_RESPONSE', `the agent's ${what} has no A2A 0.3 form: ${e.message}`, { cause: e });
  }
}
