// HTTP+JSON/REST inbound (spec §11): matches the URL against a2a.proto's
// google.api.http rules (§11.3, both the plain and /{tenant}/ forms), builds
// the request from path, query (§11.5: camelCase, typed values, repeated
// names and comma lists) and body, and answers application/a2a+json or the
// google.rpc.Status error body (§11.6).
import protobuf from 'protobufjs';
import type { Binding } from '../../config/types.js';
import { requestFromJson } from '../../core/decode.js';
import { asA2AError, type Dispatcher } from '../../core/dispatcher.js';
import type { MethodInfo } from '../../core/methods.js';
import { readServiceParameters } from '../../core/service-params.js';
import { A2AError } from '../../errors/a2a-error.js';
import { errorHeaders } from '../http-error-headers.js';
import { toJson, type Json, type JsonObject } from '../../proto/protojson.js';
import { exposes } from '../../card/served-card.js';
import { tenantMatches } from '../../routing/router.js';
import { mediaType, type HttpAnswer, type HttpCall, type RouteCandidates } from '../http-request.js';
import { camel, matchRestPath } from './paths.js';
import { A2A_JSON, errorBody } from './wire.js';
import { openSse } from '../sse-answer.js';

const INBOUND: Binding = 'HTTP+JSON';
const JSON_TYPES = new Set(['application/json', 'application/a2a+json']);

export function restAnswer(status: number, body: Json): HttpAnswer {
  return { status, headers: { 'content-type': A2A_JSON }, body: JSON.stringify(body) };
}

export function restError(err: A2AError): HttpAnswer {
  const answer = restAnswer(err.row.http, errorBody(err));
  Object.assign(answer.headers, errorHeaders(err));
  return answer;
}

/** §11.5: query parameters → ProtoJSON values of the request's top-level fields. */
export function queryToJson(type: protobuf.Type, query: URLSearchParams): JsonObject {
  const out: JsonObject = {};
  for (const key of new Set(query.keys())) {
    const field = type.fields[camel(key)];
    if (!field) continue; // service parameters such as A2A-Version, unknown names
    const values = query.getAll(key);
    const rt = field.resolvedType;
    const convert = (v: string): Json => {
      if (field.type === 'bool') return v === 'true' ? true : v === 'false' ? false : v;
      if (rt instanceof protobuf.Enum && /^-?\d+$/.test(v)) return Number(v);
      return v;
    };
    if (field.repeated)
      out[field.name] = values
        .flatMap((v) => v.split(','))
        .filter((v) => v !== '')
        .map(convert);
    else out[field.name] = convert(values[values.length - 1] ?? '');
  }
  return out;
}

export class RestInbound {
  constructor(private readonly dispatcher: Dispatcher) {}

  async handle(call: HttpCall, candidates: RouteCandidates): Promise<HttpAnswer> {
    const started = process.hrtime.bigint();
    let info: MethodInfo | undefined;
    try {
      const { match } = matchRestPath(call.method, call.path);
      if (!match) throw A2AError.of('METHOD_NOT_FOUND', `no A2A operation at ${call.method} ${call.path || '/'}`);
      info = match.route.method;
      const json = this.requestJson(call, info, match.params, candidates[0]?.maxBodyBytes ?? Infinity);
      const serviceParameters = readServiceParameters(
        call.header,
        candidates[0]?.forwardHeaders ?? [],
        call.query.get('A2A-Version') ?? undefined,
      );
      const request = requestFromJson(info, json);
      const tenant = match.params.tenant ?? '';
      const route = candidates.find((c) => tenantMatches(c, tenant) && exposes(c, INBOUND));
      if (!route) throw A2AError.of('NO_ROUTE', `no route for tenant "${tenant}" here`);
      const env = { method: info.name, serviceParameters, tenant, request };
      const ctx = { route, inbound: INBOUND, requestId: call.requestId, signal: call.signal, view: call.view };
      if (info.streaming) {
        const type = info.responseType;
        const opened = await openSse(
          this.dispatcher.stream(env, ctx),
          (event) => ({ data: JSON.stringify(toJson(type, event)) }),
          (err) => ({ event: 'error', data: JSON.stringify(errorBody(err)) }),
          route.sseKeepAliveMs,
        );
        return opened.ok ? opened.answer : restError(opened.error);
      }
      const reply = await this.dispatcher.unary(env, ctx);
      return reply.ok ? restAnswer(200, toJson(info.responseType, reply.response)) : restError(reply.error);
    } catch (e) {
      const err = asA2AError(e);
      this.dispatcher.logCall(
        info?.name ?? '-',
        { inbound: INBOUND, requestId: call.requestId, route: candidates[0] },
        undefined,
        { ok: false, error: err },
        started,
      );
      return restError(err);
    }
  }

  private requestJson(call: HttpCall, info: MethodInfo, params: Record<string, string>, limit: number): JsonObject {
    const rule = info.httpRules.find((r) => r.verb === call.method);
    let json: JsonObject = {};
    const body = call.body ?? Buffer.alloc(0);
    if (rule?.body !== undefined && body.length > 0) {
      if (!JSON_TYPES.has(mediaType(call.header('content-type')))) {
        throw A2AError.of('UNSUPPORTED_MEDIA_TYPE', 'request bodies must be application/a2a+json or application/json');
      }
      if (body.length > limit)
        throw A2AError.of('PAYLOAD_TOO_LARGE', `request body exceeds the route's limit of ${limit} bytes`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch (e) {
        throw A2AError.of('PARSE_ERROR', `Invalid JSON payload: ${(e as Error).message}`);
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        throw A2AError.invalidParams([
          { field: 'body', description: `expected a JSON object (${info.requestType.name})` },
        ]);
      }
      json = parsed as JsonObject;
    } else if (rule?.body === undefined) {
      json = queryToJson(info.requestType, call.query);
    }
    return { ...json, ...params };
  }
}
