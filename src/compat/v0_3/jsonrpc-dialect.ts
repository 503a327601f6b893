// A2A 0.3's JSON-RPC dialect ⇄ the 1.0 messages the gateway routes
// (bridge-0.3-1.0.md §3 methods, §4 bodies, §6 streams, §7 errors): per
// method, a 0.3 caller's `params` → the 1.0 request and the 1.0 response →
// its 0.3 `result`; and toward a 0.3 upstream, the 1.0 request → 0.3 `params`
// and its `result` → the 1.0 response. Results: send answers the bare
// Task/Message with `kind` (1.0: {task}/{message}); push-config list answers a
// bare array (1.0: {configs}); delete answers null (1.0: {}); the extended
// card answers the 0.3 card. Stream events carry `kind` and, toward 0.3,
// `final: true` on terminal and interrupted states. Methods are named either
// way: a 1.0 MethodName or a 0.3 JSON-RPC name. Untrusted 0.3 input that does
// not fit throws a ProtoJsonError (the caller answers InvalidParams, or
// InvalidAgentResponse for an upstream's answer); a 1.0 answer with no 0.3
// form (a part without content) is INVALID_AGENT_RESPONSE; ListTasks has no
// 0.3 form (UNSUPPORTED_OPERATION). 0.3 has no paging: list answers the
// agent's first page (docs/bridge.md).
import { methodInfo, type AnyRequest, type AnyResponse, type MethodName } from '../../core/methods.js';
import { A2AError } from '../../errors/a2a-error.js';
import { StreamResponseSchema, type StreamResponse } from '../../gen/a2a_pb.js';
import { readJson, writeJson } from '../../proto/json.js';
import { cardFromV03, cardToV03, v03EndpointsOf, type V03Endpoints } from './card.js';
import {
  bad,
  compact,
  isObject,
  optInt,
  optObject,
  optString,
  reqArray,
  reqObject,
  reqString,
  writtenForV03,
} from './common.js';
import type { Json, JsonObject } from './common.js';
import {
  artifactUpdateToV03,
  artifactUpdateToV1,
  messageToV03,
  messageToV1,
  statusUpdateToV03,
  statusUpdateToV1,
  taskToV03,
  taskToV1,
} from './jsonrpc-objects.js';
import { sendParamsToV03, sendParamsToV1, taskPushConfigToV03, taskPushConfigToV1 } from './jsonrpc-params.js';
import { resolveMethod, v03Of } from './methods.js';

export { errorFromV03, errorToV03 } from './errors.js';

function method1(method: string): MethodName {
  const m = resolveMethod(method);
  if (!m) throw A2AError.of('METHOD_NOT_FOUND', `Method not found: ${method}`);
  v03Of(m); // UNSUPPORTED_OPERATION for a 1.0-only method
  return m;
}

function readRequest(m: MethodName, json: JsonObject): AnyRequest {
  return readJson(methodInfo(m).requestSchema, json) as AnyRequest;
}

function readResponse(m: MethodName, json: JsonObject): AnyResponse {
  return readJson(methodInfo(m).responseSchema, json, '(result)') as AnyResponse;
}

function json1(schema: 'request' | 'response', m: MethodName, msg: AnyRequest | AnyResponse): JsonObject {
  const info = methodInfo(m);
  return writeJson(schema === 'request' ? info.requestSchema : info.responseSchema, msg) as JsonObject;
}

/** A 0.3 caller's `params` → the 1.0 request of the method (tenant left empty for the route to fill). */
export function requestFromV03(method: string, params: unknown): AnyRequest {
  const m = method1(method);
  const p = m === 'GetExtendedAgentCard' ? {} : reqObject(params, '(params)');
  let json: JsonObject;
  switch (m) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      json = sendParamsToV1(p, '');
      break;
    case 'GetTask':
      json = compact({ id: reqString(p.id, 'id'), historyLength: optInt(p.historyLength, 'historyLength') });
      break;
    case 'CancelTask':
      json = compact({ id: reqString(p.id, 'id'), metadata: optObject(p.metadata, 'metadata') });
      break;
    case 'SubscribeToTask':
      json = { id: reqString(p.id, 'id') };
      break;
    case 'CreateTaskPushNotificationConfig':
      json = taskPushConfigToV1(p, '');
      break;
    case 'GetTaskPushNotificationConfig': {
      // 0.3 may omit the config id: its default config has the task's id (a2a-js 0.3.14)
      const taskId = reqString(p.id, 'id');
      json = { taskId, id: optString(p.pushNotificationConfigId, 'pushNotificationConfigId') || taskId };
      break;
    }
    case 'ListTaskPushNotificationConfigs':
      json = { taskId: reqString(p.id, 'id') };
      break;
    case 'DeleteTaskPushNotificationConfig':
      json = { taskId: reqString(p.id, 'id'), id: reqString(p.pushNotificationConfigId, 'pushNotificationConfigId') };
      break;
    default:
      json = {};
  }
  return readRequest(m, json);
}

/** The 1.0 request → 0.3 `params` toward a 0.3 upstream (undefined: send no params). Tenant is dropped. */
export function requestToV03(method: string, request: AnyRequest): JsonObject | undefined {
  const m = method1(method);
  const r = json1('request', m, request);
  const s = (v: Json | undefined): string => (typeof v === 'string' ? v : '');
  switch (m) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return sendParamsToV03(r);
    case 'GetTask':
      return compact({ id: s(r.id), historyLength: typeof r.historyLength === 'number' ? r.historyLength : undefined });
    case 'CancelTask':
      return compact({ id: s(r.id), metadata: isObject(r.metadata) ? r.metadata : undefined });
    case 'SubscribeToTask':
      return { id: s(r.id) };
    case 'CreateTaskPushNotificationConfig':
      return taskPushConfigToV03(r);
    case 'GetTaskPushNotificationConfig':
      return compact({ id: s(r.taskId), pushNotificationConfigId: s(r.id) || undefined });
    case 'ListTaskPushNotificationConfigs':
      return { id: s(r.taskId) };
    case 'DeleteTaskPushNotificationConfig':
      return { id: s(r.taskId), pushNotificationConfigId: s(r.id) };
    default:
      return undefined;
  }
}

/**
 * The 1.0 response → the 0.3 `result` toward a 0.3 caller. The extended card
 * names `opts.endpoints`, else the 0.x (or first) interface per binding of the
 * card's own supportedInterfaces — rewrite those to the gateway first.
 */
export function resultToV03(method: string, response: AnyResponse, opts: { endpoints?: V03Endpoints } = {}): Json {
  const m = method1(method);
  if (m === 'SendStreamingMessage' || m === 'SubscribeToTask') return eventToV03(response as StreamResponse);
  return writtenForV03(`${m} answer`, () => resultOf(m, response, opts));
}

function resultOf(m: MethodName, response: AnyResponse, opts: { endpoints?: V03Endpoints }): Json {
  const r = json1('response', m, response);
  switch (m) {
    case 'SendMessage':
      return isObject(r.message) ? messageToV03(r.message) : taskToV03(isObject(r.task) ? r.task : {});
    case 'GetTask':
    case 'CancelTask':
      return taskToV03(r);
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return taskPushConfigToV03(r);
    case 'ListTaskPushNotificationConfigs':
      return (Array.isArray(r.configs) ? r.configs.filter(isObject) : []).map(taskPushConfigToV03);
    case 'GetExtendedAgentCard': {
      const endpoints = opts.endpoints ?? v03EndpointsOf(r);
      if (!endpoints) throw A2AError.of('INVALID_AGENT_RESPONSE', 'the extended agent card lists no interface');
      return cardToV03(r, endpoints);
    }
    default:
      return null; // DeleteTaskPushNotificationConfig
  }
}

/** A 0.3 upstream's `result` → the 1.0 response. */
export function resultFromV03(method: string, result: unknown): AnyResponse {
  const m = method1(method);
  if (m === 'SendStreamingMessage' || m === 'SubscribeToTask') return eventFromV03(result);
  let json: JsonObject;
  switch (m) {
    case 'SendMessage': {
      const r = reqObject(result, '(result)');
      json = isMessage(r) ? { message: messageToV1(r, '(result)') } : { task: taskToV1(r, '(result)') };
      break;
    }
    case 'GetTask':
    case 'CancelTask':
      json = taskToV1(result, '(result)');
      break;
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      json = taskPushConfigToV1(result, '(result)', true);
      break;
    case 'ListTaskPushNotificationConfigs':
      json = {
        configs: reqArray(result, '(result)').map((c, i) => taskPushConfigToV1(c, `(result)[${i}]`, true)),
      };
      break;
    case 'GetExtendedAgentCard':
      json = cardFromV03(reqObject(result, '(result)'));
      break;
    default:
      json = {};
  }
  return readResponse(m, json);
}

function isMessage(o: JsonObject): boolean {
  return o.kind === 'message' || (o.kind === undefined && typeof o.messageId === 'string' && o.status === undefined);
}

/** A 1.0 stream event → the `result` of a 0.3 JSON-RPC SSE frame (also the 0.3 push-notification body). */
export function eventToV03(event: StreamResponse): JsonObject {
  return writtenForV03('stream event', () => {
    const j = writeJson(StreamResponseSchema, event) as JsonObject;
    if (isObject(j.task)) return taskToV03(j.task);
    if (isObject(j.message)) return messageToV03(j.message);
    if (isObject(j.statusUpdate)) return statusUpdateToV03(j.statusUpdate);
    if (isObject(j.artifactUpdate)) return artifactUpdateToV03(j.artifactUpdate);
    return bad('(event)', 'a 1.0 stream event with no payload has no 0.3 form');
  });
}

/** A 0.3 stream event (`kind`-discriminated; `final` dropped) → 1.0 StreamResponse. */
export function eventFromV03(json: unknown): StreamResponse {
  const e = reqObject(json, '(result)');
  const kind =
    typeof e.kind === 'string'
      ? e.kind
      : isObject(e.artifact)
        ? 'artifact-update'
        : typeof e.taskId === 'string' && isObject(e.status)
          ? 'status-update'
          : isMessage(e)
            ? 'message'
            : 'task';
  switch (kind) {
    case 'task':
      return readJson(StreamResponseSchema, { task: taskToV1(e, '(result)') }, '(result)');
    case 'message':
      return readJson(StreamResponseSchema, { message: messageToV1(e, '(result)') }, '(result)');
    case 'status-update':
      return readJson(StreamResponseSchema, { statusUpdate: statusUpdateToV1(e, '(result)') }, '(result)');
    case 'artifact-update':
      return readJson(StreamResponseSchema, { artifactUpdate: artifactUpdateToV1(e, '(result)') }, '(result)');
    default:
      return bad('(result).kind', `unknown event kind "${kind}"`);
  }
}
