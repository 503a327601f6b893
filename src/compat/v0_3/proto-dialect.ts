// A2A 0.3's proto dialect — ProtoJSON of package a2a.v1 on REST, the same
// messages in binary on gRPC (a2a.v1.A2AService) — ⇄ the 1.0 messages the
// gateway routes (bridge-0.3-1.0.md §3 methods, §4 bodies, §5 objects, §6
// streams; WN §ID Format Simplification): per method, requests and responses
// both ways and StreamResponse events. Resource names "tasks/{id}" and
// "tasks/{id}/pushNotificationConfigs/{cid}" ⇄ plain ids; push configs nest
// {name, pushNotificationConfig{…, authentication{schemes[]}}} ⇄ 1.0's
// flattened config (several schemes: the first); list {configs} (a bare array
// is read too); the card through card.ts. CreateTaskPushNotificationConfig
// accepts both bodies 0.3 peers send — CreateTaskPushNotificationConfigRequest
// {parent, configId, config} (0.3.14's server, a2a-python) and the
// TaskPushNotificationConfig {name, pushNotificationConfig} its clients send —
// and sends the first (what 0.3.14's and a2a-python's servers read).
//
// `blocking` ⇄ `returnImmediately`: a missing configuration is blocking in both
// versions; so, by default, is a configuration without `blocking` (proto3 has
// no presence: `{}` on the wire is never read as returnImmediately), and only
// an explicit `"blocking": false` in ProtoJSON returns immediately. Pass
// {proto3Blocking: true} to read `blocking` as the proto3 bool instead (a
// configuration without it = false = return immediately, as 0.3.14's and
// 1.3.0's servers read it). Toward 0.3, `blocking` is written explicitly.
import type { DescMessage } from '@bufbuild/protobuf';
import { methodInfo, type AnyRequest, type AnyResponse } from '../../core/methods.js';
import { A2AError } from '../../errors/a2a-error.js';
import { StreamResponseSchema, type StreamResponse } from '../../gen/a2a_pb.js';
import {
  CreateTaskPushNotificationConfigRequestSchema as CreateV03,
  TaskPushNotificationConfigSchema as PushConfigV03,
} from '../../gen/a2a/v1/a2a_pb.js';
import { readJson, writableJson, writeJson } from '../../proto/json.js';
import { cardFromV03Proto, cardToV03Proto, v03EndpointsOf, type V03Endpoints } from './card.js';
import { bad, compact, configName, idsOfConfigName, idsOfCreate, isObject, reqObject } from './common.js';
import { taskIdOfName, taskName, writtenForV03 } from './common.js';
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
import {
  pushConfigToV1,
  sendParamsToV03,
  sendParamsToV1,
  taskPushConfigToV03,
  taskPushConfigToV1,
} from './jsonrpc-params.js';
import { resolveMethod, v03Of, type V03MethodInfo } from './methods.js';
import * as P from './proto-objects.js';

/** The 0.3 form of a method named either way (METHOD_NOT_FOUND / UNSUPPORTED_OPERATION otherwise). */
export function v03Info(method: string): V03MethodInfo {
  const m = resolveMethod(method);
  if (!m) throw A2AError.of('METHOD_NOT_FOUND', `Method not found: ${method}`);
  return v03Of(m);
}

/**
 * ProtoJSON read through a 0.3 schema and written back canonical (json names, defaults omitted, unknowns dropped).
 * What reads but does not write back (a number past a double's range in a Struct: Infinity) is a ProtoJsonError too.
 */
function norm(schema: DescMessage, json: unknown, where = '(request)'): JsonObject {
  return writableJson(schema, readJson(schema, json, where), where) as JsonObject;
}

const obj = (v: Json | undefined): JsonObject => (isObject(v) ? v : {});
const str = (v: Json | undefined): string => (typeof v === 'string' ? v : '');

export interface ProtoReadOptions {
  /** Read SendMessageConfiguration.blocking as the proto3 bool (absent = false = return immediately). */
  proto3Blocking?: boolean;
}

/** A 0.3 proto request (ProtoJSON) → the 1.0 request (tenant left empty for the route to fill). */
export function requestFromV03Proto(method: string, json: unknown, opts: ProtoReadOptions = {}): AnyRequest {
  const m = v03Info(method);
  const raw = reqObject(json, '(request)');
  let v1: JsonObject;
  switch (m.method) {
    case 'SendMessage':
    case 'SendStreamingMessage': {
      const r = norm(m.requestSchema, raw);
      const rawBlocking = obj(raw.configuration).blocking;
      const c = isObject(r.configuration) ? P.configurationFromProto(r.configuration) : undefined;
      if (c && (rawBlocking === false || (opts.proto3Blocking && c.blocking !== true))) c.blocking = false;
      v1 = sendParamsToV1(
        compact({ message: P.messageFromProto(obj(r.message), 'message'), configuration: c, metadata: r.metadata }),
        '',
      );
      break;
    }
    case 'GetTask': {
      const r = norm(m.requestSchema, raw);
      const h = typeof r.historyLength === 'number' && r.historyLength > 0 ? r.historyLength : undefined;
      v1 = compact({ id: taskIdOfName(r.name, 'name'), historyLength: h });
      break;
    }
    case 'CancelTask':
    case 'SubscribeToTask':
      v1 = { id: taskIdOfName(norm(m.requestSchema, raw).name, 'name') };
      break;
    case 'CreateTaskPushNotificationConfig':
      v1 = createFromV03(raw);
      break;
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig': {
      const { taskId, configId } = idsOfConfigName(norm(m.requestSchema, raw).name, 'name');
      v1 = { taskId, id: configId };
      break;
    }
    case 'ListTaskPushNotificationConfigs': {
      const r = norm(m.requestSchema, raw);
      v1 = compact({ taskId: taskIdOfName(r.parent, 'parent'), pageSize: r.pageSize, pageToken: r.pageToken });
      break;
    }
    default:
      v1 = {};
  }
  return readJson(methodInfo(m.method).requestSchema, v1) as AnyRequest;
}

function createFromV03(raw: JsonObject): JsonObject {
  const shaped = isObject(raw.config) || raw.configId !== undefined;
  const r = norm(shaped ? CreateV03 : PushConfigV03, raw);
  const config = shaped ? obj(r.config) : r;
  const parent = shaped ? r.parent : raw.parent;
  const pnc = config.pushNotificationConfig;
  if (!isObject(pnc)) bad(shaped ? 'config.pushNotificationConfig' : 'pushNotificationConfig', 'required');
  const { taskId, configId } = idsOfCreate(parent, config.name, shaped ? 'config.name' : 'name');
  const inner = pushConfigToV1(P.pushConfigFromProto(pnc), 'pushNotificationConfig');
  return compact({ taskId, ...inner, id: str(inner.id) || str(r.configId) || configId || undefined });
}

/** The 1.0 request → a 0.3 proto request (canonical ProtoJSON) toward a 0.3 upstream; tenant dropped. */
export function requestToV03Proto(method: string, request: AnyRequest): JsonObject {
  const m = v03Info(method);
  const r = writeJson(methodInfo(m.method).requestSchema, request) as JsonObject;
  let out: JsonObject;
  switch (m.method) {
    case 'SendMessage':
    case 'SendStreamingMessage': {
      const p = sendParamsToV03(r);
      out = compact({
        message: P.messageToProto(obj(p.message)),
        configuration: isObject(p.configuration) ? P.configurationToProto(p.configuration) : undefined,
        metadata: p.metadata,
      });
      break;
    }
    case 'GetTask':
      out = compact({ name: taskName(str(r.id)), historyLength: r.historyLength });
      break;
    case 'CancelTask':
    case 'SubscribeToTask':
      out = { name: taskName(str(r.id)) };
      break;
    case 'CreateTaskPushNotificationConfig': {
      const config = P.taskPushConfigToProto(taskPushConfigToV03(r));
      out = { parent: taskName(str(r.taskId), 'taskId'), configId: str(r.id), config };
      break;
    }
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      out = { name: configName(str(r.taskId), str(r.id)) };
      break;
    case 'ListTaskPushNotificationConfigs':
      out = compact({ parent: taskName(str(r.taskId), 'taskId'), pageSize: r.pageSize, pageToken: r.pageToken });
      break;
    default:
      out = {};
  }
  return norm(m.requestSchema, out);
}

/** The 1.0 response → the 0.3 proto response (canonical ProtoJSON) toward a 0.3 caller. */
export function responseToV03Proto(
  method: string,
  response: AnyResponse,
  opts: { endpoints?: V03Endpoints } = {},
): JsonObject {
  const m = v03Info(method);
  if (m.streaming) return eventToV03Proto(response as StreamResponse);
  return writtenForV03(`${m.method} answer`, () => responseBody(m, response, opts));
}

function responseBody(m: V03MethodInfo, response: AnyResponse, opts: { endpoints?: V03Endpoints }): JsonObject {
  const r = writeJson(methodInfo(m.method).responseSchema, response) as JsonObject;
  let out: JsonObject;
  switch (m.method) {
    case 'SendMessage':
      out = isObject(r.message)
        ? { message: P.messageToProto(messageToV03(r.message)) }
        : { task: P.taskToProto(taskToV03(obj(r.task))) };
      break;
    case 'GetTask':
    case 'CancelTask':
      out = P.taskToProto(taskToV03(r));
      break;
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      out = P.taskPushConfigToProto(taskPushConfigToV03(r));
      break;
    case 'ListTaskPushNotificationConfigs':
      out = compact({
        configs: (Array.isArray(r.configs) ? r.configs.filter(isObject) : []).map((c) =>
          P.taskPushConfigToProto(taskPushConfigToV03(c)),
        ),
        nextPageToken: r.nextPageToken,
      });
      break;
    case 'GetExtendedAgentCard': {
      const endpoints = opts.endpoints ?? v03EndpointsOf(r);
      if (!endpoints) throw A2AError.of('INVALID_AGENT_RESPONSE', 'the extended agent card lists no interface');
      return cardToV03Proto(r, endpoints);
    }
    default:
      out = {};
  }
  return norm(m.responseSchema, out, '(response)');
}

/** A 0.3 upstream's proto response (ProtoJSON) → the 1.0 response. */
export function responseFromV03Proto(method: string, json: unknown): AnyResponse {
  const m = v03Info(method);
  if (m.streaming) return eventFromV03Proto(json);
  let v1: JsonObject;
  switch (m.method) {
    case 'SendMessage': {
      const r = norm(m.responseSchema, reqObject(json, '(response)'), '(response)');
      if (isObject(r.message)) v1 = { message: messageToV1(P.messageFromProto(r.message, 'message'), 'message') };
      else if (isObject(r.task)) v1 = { task: taskToV1(P.taskFromProto(r.task, 'task'), 'task') };
      else return bad('(response)', 'expected "task" or "message"');
      break;
    }
    case 'GetTask':
    case 'CancelTask':
      v1 = taskToV1(P.taskFromProto(norm(m.responseSchema, json, '(response)'), '(response)'), '(response)');
      break;
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      v1 = taskPushConfigToV1(
        P.taskPushConfigFromProto(norm(m.responseSchema, json, '(response)'), '(response)'),
        '(response)',
        true,
      );
      break;
    case 'ListTaskPushNotificationConfigs': {
      const r: JsonObject = Array.isArray(json)
        ? { configs: json as Json[] }
        : norm(m.responseSchema, json, '(response)');
      const configs = (Array.isArray(r.configs) ? r.configs : []).map((c, i) => {
        const one = norm(PushConfigV03, c, `configs[${i}]`);
        return taskPushConfigToV1(P.taskPushConfigFromProto(one, `configs[${i}]`), `configs[${i}]`, true);
      });
      v1 = compact({ configs, nextPageToken: r.nextPageToken });
      break;
    }
    case 'GetExtendedAgentCard':
      v1 = cardFromV03Proto(reqObject(json, '(response)'));
      break;
    default:
      v1 = {};
  }
  return readJson(methodInfo(m.method).responseSchema, v1, '(response)') as AnyResponse;
}

/** A 1.0 stream event → a 0.3 StreamResponse (ProtoJSON), `final` set on terminal and interrupted states. */
export function eventToV03Proto(event: StreamResponse): JsonObject {
  return writtenForV03('stream event', () => {
    const j = writeJson(StreamResponseSchema, event) as JsonObject;
    let out: JsonObject;
    if (isObject(j.task)) out = { task: P.taskToProto(taskToV03(j.task)) };
    else if (isObject(j.message)) out = { message: P.messageToProto(messageToV03(j.message)) };
    else if (isObject(j.statusUpdate)) out = { statusUpdate: P.statusUpdateToProto(statusUpdateToV03(j.statusUpdate)) };
    else if (isObject(j.artifactUpdate))
      out = { artifactUpdate: P.artifactUpdateToProto(artifactUpdateToV03(j.artifactUpdate)) };
    else return bad('(event)', 'a 1.0 stream event with no payload has no 0.3 form');
    return norm(v03Of('SendStreamingMessage').responseSchema, out, '(event)');
  });
}

/** A 0.3 StreamResponse (ProtoJSON; `final` dropped) → the 1.0 StreamResponse. */
export function eventFromV03Proto(json: unknown): StreamResponse {
  const r = norm(v03Of('SendStreamingMessage').responseSchema, reqObject(json, '(event)'), '(event)');
  let v1: JsonObject;
  if (isObject(r.task)) v1 = { task: taskToV1(P.taskFromProto(r.task, 'task'), 'task') };
  else if (isObject(r.message)) v1 = { message: messageToV1(P.messageFromProto(r.message, 'message'), 'message') };
  else if (isObject(r.statusUpdate))
    v1 = { statusUpdate: statusUpdateToV1(P.statusUpdateFromProto(r.statusUpdate, 'statusUpdate'), 'statusUpdate') };
  else if (isObject(r.artifactUpdate))
    v1 = {
      artifactUpdate: artifactUpdateToV1(
        P.artifactUpdateFromProto(r.artifactUpdate, 'artifactUpdate'),
        'artifactUpdate',
      ),
    };
  else return bad('(event)', 'expected "task", "message", "statusUpdate" or "artifactUpdate"');
  return readJson(StreamResponseSchema, v1, '(event)');
}
