// HTTP+JSON upstream client (spec §11): builds the URL from a2a.proto's
// google.api.http rule (the /{tenant}/… form when a tenant is sent), puts the
// remaining fields in the query (GET/DELETE, §11.5) or the body, and reads
// the answer or the {"error": …} body (§11.6). Streams (§11.7) are SSE of bare
// StreamResponse JSON; SubscribeToTask is sent as POST, as §11.3 and the
// official SDK do; an `event: error` (or an {"error"} event) fails the stream.
// A large `raw` part is sent as pieces made as they go (proto/json-out.ts),
// and read from answers and events in place (http/json-body.ts).
import { methodOf, requestOf, type Envelope } from '../../core/envelope.js';
import { mapEvents, oneEvent } from '../../core/event-stream.js';
import type { AnyResponse, HttpRule, MethodInfo } from '../../core/methods.js';
import { responseFromJson, writableAnswer } from '../../core/response.js';
import { upstreamHeaders } from '../../core/service-params.js';
import type { UpstreamClient, UpstreamTarget } from '../../core/upstream.js';
import { A2AError } from '../../errors/a2a-error.js';
import { queryText } from '../../http/query-text.js';
import type { StreamResponse } from '../../gen/a2a_pb.js';
import { isObject, type Json, type JsonObject } from '../../proto/json.js';
import { outboundJson, type JsonBody } from '../../proto/json-out.js';
import { HttpPool, isEventStream, type HttpRequestOptions } from '../../upstream/http-pool.js';
import { readAnswerJson, readEventJson } from '../../http/json-body.js';
import { NO_LONG_STRINGS, type LongStrings } from '../../proto/json-in.js';
import type { SseEvent } from '../../sse/reader.js';
import type { UpstreamRegistry } from '../../upstream/registry.js';
import { camel, pathSegment, patternVariables } from './paths.js';
import { A2A_JSON, readErrorBody } from './wire.js';
import type { AbortLike } from '../../util/call-signal.js';

function chooseRule(info: MethodInfo, tenant: string): HttpRule {
  const forms = info.httpRules.filter((r) => r.pattern.includes('{tenant}') === (tenant !== ''));
  const rule = (info.streaming ? forms.find((r) => r.verb === 'POST') : undefined) ?? forms[0] ?? info.httpRules[0];
  if (!rule) throw A2AError.of('INTERNAL_ERROR', 'method has no HTTP rule');
  return rule;
}

/** §11.5: the fields left for the query, RFC 3986-encoded (http/query-text.ts). */
function queryString(json: JsonObject, skip: Set<string>): string {
  const pairs: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(json)) {
    if (skip.has(k)) continue;
    for (const item of Array.isArray(v) ? v : [v])
      if (item !== null && typeof item !== 'object') pairs.push([k, String(item)]);
  }
  const s = queryText(pairs);
  return s ? `?${s}` : '';
}

/** What differs between A2A versions on REST: paths and bodies, answers, stream events and errors. */
export interface RestDialect {
  /** The Content-Type of request bodies: application/a2a+json in 1.0 (§11.1), application/json in 0.3. */
  contentType: string;
  /** The request for the method, its path below the upstream's base path. */
  request(env: Envelope, info: MethodInfo): { verb: string; path: string; body?: JsonBody };
  /** A 2xx answer's JSON (undefined: no body) → the typed response; `strings`: long strings left out of its parse. */
  answer(info: MethodInfo, json: unknown, strings: LongStrings): AnyResponse;
  /** A non-2xx answer → the error. */
  error(info: MethodInfo, status: number, json: unknown): A2AError;
  /** One SSE event (its `event:` name and parsed data, `strings` left out of its parse) → a stream event, or the error it carries. */
  event(info: MethodInfo, name: string | undefined, json: unknown, strings: LongStrings): StreamResponse;
}

/** A2A 1.0: a2a.proto's google.api.http rules (§11.3), ProtoJSON bodies, google.rpc.Status errors (§11.6). */
export const REST_V1: RestDialect = {
  contentType: A2A_JSON,
  request(env, info) {
    const out = outboundJson(info.requestSchema, requestOf(env));
    const json = out.json as JsonObject;
    const rule = chooseRule(info, typeof json.tenant === 'string' ? json.tenant : '');
    const bound = new Set<string>();
    let path = rule.pattern;
    for (const v of patternVariables(rule.pattern)) {
      const field = camel(v.name);
      bound.add(field);
      const value: Json | undefined = json[field];
      path = path.replace(v.text, pathSegment(typeof value === 'string' ? value : '', field));
    }
    const inQuery = rule.verb === 'GET' || rule.verb === 'DELETE';
    return {
      verb: rule.verb,
      path: `${path}${inQuery ? queryString(json, bound) : ''}`,
      ...(rule.body !== undefined ? { body: out.body(json) } : {}),
    };
  },
  answer: (info, json, strings) => responseFromJson(info, json, strings),
  error: (info, status, json) => readErrorBody(status, json, info),
  event(info, name, json, strings) {
    if (name === 'error' || (isObject(json) && isObject(json.error))) {
      const whole = strings.materialize(json);
      const code =
        isObject(whole) && isObject(whole.error) && typeof whole.error.code === 'number' ? whole.error.code : 500;
      throw readErrorBody(code, whole, info);
    }
    return responseFromJson(info, json, strings) as StreamResponse;
  },
};

export class RestUpstream implements UpstreamClient {
  private readonly pool: HttpPool;

  constructor(
    private readonly target: UpstreamTarget,
    upstreams: UpstreamRegistry,
    private readonly dialect: RestDialect = REST_V1,
  ) {
    this.pool = new HttpPool(target, upstreams);
  }

  private request(env: Envelope, info: MethodInfo, accept: string): HttpRequestOptions {
    const r = this.dialect.request(env, info);
    return {
      method: r.verb as HttpRequestOptions['method'],
      path: `${this.pool.basePath}${r.path}`,
      headers: {
        ...upstreamHeaders(env.serviceParameters),
        accept,
        ...(r.body !== undefined ? { 'content-type': this.dialect.contentType } : {}),
      },
      ...(r.body !== undefined ? { body: r.body } : {}),
    };
  }

  /** A complete (non-SSE) answer → the typed response, or the error thrown. */
  private read(info: MethodInfo, status: number, bytes: Buffer): AnyResponse {
    const body = bytes.length === 0 ? undefined : readAnswerJson(bytes);
    const strings = body?.strings ?? NO_LONG_STRINGS;
    if (status < 200 || status >= 300) throw this.dialect.error(info, status, strings.materialize(body?.value));
    if (body === undefined && bytes.length > 0) {
      throw A2AError.of('INVALID_AGENT_RESPONSE', `upstream answered HTTP ${status} with a body that is not JSON`);
    }
    return this.checked(info, () => this.dialect.answer(info, body?.value, strings));
  }

  /** A translation that fails on the upstream's answer, or holds what JSON cannot write, is an invalid agent answer. */
  private checked<T extends object>(info: MethodInfo, read: () => T): T {
    try {
      return writableAnswer(info, read());
    } catch (e) {
      if (e instanceof A2AError) throw e;
      throw A2AError.of('INVALID_AGENT_RESPONSE', `upstream answered ${info.name} with ${(e as Error).message}`);
    }
  }

  async unary(env: Envelope, signal: AbortLike): Promise<AnyResponse> {
    const info = methodOf(env);
    const answer = await this.pool.request(this.request(env, info, `${A2A_JSON}, application/json`), signal);
    return this.read(info, answer.status, answer.body);
  }

  stream(env: Envelope, signal: AbortSignal): AsyncIterable<StreamResponse> {
    const info = methodOf(env);
    /** The HTTP status of an answer that came as plain JSON instead of a stream. */
    let plain: number | undefined;
    return mapEvents<SseEvent, StreamResponse>({
      open: async () => {
        const res = await this.pool.open(this.request(env, info, 'text/event-stream'), signal);
        // an error status is an error whatever its body's type (an SSE body with a 500 is no stream)
        if (res.status < 300 && isEventStream(res.contentType)) return res.events(this.target.maxSseEventBytes);
        plain = res.status;
        return oneEvent(await res.whole());
      },
      each: (ev) => {
        // the plain answer's one event holds its bytes (whole()); `data` only as the type allows an event without
        if (plain !== undefined)
          return this.read(info, plain, ev.bytes ?? Buffer.from(ev.data, 'utf8')) as StreamResponse;
        const json = readEventJson(ev);
        if (json === undefined)
          throw A2AError.of('INVALID_AGENT_RESPONSE', 'upstream sent an SSE event that is not JSON');
        return this.checked(info, () => this.dialect.event(info, ev.event, json.value, json.strings));
      },
    });
  }
}
