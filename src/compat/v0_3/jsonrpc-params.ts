// A2A 0.3 JSON-RPC push-notification configs and message/send params ⇄ 1.0
// ProtoJSON (bridge-0.3-1.0.md §4; WN §Push Notification Operations "flattened",
// §Execution Mode Control): 0.3 {taskId, pushNotificationConfig{id, url, token,
// authentication{schemes[], credentials}}} ⇄ 1.0 {taskId, id, url, token,
// authentication{scheme, credentials}} (several 0.3 schemes keep the first, as
// @a2a-js/sdk 1.3.0 does); configuration.pushNotificationConfig ⇄
// taskPushNotificationConfig; blocking ⇄ returnImmediately.
import {
  bad,
  compact,
  isObject,
  nonEmpty,
  nonEmptyList,
  optBool,
  optInt,
  optObject,
  optString,
  optStrings,
  reqObject,
  reqString,
  type JsonObject,
  at,
} from './common.js';
import { messageToV03, messageToV1 } from './jsonrpc-objects.js';

// --- push-notification configs (§4, WN §Push Notification Operations) ------

/**
 * 0.3 PushNotificationConfig {id?, url, token?, authentication?{schemes[], credentials?}} → 1.0 flattened fields.
 * 1.0 has one scheme: several 0.3 schemes keep the first (as @a2a-js/sdk 1.3.0 does). 0.3 may list none (its
 * schema requires only the list): with no credentials either the block says nothing and is left out; credentials
 * without a scheme are refused naming `schemes` in a request (1.0 sends them as `Authorization: {scheme}
 * {credentials}`: dropped, the agent's calls would fail at the webhook), kept as they are in an agent's `answer`.
 */
export function pushConfigToV1(v: unknown, field: string, answer = false): JsonObject {
  const c = reqObject(v, field);
  const auth = optObject(c.authentication, at(field, 'authentication'));
  const schemes = optStrings(auth?.schemes, at(field, 'authentication.schemes')) ?? [];
  const credentials = nonEmpty(optString(auth?.credentials, at(field, 'authentication.credentials')));
  const scheme = nonEmpty(schemes[0]);
  if (credentials !== undefined && scheme === undefined && !answer) {
    bad(
      at(field, 'authentication.schemes'),
      'credentials need a scheme (A2A 1.0 sends "Authorization: {scheme} {credentials}")',
    );
  }
  return compact({
    id: optString(c.id, at(field, 'id')),
    url: reqString(c.url, at(field, 'url')),
    token: optString(c.token, at(field, 'token')),
    authentication: scheme || credentials ? compact({ scheme, credentials }) : undefined,
  });
}

export function pushConfigToV03(c: JsonObject): JsonObject {
  const auth = isObject(c.authentication) ? c.authentication : undefined;
  return compact({
    id: nonEmpty(c.id),
    url: typeof c.url === 'string' ? c.url : '',
    token: nonEmpty(c.token),
    authentication: auth
      ? compact({ schemes: nonEmpty(auth.scheme) ? [auth.scheme!] : [], credentials: nonEmpty(auth.credentials) })
      : undefined,
  });
}

/** 0.3 TaskPushNotificationConfig {taskId, pushNotificationConfig} → 1.0 TaskPushNotificationConfig. */
export function taskPushConfigToV1(v: unknown, field: string, answer = false): JsonObject {
  const c = reqObject(v, field);
  return {
    taskId: reqString(c.taskId, at(field, 'taskId')),
    ...pushConfigToV1(c.pushNotificationConfig, at(field, 'pushNotificationConfig'), answer),
  };
}

export function taskPushConfigToV03(c: JsonObject): JsonObject {
  return { taskId: typeof c.taskId === 'string' ? c.taskId : '', pushNotificationConfig: pushConfigToV03(c) };
}

// --- message/send params (§4) ------------------------------------------------

/**
 * 0.3 MessageSendParams → 1.0 SendMessageRequest JSON. `blocking` absent
 * means blocking in both versions (a2a-js 0.3.14 `blocking !== false`, spec
 * §3.2.2), so only an explicit `blocking: false` sets returnImmediately.
 */
export function sendParamsToV1(v: unknown, field: string): JsonObject {
  const p = reqObject(v, field);
  const c = optObject(p.configuration, at(field, 'configuration'));
  const configuration = c
    ? compact({
        acceptedOutputModes: optStrings(c.acceptedOutputModes, at(field, 'configuration.acceptedOutputModes')),
        historyLength: optInt(c.historyLength, at(field, 'configuration.historyLength')),
        taskPushNotificationConfig:
          c.pushNotificationConfig === undefined || c.pushNotificationConfig === null
            ? undefined
            : pushConfigToV1(c.pushNotificationConfig, at(field, 'configuration.pushNotificationConfig')),
        returnImmediately: optBool(c.blocking, at(field, 'configuration.blocking')) === false ? true : undefined,
      })
    : undefined;
  return compact({
    message: messageToV1(p.message, at(field, 'message')),
    configuration,
    metadata: optObject(p.metadata, at(field, 'metadata')),
  });
}

export function sendParamsToV03(r: JsonObject): JsonObject {
  const c = isObject(r.configuration) ? r.configuration : undefined;
  const configuration = c
    ? compact({
        acceptedOutputModes: nonEmptyList(c.acceptedOutputModes as string[] | undefined),
        historyLength: typeof c.historyLength === 'number' ? c.historyLength : undefined,
        pushNotificationConfig: isObject(c.taskPushNotificationConfig)
          ? pushConfigToV03(c.taskPushNotificationConfig)
          : undefined,
        blocking: c.returnImmediately !== true,
      })
    : undefined;
  return compact({
    message: messageToV03(isObject(r.message) ? r.message : {}),
    configuration,
    metadata: isObject(r.metadata) ? r.metadata : undefined,
  });
}
