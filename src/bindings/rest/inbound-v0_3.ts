// HTTP+JSON/REST inbound for A2A 0.3 callers (bridge §1, §3, §6, §7): a
// `/v1/...` path from a caller that sends no A2A-Version (or 0.3) is read as
// the 0.3 operation @a2a-js/sdk 0.3.14 clients send (ProtoJSON of the 0.3
// proto, package a2a.v1), turned into the same 1.0 envelope by the bridge
// (compat/v0_3), and answered in 0.3's form: the 0.3 response message with
// the status a 0.3 server uses, 0.3 stream events, and `{code, message,
// data}` error bodies with 0.3's HTTP statuses. A body that is not JSON by
// its Content-Type is ContentTypeNotSupported, as on 1.0 REST.
import { eventToV03Proto, requestFromV03Proto, responseToV03Proto } from '../../compat/v0_3/proto-dialect.js';
import { restErrorToV03 } from '../../compat/v0_3/errors.js';
import type { V03MethodInfo } from '../../compat/v0_3/methods.js';
import { methodInfo } from '../../core/methods.js';
import { A2AError } from '../../errors/a2a-error.js';
import { errorHeaders } from '../../http/error-headers.js';
import { parseJsonBody } from '../../http/json-body.js';
import { mediaType, relayedAnswer, type HttpAnswer, type HttpCall } from '../../http/request.js';
import { openSse } from '../../http/sse-answer.js';
import type { Answer, AnswerWriter, InboundRequest } from '../../pipeline/call.js';
import { isObject, ProtoJsonError, type JsonObject } from '../../proto/json.js';
import { matchV03RestPath, v03RestRequest } from './paths-v0_3.js';

const JSON_HEADERS = { 'content-type': 'application/json' };
/** The request bodies read (as the 1.0 REST inbound reads them); another is ContentTypeNotSupported. */
const JSON_TYPES = new Set(['application/json', 'application/a2a+json']);

/** The 0.3 operation at this path, with how to read its request; undefined when the path is none. */
export function v03Operation(
  http: HttpCall,
): { info: V03MethodInfo; request: Omit<InboundRequest, 'relay'> } | undefined {
  const match = matchV03RestPath(http.method, http.path);
  if (!match) return undefined;
  const { info, ids } = match;
  return {
    info,
    request: {
      size: http.body?.length ?? 0,
      decode: () => {
        let body: JsonObject = {};
        if (
          http.body &&
          http.body.length > 0 &&
          (info.method === 'SendMessage' ||
            info.method === 'SendStreamingMessage' ||
            info.method === 'CreateTaskPushNotificationConfig')
        ) {
          // as the 1.0 REST inbound reads bodies (0.3 clients send application/json)
          if (!JSON_TYPES.has(mediaType(http.header('content-type')))) {
            throw A2AError.of('CONTENT_TYPE_NOT_SUPPORTED', 'request bodies must be application/json');
          }
          const parsed = parseJsonBody(http.body);
          if (!isObject(parsed)) {
            throw A2AError.invalidParams([{ field: 'body', description: 'expected a JSON object' }]);
          }
          body = parsed;
        }
        try {
          // proto3 drops `blocking: false`: an absent `blocking` is how 0.3 proto clients ask to return at once
          return requestFromV03Proto(info.method, v03RestRequest(info.method, ids, http.query, body), {
            proto3Blocking: true,
          });
        } catch (e) {
          if (e instanceof ProtoJsonError) throw A2AError.invalidParams(e.violations);
          throw e;
        }
      },
    },
  };
}

/** A 0.3 answer or stream event in 0.3's ProtoJSON form (bridge §3), written by the pipeline. */
export const V03_WRITER: AnswerWriter<JsonObject> = {
  unary: (response, info) => responseToV03Proto(info.name, response),
  event: (event) => eventToV03Proto(event),
};

export function v03Error(err: A2AError): HttpAnswer {
  const { status, body } = restErrorToV03(err);
  return { status, headers: { ...JSON_HEADERS, ...errorHeaders(err) }, body: JSON.stringify(body) };
}

/** The pipeline's answer in 0.3's REST form. */
export async function v03Answer(
  info: V03MethodInfo,
  result: Answer<JsonObject>,
  keepAliveMs: number,
): Promise<HttpAnswer> {
  switch (result.kind) {
    case 'written':
      if (info.rest.status === 204) return { status: 204, headers: {} };
      return { status: info.rest.status, headers: JSON_HEADERS, body: JSON.stringify(result.value) };
    case 'relayHttp':
      return relayedAnswer(result);
    case 'writtenStream': {
      const opened = await openSse(
        result.events,
        (event) => ({ data: JSON.stringify(event) }),
        (err) => ({ event: 'error', data: JSON.stringify(restErrorToV03(err).body) }),
        keepAliveMs,
        result.quietMs,
      );
      return opened.ok ? opened.answer : v03Error(opened.error);
    }
    default:
      throw new Error(`unexpected ${result.kind} answer to ${methodInfo(info.method).name}`);
  }
}
