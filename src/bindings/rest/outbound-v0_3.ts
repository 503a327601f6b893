// The REST upstream client toward an A2A 0.3 agent (bridge §3–§7): the 1.0
// client (outbound.ts) in the 0.3 dialect — the `/v1/...` paths @a2a-js/sdk
// 0.3.14 servers accept, ProtoJSON of the 0.3 proto for bodies and answers
// (any 2xx: 0.3 answers 201, 202, 204), 0.3 stream events, and
// `{code, message, data}` error bodies read into the catalogue. ListTasks,
// which 0.3 lacks, is UnsupportedOperation before anything is sent.
import { create } from '@bufbuild/protobuf';
import { restErrorFromV03 } from '../../compat/v0_3/errors.js';
import { v03Of } from '../../compat/v0_3/methods.js';
import { eventFromV03Proto, requestToV03Proto, responseFromV03Proto } from '../../compat/v0_3/proto-dialect.js';
import { requestOf } from '../../core/envelope.js';
import type { AnyResponse } from '../../core/methods.js';
import { isObject } from '../../proto/json.js';
import type { RestDialect } from './outbound.js';
import { v03RestPath } from './paths-v0_3.js';

/** The task and push-config ids a 1.0 request names (for the 0.3 path). */
function idsOf(request: Record<string, unknown>): { task: string; config: string } {
  const s = (v: unknown): string => (typeof v === 'string' ? v : '');
  return { task: s(request.taskId) || s(request.id), config: request.taskId ? s(request.id) : '' };
}

const WITH_BODY = new Set(['SendMessage', 'SendStreamingMessage', 'CreateTaskPushNotificationConfig']);

export const REST_V03: RestDialect = {
  contentType: 'application/json',
  request(env, info) {
    const v03 = v03Of(info.name);
    const request = requestOf(env) as unknown as Record<string, unknown>;
    const { task, config } = idsOf(request);
    const json = requestToV03Proto(info.name, requestOf(env));
    let path = v03RestPath(v03, task, config);
    if (info.name === 'GetTask' && typeof json.historyLength === 'number')
      path += `?historyLength=${json.historyLength}`;
    const verb = v03.rest.verbs.includes('POST') && v03.rest.verbs.length > 1 ? 'POST' : v03.rest.verbs[0]!;
    const body = info.name === 'CreateTaskPushNotificationConfig' && isObject(json.config) ? json : json;
    return { verb, path, ...(WITH_BODY.has(info.name) ? { body: JSON.stringify(body) } : {}) };
  },
  answer: (info, json, strings) =>
    json === undefined
      ? (create(info.responseSchema) as AnyResponse)
      : responseFromV03Proto(info.name, strings.materialize(json)),
  error: (_info, status, json) => restErrorFromV03(status, json),
  event(_info, name, parsed, strings) {
    const json = strings.materialize(parsed);
    if (name === 'error' || (isObject(json) && typeof json.code === 'number' && typeof json.message === 'string')) {
      throw restErrorFromV03(500, json);
    }
    return eventFromV03Proto(json);
  },
};
