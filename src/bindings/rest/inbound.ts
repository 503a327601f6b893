// HTTP+JSON/REST inbound (spec §11): matches the URL against a2a.proto's
// google.api.http rules (§11.3, both the plain and /{tenant}/ forms) — the
// method and the tenant come from the path, so the pipeline picks the route
// and authenticates before the body is read — and hands the call to the
// pipeline, whose decode stage builds the request from path, query (§11.5:
// camelCase, typed values, repeated names and comma lists) and body. Answers
// are application/a2a+json or the google.rpc.Status error body (§11.6); a
// pass-through route gets the call as it came (A2A operations only), once the
// decode stage has checked the tenants its query and JSON body name. Long
// strings of the body (a large `raw` part) are read apart (http/json-body.ts).
// A 0.3 caller (no A2A-Version, or 0.x) on a `/v1/...` path is a 0.3 call
// (inbound-v0_3.ts), and its refusals there are 0.3's `{code, message}`.
import type { DescMessage } from '@bufbuild/protobuf';
import type { RouteConfig } from '../../config/types.js';
import { methodInfo, type AnyRequest, type MethodInfo } from '../../core/methods.js';
import { A2AError, asA2AError } from '../../errors/a2a-error.js';
import { speaksV03 } from '../../core/service-params.js';
import { errorHeaders } from '../../http/error-headers.js';
import { readJsonBody } from '../../http/json-body.js';
import { mediaType, rejectedInfo, relayedAnswer, type HttpAnswer, type HttpCall } from '../../http/request.js';
import { openSse } from '../../http/sse-answer.js';
import { caseFoldedValues, topLevelValues } from '../../http/top-level-keys.js';
import type { Answer, AnswerWriter, Call, RelayTarget } from '../../pipeline/call.js';
import { V03_WRITER, v03Answer, v03Error, v03Operation } from './inbound-v0_3.js';
import type { Pipeline } from '../../pipeline/pipeline.js';
import { isObject, ProtoJsonError, type Json, type JsonObject } from '../../proto/json.js';
import { NO_LONG_STRINGS, type LongStrings } from '../../proto/json-in.js';
import { outboundJson, type JsonBody, type OutboundJson } from '../../proto/json-out.js';
import type { Generation } from '../../routing/generation.js';
import { forwardHttp, upstreamUrl } from '../../upstream/http-forward.js';
import { camel, matchRestPath } from './paths.js';
import { isV03RestPath } from './paths-v0_3.js';
import { A2A_JSON, errorBody } from './wire.js';

const JSON_TYPES = new Set(['application/json', 'application/a2a+json']);

/** A 1.0 answer or stream event as ProtoJSON (a large raw part written as pieces), written by the pipeline. */
const WRITER: AnswerWriter<OutboundJson> = {
  unary: (response, info) => outboundJson(info.responseSchema, response),
  event: (event, info) => outboundJson(info.responseSchema, event),
};

/** `write`: the body's text (outboundJson writes a large raw part as pieces made as they are sent). */
export function restAnswer(status: number, body: Json, write: (body: Json) => JsonBody = JSON.stringify): HttpAnswer {
  return { status, headers: { 'content-type': A2A_JSON }, body: write(body) };
}

export function restError(err: A2AError): HttpAnswer {
  const answer = restAnswer(err.row.http, errorBody(err));
  Object.assign(answer.headers, errorHeaders(err));
  return answer;
}

/** §11.5: query parameters → ProtoJSON values of the request's top-level fields. */
export function queryToJson(schema: DescMessage, query: URLSearchParams): JsonObject {
  const out: JsonObject = {};
  for (const key of new Set(query.keys())) {
    const name = camel(key);
    const field = schema.fields.find((f) => f.jsonName === name);
    if (!field) continue; // service parameters such as A2A-Version, unknown names
    const values = query.getAll(key);
    const kind = field.fieldKind === 'list' ? field.listKind : field.fieldKind;
    const convert = (v: string): Json => {
      if (kind === 'scalar' && field.scalar === 8 /* BOOL */) return v === 'true' ? true : v === 'false' ? false : v;
      if (kind === 'enum' && /^-?\d+$/.test(v)) return Number(v);
      return v;
    };
    if (field.fieldKind === 'list') {
      out[field.jsonName] = values
        .flatMap((v) => v.split(','))
        .filter((v) => v !== '')
        .map(convert);
    } else out[field.jsonName] = convert(values[values.length - 1] ?? '');
  }
  return out;
}

/**
 * The request as ProtoJSON: the body (or, without a body rule, the query) with the path's fields, and the body's
 * long strings (http/json-body.ts) that `strings` reads.
 */
function requestJson(
  http: HttpCall,
  info: MethodInfo,
  params: Record<string, string>,
): { json: JsonObject; strings: LongStrings } {
  const rule = info.httpRules.find((r) => r.verb === http.method);
  let json: JsonObject = {};
  let strings = NO_LONG_STRINGS;
  const body = http.body ?? Buffer.alloc(0);
  if (rule?.body !== undefined && body.length > 0) {
    if (!JSON_TYPES.has(mediaType(http.header('content-type')))) {
      throw A2AError.of(
        'CONTENT_TYPE_NOT_SUPPORTED',
        'request bodies must be application/a2a+json or application/json',
      );
    }
    const read = readJsonBody(body);
    const parsed = read.value;
    strings = read.strings;
    if (!isObject(parsed)) {
      throw A2AError.invalidParams([
        { field: 'body', description: `expected a JSON object (${info.requestSchema.name})` },
      ]);
    }
    json = parsed;
  } else if (rule?.body === undefined) {
    json = queryToJson(info.requestSchema, http.query);
  }
  return { json: { ...json, ...params }, strings };
}

/** Whether a body topLevelValues cannot read may still name a tenant: the word in any case, an escape, a NUL byte. */
const mayNameTenant = (body: Buffer): boolean => /tenant|\\u|\0/i.test(body.toString('latin1'));

/**
 * The tenants a pass-through's query and JSON body name, as they came (the decode stage checks them against the
 * routed one): every `tenant` key in any case, as an agent's parser may read it (Go's encoding/json ignores case).
 * The body is read by its top-level keys only (no parse of the rest). A body that is no JSON object by that reading
 * and could still name one (the word in any case, an escape, UTF-16) is read by the translated path's parser, whose
 * refusal is answered: a laxer parser at the agent could find a tenant in it.
 */
function namedTenants(http: HttpCall): unknown[] {
  const named: unknown[] = [];
  for (const [k, v] of http.query) if (k.length === 6 && k.toLowerCase() === 'tenant') named.push(v);
  const body = http.body;
  if (body === undefined || body.length === 0) return named;
  const found = topLevelValues(body, 'tenant');
  if (found) return named.concat(found);
  if (!mayNameTenant(body)) return named;
  const { value, strings } = readJsonBody(body);
  if (isObject(value)) for (const v of caseFoldedValues(value, 'tenant')) named.push(strings.materialize(v));
  return named;
}

/** A raw query string without the parameters named `name` (as URLSearchParams reads names); the others as they came. */
function withoutParameter(raw: string, name: string): string {
  return raw
    .split('&')
    .filter((part) => new URLSearchParams(part).keys().next().value !== name)
    .join('&');
}

/** Pass-through: the call as it came (an A2A operation's path below the prefix) to the route's REST base. */
function relayRest(http: HttpCall, target: RelayTarget): Promise<Answer> {
  const base = upstreamUrl(target).pathname.replace(/\/+$/, '');
  // the query as it came, but for the route's API key when the agent must not see it
  const apiKey = target.route.auth?.apiKey;
  const strip = apiKey?.location === 'query' && target.route.upstream.credentials.mode !== 'forward';
  const qs = strip && http.query.has(apiKey.name) ? withoutParameter(http.rawQuery, apiKey.name) : http.rawQuery;
  const passed: Record<string, string> = {};
  for (const h of ['content-type', 'accept']) {
    const v = http.header(h);
    if (v !== undefined) passed[h] = v;
  }
  return forwardHttp(target, {
    method: http.method,
    path: `${base}${http.path}${qs ? `?${qs}` : ''}`,
    body: http.body,
    passed,
  });
}

export class RestInbound {
  constructor(private readonly pipeline: Pipeline) {}

  /**
   * A REST call, whatever its version, built as one literal in the JSON-RPC inbound's property order: built as a
   * spread of a common head, it cost 22–34 µs more per call (A/B on the same agents), spent in the stages that read it.
   */
  private call<W>(
    http: HttpCall,
    candidates: readonly RouteConfig[],
    generation: Generation,
    started: bigint,
    method: Call['method'],
    dialect: Call['dialect'],
    tenant: string,
    request: Call['request'],
    writer: AnswerWriter<W>,
  ): Call<W> {
    return {
      inbound: 'HTTP+JSON',
      requestId: http.requestId,
      signal: http.signal,
      view: http.view,
      wire: http.wire,
      started,
      generation,
      candidates,
      method,
      dialect,
      tenant,
      request,
      writer,
    };
  }

  async handle(http: HttpCall, candidates: readonly RouteConfig[], generation: Generation): Promise<HttpAnswer> {
    const started = process.hrtime.bigint();
    const relay = (target: RelayTarget): Promise<Answer> => relayRest(http, target);
    // a `/v1/...` call of a 0.3 caller is the 0.3 operation (bridge §1); with A2A-Version 1.x, `v1` is a tenant
    const v03Caller = speaksV03(http.header, http.query.get('A2A-Version'));
    let v03: ReturnType<typeof v03Operation>;
    try {
      v03 = v03Caller ? v03Operation(http) : undefined;
    } catch (e) {
      const err = asA2AError(e); // a 0.3 path whose ids are malformed
      this.pipeline.rejected(rejectedInfo(http, 'HTTP+JSON', started), err);
      return v03Error(err);
    }
    if (v03) {
      const request = { ...v03.request, relay };
      const info = methodInfo(v03.info.method);
      const call = this.call(http, candidates, generation, started, info, '0.3', '', request, V03_WRITER);
      try {
        return await v03Answer(v03.info, await this.pipeline.run(call), call.route?.sseKeepAliveMs ?? 0);
      } catch (e) {
        return v03Error(asA2AError(e));
      }
    }
    // a 0.3 caller's `/v1/...` path that is no 0.3 operation (none, or a 1.0 one with `v1` as its tenant, which
    // needs A2A-Version 1.x): refused in 0.3's form, as a 0.3 agent would refuse it
    const refused = (err: A2AError): HttpAnswer =>
      v03Caller && isV03RestPath(http.path) ? v03Error(err) : restError(err);
    let call: Call<OutboundJson>;
    try {
      const { match } = matchRestPath(http.method, http.path);
      if (!match) throw A2AError.of('METHOD_NOT_FOUND', `no A2A operation at ${http.method} ${http.path || '/'}`);
      const info = match.route.method;
      const request: Call['request'] = {
        size: http.body?.length ?? 0,
        decode: () => {
          try {
            const { json, strings } = requestJson(http, info, match.params);
            return strings.read(info.requestSchema, json) as AnyRequest;
          } catch (e) {
            if (e instanceof ProtoJsonError) throw A2AError.invalidParams(e.violations);
            throw e;
          }
        },
        relay,
        namedTenants: () => namedTenants(http),
      };
      call = this.call(http, candidates, generation, started, info, '1.0', match.params.tenant ?? '', request, WRITER);
    } catch (e) {
      const err = asA2AError(e);
      this.pipeline.rejected(rejectedInfo(http, 'HTTP+JSON', started), err);
      return refused(err);
    }
    try {
      const result = await this.pipeline.run(call);
      switch (result.kind) {
        case 'written':
          return restAnswer(200, result.value.json, result.value.body);
        case 'relayHttp':
          return relayedAnswer(result);
        case 'writtenStream': {
          const opened = await openSse(
            result.events,
            (out) => ({ data: out.body(out.json) }), // a large raw part as pieces
            (err) => ({ event: 'error', data: JSON.stringify(errorBody(err)) }),
            call.route!.sseKeepAliveMs,
            result.quietMs,
          );
          return opened.ok ? opened.answer : restError(opened.error);
        }
        default:
          throw new Error(`unexpected ${result.kind} answer`);
      }
    } catch (e) {
      return refused(asA2AError(e));
    }
  }
}
