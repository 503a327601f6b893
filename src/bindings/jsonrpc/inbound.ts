// JSON-RPC 2.0 inbound (spec §9): decodes POSTed requests (single, batch,
// notification) into envelopes, hands them to the dispatcher, and writes the
// JSON-RPC responses. Transport-level rejections (415 Content-Type, 413 body
// size) keep their HTTP status; every JSON-RPC-level answer is HTTP 200.
import type { Binding } from '../../config/types.js';
import { requestFromJson } from '../../core/decode.js';
import { asA2AError, type Dispatcher } from '../../core/dispatcher.js';
import type { Envelope, Reply } from '../../core/envelope.js';
import { methodByName } from '../../core/methods.js';
import { readServiceParameters } from '../../core/service-params.js';
import { A2AError } from '../../errors/a2a-error.js';
import { toJson, type Json, type JsonObject } from '../../proto/protojson.js';
import { tenantMatches } from '../../routing/router.js';
import { mediaType, type HttpAnswer, type HttpCall, type RouteCandidates } from '../http-request.js';
import { errorResponse, resultResponse, type JsonRpcId } from './wire.js';

const INBOUND: Binding = 'JSONRPC';
const JSON_TYPES = new Set(['application/json', 'application/a2a+json']);
const HEADERS = { 'content-type': 'application/json' };

function answer(status: number, body: Json | undefined): HttpAnswer {
  return body === undefined ? { status: 204, headers: {} } : { status, headers: HEADERS, body: JSON.stringify(body) };
}

function isValidId(id: unknown): id is JsonRpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

export class JsonRpcInbound {
  constructor(private readonly dispatcher: Dispatcher) {}

  private logFailure(call: HttpCall, candidates: RouteCandidates, method: string, err: A2AError, started: bigint): void {
    this.dispatcher.logCall(method, { inbound: INBOUND, requestId: call.requestId, route: candidates[0] }, undefined, { ok: false, error: err }, started);
  }

  private reject(call: HttpCall, status: number, err: A2AError, candidates: RouteCandidates): HttpAnswer {
    this.logFailure(call, candidates, '-', err, process.hrtime.bigint());
    return answer(status, errorResponse(null, err));
  }

  async handle(call: HttpCall, candidates: RouteCandidates): Promise<HttpAnswer> {
    const limit = candidates[0]?.maxBodyBytes ?? Infinity;
    if (!JSON_TYPES.has(mediaType(call.header('content-type')))) {
      return this.reject(call, 415, A2AError.of('UNSUPPORTED_MEDIA_TYPE', 'JSON-RPC requests must be sent as application/json'), candidates);
    }
    if ((call.body?.length ?? 0) > limit) {
      return this.reject(call, 413, A2AError.of('PAYLOAD_TOO_LARGE', `request body exceeds the route's limit of ${limit} bytes`), candidates);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(call.body?.toString('utf8') ?? '');
    } catch (e) {
      return answer(200, errorResponse(null, A2AError.of('PARSE_ERROR', `Invalid JSON payload: ${(e as Error).message}`)));
    }
    if (Array.isArray(parsed)) {
      if (parsed.length === 0) return answer(200, errorResponse(null, A2AError.of('INVALID_REQUEST', 'empty batch')));
      const replies = await Promise.all(parsed.map((item) => this.one(item, call, candidates)));
      const present = replies.filter((r): r is JsonObject => r !== undefined);
      return answer(200, present.length > 0 ? present : undefined);
    }
    return answer(200, await this.one(parsed, call, candidates));
  }

  /** One request object → its response, or undefined for a notification. */
  private async one(req: unknown, call: HttpCall, candidates: RouteCandidates): Promise<JsonObject | undefined> {
    const started = process.hrtime.bigint();
    if (req === null || typeof req !== 'object' || Array.isArray(req)) {
      return errorResponse(null, A2AError.of('INVALID_REQUEST', 'a JSON-RPC request must be an object'));
    }
    const r = req as Record<string, unknown>;
    const hasId = 'id' in r;
    const id: JsonRpcId = hasId && isValidId(r.id) ? r.id : null;
    const fail = (err: A2AError, method = '-'): JsonObject | undefined => {
      this.logFailure(call, candidates, method, err, started);
      return hasId ? errorResponse(id, err) : undefined;
    };
    if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || (hasId && !isValidId(r.id))) {
      const err = A2AError.of('INVALID_REQUEST', 'Request payload validation error: expected {"jsonrpc":"2.0","method":string,"id"?,"params"?}');
      this.logFailure(call, candidates, '-', err, started);
      return errorResponse(id, err); // an invalid request is answered even without a usable id
    }
    const info = methodByName(r.method);
    if (!info) return fail(A2AError.of('METHOD_NOT_FOUND', `Method not found: ${r.method}`), r.method);
    if (info.streaming) {
      return fail(A2AError.of('UNSUPPORTED_OPERATION', `${info.name} (streaming) is not served by this gateway yet`), info.name);
    }
    let env: Envelope;
    let route;
    try {
      const serviceParameters = readServiceParameters(call.header, candidates[0]?.forwardHeaders ?? [], call.query.get('A2A-Version') ?? undefined);
      if (r.params !== undefined && (r.params === null || typeof r.params !== 'object' || Array.isArray(r.params))) {
        throw A2AError.invalidParams([{ field: 'params', description: 'params must be an object' }]);
      }
      const request = requestFromJson(info, r.params);
      const tenant = typeof request.tenant === 'string' ? request.tenant : '';
      route = candidates.find((c) => tenantMatches(c, tenant));
      if (!route) throw A2AError.of('NO_ROUTE', `no route for tenant "${tenant}" here`);
      env = { method: info.name, serviceParameters, tenant, request };
    } catch (e) {
      return fail(asA2AError(e), info.name);
    }
    const reply: Reply = await this.dispatcher.unary(env, { route, inbound: INBOUND, requestId: call.requestId, signal: call.signal });
    if (!hasId) return undefined;
    return reply.ok ? resultResponse(id, toJson(info.responseType, reply.response)) : errorResponse(id, reply.error);
  }
}
