// The A2A 0.3 HTTP+JSON/REST routes (bridge §3) as @a2a-js/sdk 0.3.14
// clients send them and its servers accept them (compat/v0_3/methods.ts
// lists them; a2a.proto 0.3's google.api.http rules name resource paths such
// as {name=tasks/*}, the SDK plain ids): matching a caller's `/v1/...` path,
// the 0.3 request (ProtoJSON of package a2a.v1) built from its ids, query and
// body, and the path of a call to a 0.3 upstream. A `/v1/...` path is a 0.3
// call only when the caller sends no A2A-Version (or 0.3); with 1.x it stays
// the 1.0 `/{tenant}/...` form.
import { V03_METHODS, type V03MethodInfo } from '../../compat/v0_3/methods.js';
import type { MethodName } from '../../core/methods.js';
import { A2AError } from '../../errors/a2a-error.js';
import type { JsonObject } from '../../proto/json.js';
import { pathSegment } from './paths.js';

interface Compiled {
  info: V03MethodInfo;
  regex: RegExp;
}

const COMPILED: readonly Compiled[] = [...V03_METHODS.values()].map((info) => ({
  info,
  regex: new RegExp(
    `^${info.rest.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(?:id|configId)\}/g, '([^/:]+)')}$`,
  ),
}));

/** Whether a path below the route prefix is in 0.3's REST space (`/v1/...`): a 0.3 caller's errors there are 0.3's. */
export function isV03RestPath(path: string): boolean {
  return /^\/v1(\/|$)/i.test(path);
}

/**
 * A 0.3 route for this verb and path with its percent-decoded ids ([taskId, configId?]); undefined when none.
 * A malformed percent-encoding in an id is InvalidParams naming it.
 */
export function matchV03RestPath(verb: string, path: string): { info: V03MethodInfo; ids: string[] } | undefined {
  for (const c of COMPILED) {
    if (!(c.info.rest.verbs as readonly string[]).includes(verb)) continue;
    const m = c.regex.exec(path);
    if (m) return { info: c.info, ids: m.slice(1).map((s, i) => decoded(s, i === 0 ? 'id' : 'configId')) };
  }
  return undefined;
}

function decoded(segment: string, field: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    const description = `malformed percent-encoding in path segment "${segment}"`;
    throw A2AError.invalidParams([{ field, description }]);
  }
}

function historyLength(query: URLSearchParams): JsonObject {
  const v = query.get('historyLength') ?? query.get('history_length');
  return v !== null && /^\d+$/.test(v) ? { historyLength: Number(v) } : {};
}

/** The list's paging, in the query as the 0.3 http rule puts a GET's other fields (0.3.14 clients send none). */
function paging(query: URLSearchParams): JsonObject {
  const size = query.get('pageSize') ?? query.get('page_size');
  const token = query.get('pageToken') ?? query.get('page_token');
  return {
    ...(size !== null && /^\d+$/.test(size) ? { pageSize: Number(size) } : {}),
    ...(token ? { pageToken: token } : {}),
  };
}

/**
 * The 0.3 request message (ProtoJSON) a REST call stands for. Each id becomes one segment of a 0.3 resource name
 * ("tasks/{id}"): one holding a "/" (sent as %2F) would name another resource, and is InvalidParams naming it.
 */
export function v03RestRequest(
  method: MethodName,
  ids: string[],
  query: URLSearchParams,
  body: JsonObject,
): JsonObject {
  ids.forEach((id, i) => {
    if (id.includes('/')) {
      const description = 'an id containing "/" has no A2A 0.3 resource name';
      throw A2AError.invalidParams([{ field: i === 0 ? 'id' : 'configId', description }]);
    }
  });
  const task = `tasks/${ids[0] ?? ''}`;
  switch (method) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return body;
    case 'GetTask':
      return { name: task, ...historyLength(query) };
    case 'CreateTaskPushNotificationConfig':
      return { ...body, parent: task };
    case 'ListTaskPushNotificationConfigs':
      return { parent: task, ...paging(query) };
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return { name: `${task}/pushNotificationConfigs/${ids[1] ?? ''}` };
    case 'GetExtendedAgentCard':
      return {};
    default:
      return { name: task };
  }
}

/** The path of a call to a 0.3 upstream: ids percent-encoded; one that is or holds a dot segment is InvalidParams. */
export function v03RestPath(info: V03MethodInfo, taskId: string, configId: string): string {
  return info.rest.path
    .replace('{id}', pathSegment(taskId, 'id'))
    .replace('{configId}', pathSegment(configId, 'configId'));
}
