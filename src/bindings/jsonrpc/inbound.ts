// JSON-RPC 2.0 inbound (spec §9): frames POSTed requests (single, batch,
// notification), hands each request to the pipeline as one call, and writes
// the JSON-RPC responses. The method and `params.tenant` are read from the
// frame; the typed request (`params` as ProtoJSON) is read by the pipeline's
// decode stage, after authentication. Transport-level rejections keep their
// HTTP status (413, 408, 401 with WWW-Authenticate, §7.4); every other
// JSON-RPC-level answer is HTTP 200. A batch is capped (limits.maxBatchItems)
// and runs limits.batchConcurrency requests at once. Streaming methods (§9.4.2, §9.4.6) answer
// text/event-stream whose events are JSON-RPC responses with the request's id;
// an error before the first event is a plain JSON-RPC error (toward 0.3, whose
// clients read a stream only as SSE, a stream of that one `event: error`),
// one after it a final `event: error` response. A pass-through route gets the body as it came.
// Long strings of the body (a large `raw` part) are not parsed with the rest
// (http/json-body.ts): `params` keeps them until its request is read.
// A 0.3 method name (`message/send`, …) is a 0.3 call: read and answered in
// the 0.3 dialect through the bridge (compat/v0_3), the same envelope inside.
// The request each call hands the pipeline (decoded, relayed, and the tenant
// it names, which a pass-through is held to) is built in request.ts.
// An error before a method is read is in the version of the caller's
// A2A-Version (none: 0.3, §3.6.2).
import { limitsOf, type RouteConfig } from '../../config/types.js';
import { methodByName, methodInfo, type AnyResponse, type MethodInfo } from '../../core/methods.js';
import { speaksV03 } from '../../core/service-params.js';
import { errorToV03, eventToV03, resultToV03 } from '../../compat/v0_3/jsonrpc-dialect.js';
import { isV03JsonRpcMethod, v03ByJsonRpc } from '../../compat/v0_3/methods.js';
import type { ProtocolVersion } from '../../config/types.js';
import { A2AError, asA2AError } from '../../errors/a2a-error.js';
import type { StreamResponse } from '../../gen/a2a_pb.js';
import { errorHeaders } from '../../http/error-headers.js';
import { readJsonBody } from '../../http/json-body.js';
import {
  mediaType,
  rejectedInfo,
  relayedAnswer,
  type HttpAnswer,
  type HttpCall,
  type SseFrame,
} from '../../http/request.js';
import { openSse } from '../../http/sse-answer.js';
import { caseFoldedValues, topLevelSpans, topLevelValues } from '../../http/top-level-keys.js';
import type { Answer, AnswerWriter, Call } from '../../pipeline/call.js';
import type { Pipeline } from '../../pipeline/pipeline.js';
import { writeJson, isObject, type Json, type JsonObject } from '../../proto/json.js';
import type { LongStrings } from '../../proto/json-in.js';
import { outboundJson, plainJson, type JsonBody, type OutboundJson } from '../../proto/json-out.js';
import type { Generation } from '../../routing/generation.js';
import { mapLimited } from '../../util/map-limited.js';
import { jsonRpcRequest } from './request.js';
import { errorObject, httpStatusOf, resultResponse, type JsonRpcId } from './wire.js';

const JSON_TYPES = new Set(['application/json', 'application/a2a+json']);
const HEADERS = { 'content-type': 'application/json' };

/** How results, events and errors are written for a caller of one A2A version (0.3 through the bridge). */
interface Dialect {
  result(info: MethodInfo, response: AnyResponse): Json;
  /** A stream event's JSON, and how a frame holding it is written (a 1.0 event's large raw part as pieces). */
  event(event: StreamResponse): OutboundJson;
  error(err: A2AError): JsonObject;
}

const STREAM_RESPONSE = methodInfo('SendStreamingMessage').responseSchema;

const DIALECTS: Record<ProtocolVersion, Dialect> = {
  '1.0': {
    result: (info, response) => writeJson(info.responseSchema, response),
    event: (event) => outboundJson(STREAM_RESPONSE, event),
    error: errorObject,
  },
  '0.3': {
    result: (info, response) => resultToV03(info.name, response),
    event: (event) => plainJson(eventToV03(event)),
    error: errorToV03,
  },
};

/** A single request's answer (a 1.0 result's large raw part written as pieces) and its stream's events. */
const WRITERS: Record<ProtocolVersion, AnswerWriter<OutboundJson>> = {
  '1.0': { unary: (response, info) => outboundJson(info.responseSchema, response), event: DIALECTS['1.0'].event },
  '0.3': { unary: (response, info) => plainJson(resultToV03(info.name, response)), event: DIALECTS['0.3'].event },
};

const noBatchStream = (): never => {
  throw new Error('a batch holds no streaming request'); // refused in frame()
};

/** A batch item's answer: its JSON, written into the batch's array. */
const BATCH_WRITERS: Record<ProtocolVersion, AnswerWriter<Json>> = {
  '1.0': { unary: (response, info) => DIALECTS['1.0'].result(info, response), event: noBatchStream },
  '0.3': { unary: (response, info) => DIALECTS['0.3'].result(info, response), event: noBatchStream },
};

/** A request alone or in a batch, and how its answer is written (stage `observe` runs the writer). */
interface Framing<W> {
  inBatch: boolean;
  writers: Record<ProtocolVersion, AnswerWriter<W>>;
}
const ALONE: Framing<OutboundJson> = { inBatch: false, writers: WRITERS };
const IN_BATCH: Framing<Json> = { inBatch: true, writers: BATCH_WRITERS };

const errorResponse = (id: JsonRpcId, err: A2AError, dialect: ProtocolVersion = '1.0'): JsonObject => ({
  jsonrpc: '2.0',
  id,
  error: DIALECTS[dialect].error(err),
});

/** `write`: the body's text (a 1.0 result's outboundJson writes a large raw part as pieces made as they are sent). */
function answer(status: number, body: Json | undefined, write: (body: Json) => JsonBody = JSON.stringify): HttpAnswer {
  return body === undefined ? { status: 204, headers: {} } : { status, headers: HEADERS, body: write(body) };
}

function errorAnswer(id: JsonRpcId, err: A2AError, dialect: ProtocolVersion = '1.0'): HttpAnswer {
  const a = answer(httpStatusOf(err), errorResponse(id, err, dialect));
  return { ...a, headers: { ...a.headers, ...errorHeaders(err) } };
}

/**
 * The error answer to a streaming call. A 0.3 client (@a2a-js/sdk 0.3.x)
 * reads a stream's answer only from text/event-stream, so toward 0.3 an
 * error before the first event is a stream of one `event: error` frame, as
 * 0.3 servers write it; transport-level refusals (401, 413, 415) keep their
 * status, and 1.0 callers get the plain JSON-RPC error (§9.4.2).
 */
function streamErrorAnswer(id: JsonRpcId, err: A2AError, dialect: ProtocolVersion): HttpAnswer {
  if (dialect !== '0.3' || httpStatusOf(err) !== 200) return errorAnswer(id, err, dialect);
  async function* frames(): AsyncGenerator<SseFrame> {
    yield { event: 'error', data: JSON.stringify(errorResponse(id, err, dialect)) };
  }
  return { status: 200, headers: errorHeaders(err), sse: { frames: frames(), keepAliveMs: 0 } };
}

/**
 * The version an error is written in before the request names a method (whose name tells 0.3 from 1.0, bridge
 * §1): the caller's A2A-Version, absent or empty being 0.3 (§3.6.2).
 */
function versionBeforeMethod(http: HttpCall): ProtocolVersion {
  return speaksV03(http.header, http.query.get('A2A-Version')) ? '0.3' : '1.0';
}

/**
 * The tenants a single request's body names: each `tenant` key of each `params` key, in any case, duplicates too
 * (JSON.parse keeps the last of a duplicate key; an agent's parser may keep the first), read from its bytes;
 * undefined when they are no JSON object by that reading (the parsed object is read instead).
 */
function namedInBody(body: Buffer): unknown[] | undefined {
  const params = topLevelSpans(body, 'params');
  if (params === undefined) return undefined;
  const out: unknown[] = [];
  for (const p of params) {
    if (p[0] !== 0x7b) continue; // no object: it names no tenant
    const found = topLevelValues(p, 'tenant');
    if (found === undefined) return undefined;
    out.push(...found);
  }
  return out;
}

function isValidId(id: unknown): id is JsonRpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** One framed request: ready for the pipeline (its answer written as W), or the response that ends it here. */
type Framed<W> =
  | { done: true; response: JsonObject | undefined; v03Stream?: { id: JsonRpcId; err: A2AError } }
  | { done: false; call: Call<W>; id: JsonRpcId; hasId: boolean };

export class JsonRpcInbound {
  constructor(private readonly pipeline: Pipeline) {}

  async handle(http: HttpCall, candidates: readonly RouteConfig[], generation: Generation): Promise<HttpAnswer> {
    const started = process.hrtime.bigint();
    const reject = (err: A2AError): HttpAnswer => {
      this.pipeline.rejected(rejectedInfo(http, 'JSONRPC', started), err);
      return errorAnswer(null, err, versionBeforeMethod(http));
    };
    if (!JSON_TYPES.has(mediaType(http.header('content-type')))) {
      // §3.3.2 ContentTypeNotSupportedError (-32005), as the official SDK answers it
      return reject(A2AError.of('CONTENT_TYPE_NOT_SUPPORTED', 'JSON-RPC requests must be sent as application/json'));
    }
    let parsed: unknown;
    let strings: LongStrings;
    try {
      ({ value: parsed, strings } = readJsonBody(http.body));
    } catch (e) {
      return reject(asA2AError(e));
    }
    if (Array.isArray(parsed)) {
      if (parsed.length === 0) return reject(A2AError.of('INVALID_REQUEST', 'empty batch'));
      // a batch is capped, and runs at most batchConcurrency of its requests at once (each one rate-limited)
      const { maxBatchItems, batchConcurrency } = limitsOf(generation.config);
      if (parsed.length > maxBatchItems) {
        const why = `a batch of ${parsed.length} requests exceeds the limit of ${maxBatchItems} (limits.maxBatchItems)`;
        return reject(A2AError.of('PAYLOAD_TOO_LARGE', why));
      }
      const framed = parsed.map((item) => this.frame(item, strings, http, candidates, generation, IN_BATCH, started));
      // the batch holds its generation to its end: an item started after a reload runs on open connections
      generation.upstreams.acquire();
      let replies: Array<JsonObject | undefined>;
      try {
        replies = await mapLimited(framed, batchConcurrency, (f) => this.unary(f));
      } finally {
        generation.upstreams.release();
      }
      const present = replies.filter((r): r is JsonObject => r !== undefined);
      return answer(200, present.length > 0 ? present : undefined);
    }
    const f = this.frame(parsed, strings, http, candidates, generation, ALONE, started);
    if (f.done && f.v03Stream) return streamErrorAnswer(f.v03Stream.id, f.v03Stream.err, '0.3');
    if (f.done) return f.response ? answer(200, f.response) : answer(200, undefined);
    let result: Answer<OutboundJson>;
    try {
      result = await this.pipeline.run(f.call);
    } catch (e) {
      if (!f.hasId) return answer(200, undefined);
      const err = asA2AError(e);
      return f.call.method.streaming
        ? streamErrorAnswer(f.id, err, f.call.dialect)
        : errorAnswer(f.id, err, f.call.dialect);
    }
    if (result.kind === 'relayHttp') return relayedAnswer(result);
    if (!f.hasId) return answer(200, undefined); // a notification (never a stream): no answer, none written
    if (result.kind === 'writtenStream') return this.stream(f, result.events, result.quietMs);
    if (result.kind !== 'written') throw new Error(`unexpected ${result.kind} answer`);
    const out = result.value;
    return answer(200, resultResponse(f.id, out.json), out.body);
  }

  /** `item` as parsed, its long strings in `strings` (params keep them until decoded; the rest is read whole). */
  private frame<W>(
    item: unknown,
    strings: LongStrings,
    http: HttpCall,
    candidates: readonly RouteConfig[],
    generation: Generation,
    { inBatch, writers }: Framing<W>,
    started: bigint,
  ): Framed<W> {
    if (!isObject(item)) {
      const err = A2AError.of('INVALID_REQUEST', 'a JSON-RPC request must be an object');
      // logged and counted as every other refusal (fail below), one line per item of a batch
      this.pipeline.rejected(rejectedInfo(http, 'JSONRPC', started), err);
      return { done: true, response: errorResponse(null, err, versionBeforeMethod(http)) };
    }
    const { params, ...head } = item;
    const req = strings.materialize(head) as JsonObject;
    const hasId = 'id' in req;
    const id: JsonRpcId = hasId && isValidId(req.id) ? req.id : null;
    const fail = (err: A2AError, always = false, dialect = versionBeforeMethod(http), streaming = false): Framed<W> => {
      this.pipeline.rejected(rejectedInfo(http, 'JSONRPC', started), err);
      const response = hasId || always ? errorResponse(id, err, dialect) : undefined;
      // a single 0.3 stream's refusal goes out as that stream's error event (streamErrorAnswer)
      const v03Stream = response && dialect === '0.3' && streaming && !inBatch ? { id, err } : undefined;
      return { done: true, response, ...(v03Stream ? { v03Stream } : {}) };
    };
    if (req.jsonrpc !== '2.0' || typeof req.method !== 'string' || (hasId && !isValidId(req.id))) {
      // an invalid request is answered even without a usable id
      const why = 'Request payload validation error: expected {"jsonrpc":"2.0","method":string,"id"?,"params"?}';
      return fail(A2AError.of('INVALID_REQUEST', why), true);
    }
    // the method names of A2A 0.3 and 1.0 are disjoint: a 0.3 name is a 0.3 call (bridge §1)
    const v03 = isV03JsonRpcMethod(req.method) ? v03ByJsonRpc(req.method) : undefined;
    const dialect: ProtocolVersion = v03 ? '0.3' : '1.0';
    const info = v03 ? methodInfo(v03.method) : methodByName(req.method);
    if (!info) return fail(A2AError.of('METHOD_NOT_FOUND', `Method not found: ${req.method.slice(0, 100)}`));
    if (info.streaming && (inBatch || !hasId)) {
      const name = v03 ? req.method : info.name;
      const err = A2AError.of('INVALID_REQUEST', `${name} streams its answer: send it alone, with an id`);
      return fail(err, true, dialect, true);
    }
    if (params !== undefined && !isObject(params)) {
      const err = A2AError.invalidParams([{ field: 'params', description: 'params must be an object' }]);
      return fail(err, false, dialect, info.streaming);
    }
    const named = strings.materialize(params?.tenant);
    const tenant = typeof named === 'string' && !v03 ? named : '';
    // what an agent's parser may take for params.tenant: either key in any case (Go's encoding/json ignores it),
    // every duplicate too (read from the bytes: JSON.parse kept only the last of each key)
    const tenants = (): unknown[] =>
      (!inBatch && http.body ? namedInBody(http.body) : undefined) ??
      Object.keys(item)
        .filter((k) => k.length === 6 && k.toLowerCase() === 'params')
        .flatMap((k) => (isObject(item[k]) ? caseFoldedValues(item[k], 'tenant') : []));
    const request = jsonRpcRequest(http, info, req.method, v03 !== undefined, params, strings, inBatch, tenants);
    const call: Call<W> = {
      inbound: 'JSONRPC',
      requestId: http.requestId,
      signal: http.signal,
      view: http.view,
      wire: http.wire,
      started,
      generation,
      candidates,
      method: info,
      dialect,
      tenant,
      request,
      // a notification's answer is not written (nobody reads it; one its form cannot carry is no failure then)
      writer: hasId ? writers[dialect] : undefined,
    };
    return { done: false, call, id, hasId };
  }

  /** One unary request of a batch → its response, or undefined for a notification. */
  private async unary(f: Framed<Json>): Promise<JsonObject | undefined> {
    if (f.done) return f.response;
    try {
      const result = await this.pipeline.run(f.call);
      if (!f.hasId) return undefined;
      if (result.kind !== 'written') throw new Error(`unexpected ${result.kind} answer in a batch`);
      return resultResponse(f.id, result.value);
    } catch (e) {
      return f.hasId ? errorResponse(f.id, asA2AError(e), f.call.dialect) : undefined;
    }
  }

  private async stream(
    f: Extract<Framed<OutboundJson>, { done: false }>,
    events: AsyncIterable<OutboundJson>,
    quietMs: number | undefined,
  ): Promise<HttpAnswer> {
    const d = f.call.dialect;
    const opened = await openSse(
      events,
      (out) => ({ data: out.body(resultResponse(f.id, out.json)) }),
      (err) => ({ event: 'error', data: JSON.stringify(errorResponse(f.id, err, d)) }),
      f.call.route!.sseKeepAliveMs,
      quietMs,
    );
    return opened.ok ? opened.answer : streamErrorAnswer(f.id, opened.error, d);
  }
}
