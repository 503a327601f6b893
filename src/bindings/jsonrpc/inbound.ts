// JSON-RPC 2.0 inbound (spec §9): decodes POSTed requests (single, batch,
// notification) into envelopes, hands them to the dispatcher, and writes the
// JSON-RPC responses. Transport-level rejections (415 Content-Type, 413 body
// size) keep their HTTP status, as does a failed authentication (401 with
// WWW-Authenticate, §7.4); every other JSON-RPC-level answer is HTTP 200.
// Streaming methods (§9.4.2, §9.4.6) answer text/event-stream whose events are
// JSON-RPC responses with the request's id; an error before the first event
// is a plain JSON-RPC error, one after it a final `event: error` response.
import type { Binding, RouteConfig } from '../../config/types.js';
import { requestFromJson } from '../../core/decode.js';
import { asA2AError, type Dispatcher } from '../../core/dispatcher.js';
import type { Envelope } from '../../core/envelope.js';
import { methodByName, type MethodInfo } from '../../core/methods.js';
import { readServiceParameters } from '../../core/service-params.js';
import { A2AError } from '../../errors/a2a-error.js';
import { toJson, type Json, type JsonObject } from '../../proto/protojson.js';
import { exposes } from '../../card/served-card.js';
import { tenantMatches } from '../../routing/router.js';
import { errorHeaders } from '../http-error-headers.js';
import { mediaType, type HttpAnswer, type HttpCall, type RouteCandidates } from '../http-request.js';
import { openSse } from '../sse-answer.js';
import { errorResponse, resultResponse, type JsonRpcId } from './wire.js';

const INBOUND: Binding = 'JSONRPC';
const JSON_TYPES = new Set(['application/json', 'application/a2a+json']);
const HEADERS = { 'content-type': 'application/json' };

function answer(status: number, body: Json | undefined): HttpAnswer {
  return body === undefined ? { status: 204, headers: {} } : { status, headers: HEADERS, body: JSON.stringify(body) };
}

/**
 * A single call's error: HTTP 200 as every JSON-RPC-level answer, except an
 * authentication failure, which is 401 with `WWW-Authenticate` (§7.4) so that
 * HTTP clients and proxies see the challenge; Retry-After rides along on 200s.
 */
function errorAnswer(body: Json | undefined, err: A2AError): HttpAnswer {
  const a = answer(err.errorName === 'UNAUTHENTICATED' && body !== undefined ? 401 : 200, body);
  return { ...a, headers: { ...a.headers, ...errorHeaders(err) } };
}

function isValidId(id: unknown): id is JsonRpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** A decoded request ready to dispatch, or the response that ends it here. */
type Prepared =
  | { done: true; response: JsonObject | undefined }
  | { done: false; info: MethodInfo; env: Envelope; route: RouteConfig; id: JsonRpcId; hasId: boolean };

export class JsonRpcInbound {
  constructor(private readonly dispatcher: Dispatcher) {}

  private logFailure(
    call: HttpCall,
    candidates: RouteCandidates,
    method: string,
    err: A2AError,
    started: bigint,
  ): void {
    this.dispatcher.logCall(
      method,
      { inbound: INBOUND, requestId: call.requestId, route: candidates[0] },
      undefined,
      { ok: false, error: err },
      started,
    );
  }

  private reject(call: HttpCall, status: number, err: A2AError, candidates: RouteCandidates): HttpAnswer {
    this.logFailure(call, candidates, '-', err, process.hrtime.bigint());
    return answer(status, errorResponse(null, err));
  }

  async handle(call: HttpCall, candidates: RouteCandidates): Promise<HttpAnswer> {
    const limit = candidates[0]?.maxBodyBytes ?? Infinity;
    if (!JSON_TYPES.has(mediaType(call.header('content-type')))) {
      return this.reject(
        call,
        415,
        A2AError.of('UNSUPPORTED_MEDIA_TYPE', 'JSON-RPC requests must be sent as application/json'),
        candidates,
      );
    }
    if ((call.body?.length ?? 0) > limit) {
      return this.reject(
        call,
        413,
        A2AError.of('PAYLOAD_TOO_LARGE', `request body exceeds the route's limit of ${limit} bytes`),
        candidates,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(call.body?.toString('utf8') ?? '');
    } catch (e) {
      return answer(
        200,
        errorResponse(null, A2AError.of('PARSE_ERROR', `Invalid JSON payload: ${(e as Error).message}`)),
      );
    }
    if (Array.isArray(parsed)) {
      if (parsed.length === 0) return answer(200, errorResponse(null, A2AError.of('INVALID_REQUEST', 'empty batch')));
      const replies = await Promise.all(
        parsed.map((item) => this.unary(this.prepare(item, call, candidates, true), call)),
      );
      const present = replies.filter((r): r is JsonObject => r !== undefined);
      return answer(200, present.length > 0 ? present : undefined);
    }
    const prepared = this.prepare(parsed, call, candidates, false);
    if (!prepared.done && prepared.info.streaming) return this.stream(prepared, call);
    let failure: A2AError | undefined;
    const body = await this.unary(prepared, call, (e) => (failure = e));
    return failure ? errorAnswer(body, failure) : answer(200, body);
  }

  private prepare(req: unknown, call: HttpCall, candidates: RouteCandidates, inBatch: boolean): Prepared {
    const started = process.hrtime.bigint();
    if (req === null || typeof req !== 'object' || Array.isArray(req)) {
      return {
        done: true,
        response: errorResponse(null, A2AError.of('INVALID_REQUEST', 'a JSON-RPC request must be an object')),
      };
    }
    const r = req as Record<string, unknown>;
    const hasId = 'id' in r;
    const id: JsonRpcId = hasId && isValidId(r.id) ? r.id : null;
    const fail = (err: A2AError, method = '-', always = false): Prepared => {
      this.logFailure(call, candidates, method, err, started);
      return { done: true, response: hasId || always ? errorResponse(id, err) : undefined };
    };
    if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || (hasId && !isValidId(r.id))) {
      // an invalid request is answered even without a usable id
      return fail(
        A2AError.of(
          'INVALID_REQUEST',
          'Request payload validation error: expected {"jsonrpc":"2.0","method":string,"id"?,"params"?}',
        ),
        '-',
        true,
      );
    }
    const info = methodByName(r.method);
    if (!info) return fail(A2AError.of('METHOD_NOT_FOUND', `Method not found: ${r.method}`), r.method);
    if (info.streaming && (inBatch || !hasId)) {
      return fail(
        A2AError.of('INVALID_REQUEST', `${info.name} streams its answer: send it alone, with an id`),
        info.name,
        true,
      );
    }
    try {
      const serviceParameters = readServiceParameters(
        call.header,
        candidates[0]?.forwardHeaders ?? [],
        call.query.get('A2A-Version') ?? undefined,
      );
      if (r.params !== undefined && (r.params === null || typeof r.params !== 'object' || Array.isArray(r.params))) {
        throw A2AError.invalidParams([{ field: 'params', description: 'params must be an object' }]);
      }
      const request = requestFromJson(info, r.params);
      const tenant = typeof request.tenant === 'string' ? request.tenant : '';
      const route = candidates.find((c) => tenantMatches(c, tenant) && exposes(c, INBOUND));
      if (!route) throw A2AError.of('NO_ROUTE', `no route for tenant "${tenant}" here`);
      return { done: false, info, env: { method: info.name, serviceParameters, tenant, request }, route, id, hasId };
    } catch (e) {
      return fail(asA2AError(e), info.name);
    }
  }

  /** One unary request → its response, or undefined for a notification. */
  private async unary(p: Prepared, call: HttpCall, failed?: (err: A2AError) => void): Promise<JsonObject | undefined> {
    if (p.done) return p.response;
    const reply = await this.dispatcher.unary(p.env, {
      route: p.route,
      inbound: INBOUND,
      requestId: call.requestId,
      signal: call.signal,
      view: call.view,
    });
    if (!reply.ok) failed?.(reply.error);
    if (!p.hasId) return undefined;
    return reply.ok
      ? resultResponse(p.id, toJson(p.info.responseType, reply.response))
      : errorResponse(p.id, reply.error);
  }

  private async stream(p: Extract<Prepared, { done: false }>, call: HttpCall): Promise<HttpAnswer> {
    const events = this.dispatcher.stream(p.env, {
      route: p.route,
      inbound: INBOUND,
      requestId: call.requestId,
      signal: call.signal,
      view: call.view,
    });
    const opened = await openSse(
      events,
      (event) => ({ data: JSON.stringify(resultResponse(p.id, toJson(p.info.responseType, event))) }),
      (err) => ({ event: 'error', data: JSON.stringify(errorResponse(p.id, err)) }),
      p.route.sseKeepAliveMs,
    );
    return opened.ok ? opened.answer : errorAnswer(errorResponse(p.id, opened.error), opened.error);
  }
}
