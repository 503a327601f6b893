// JSON-RPC upstream client (spec §9): POSTs {"jsonrpc":"2.0","id","method",
// "params"} to the agent's endpoint over the generation's keep-alive pool,
// with the service parameters as headers (§9.2), and reads `result` or
// `error` (§9.5). Streams (§9.4.2, §9.4.6) are SSE whose events are JSON-RPC
// responses; an error before the stream is a plain JSON-RPC error body. The
// method names and the shapes of params, results and errors are the
// dialect's: 1.0 here, 0.3 through the bridge (outbound-v0_3.ts). A large
// `raw` part is sent as pieces made as they go (proto/json-out.ts), and
// read from answers and events in place (http/json-body.ts).
import { methodOf, requestOf, type Envelope } from '../../core/envelope.js';
import { mapEvents, oneEvent } from '../../core/event-stream.js';
import type { AnyResponse, MethodInfo } from '../../core/methods.js';
import { responseFromJson, writableAnswer } from '../../core/response.js';
import { upstreamHeaders } from '../../core/service-params.js';
import type { UpstreamClient, UpstreamTarget } from '../../core/upstream.js';
import { A2AError } from '../../errors/a2a-error.js';
import type { StreamResponse } from '../../gen/a2a_pb.js';
import { outboundJson, type OutboundJson } from '../../proto/json-out.js';
import { HttpPool, isEventStream, type HttpRequestOptions } from '../../upstream/http-pool.js';
import { readAnswerJson, readEventJson, type JsonWithStrings } from '../../http/json-body.js';
import type { LongStrings } from '../../proto/json-in.js';
import { isObject } from '../../proto/json.js';
import type { SseEvent } from '../../sse/reader.js';
import type { UpstreamRegistry } from '../../upstream/registry.js';
import { readErrorObject } from './wire.js';
import type { AbortLike } from '../../util/call-signal.js';

/** What differs between A2A versions on JSON-RPC: method names, params, results, events, errors. */
export interface JsonRpcDialect {
  /** The JSON-RPC method name (throws UNSUPPORTED_OPERATION for a method the version lacks). */
  method(info: MethodInfo): string;
  /** The params (their JSON, and how a body holding them is written), or undefined for none. */
  params(info: MethodInfo, env: Envelope): OutboundJson | undefined;
  /** The result's JSON → the typed response; `strings`: long strings left out of its parse (json-body.ts). */
  result(info: MethodInfo, result: unknown, strings: LongStrings): AnyResponse;
  error(error: unknown): A2AError | undefined;
}

/** A2A 1.0: the method's name, ProtoJSON params and results, errors with google.rpc details (§9.5). */
export const JSONRPC_V1: JsonRpcDialect = {
  method: (info) => info.name,
  params: (info, env) => outboundJson(info.requestSchema, requestOf(env)),
  result: (info, result, strings) => responseFromJson(info, result, strings),
  error: readErrorObject,
};

export class JsonRpcUpstream implements UpstreamClient {
  private readonly pool: HttpPool;
  private readonly path: string;
  private nextId = 1;

  constructor(
    private readonly target: UpstreamTarget,
    upstreams: UpstreamRegistry,
    private readonly dialect: JsonRpcDialect = JSONRPC_V1,
  ) {
    this.pool = new HttpPool(target, upstreams);
    const u = new URL(target.url);
    this.path = `${u.pathname}${u.search}` || '/';
  }

  private request(env: Envelope, info: MethodInfo, id: number, accept: string): HttpRequestOptions {
    const method = this.dialect.method(info);
    const params = this.dialect.params(info, env);
    return {
      method: 'POST',
      path: this.path,
      headers: { ...upstreamHeaders(env.serviceParameters), 'content-type': 'application/json', accept },
      body: params
        ? params.body({ jsonrpc: '2.0', id, method, params: params.json })
        : JSON.stringify({ jsonrpc: '2.0', id, method }),
    };
  }

  /** One JSON-RPC response object → the typed result, or the error thrown. */
  private read(info: MethodInfo, parsed: JsonWithStrings | undefined, id: number, what: string): AnyResponse {
    const json = parsed?.value;
    if (!isObject(json) || json.jsonrpc !== '2.0') {
      throw A2AError.of('INVALID_AGENT_RESPONSE', `upstream answered without a JSON-RPC response (${what})`);
    }
    // a long string outside the result (an error's message, say) is read whole
    const strings = parsed!.strings;
    const rid = strings.materialize(json.id);
    const error = strings.materialize(json.error);
    if (rid !== id && !(rid === null && error !== undefined)) {
      throw A2AError.of(
        'INVALID_AGENT_RESPONSE',
        `upstream answered JSON-RPC id ${JSON.stringify(rid)} to request id ${id}`,
      );
    }
    if (error !== undefined) {
      throw (
        this.dialect.error(error) ??
        A2AError.of('INVALID_AGENT_RESPONSE', 'upstream sent a malformed JSON-RPC error object')
      );
    }
    if (!('result' in json))
      throw A2AError.of('INVALID_AGENT_RESPONSE', 'upstream JSON-RPC response has neither result nor error');
    try {
      return writableAnswer(info, this.dialect.result(info, json.result, strings));
    } catch (e) {
      if (e instanceof A2AError) throw e;
      throw A2AError.of('INVALID_AGENT_RESPONSE', `upstream answered ${info.name} with ${(e as Error).message}`);
    }
  }

  async unary(env: Envelope, signal: AbortLike): Promise<AnyResponse> {
    const info = methodOf(env);
    const id = this.nextId++;
    const answer = await this.pool.request(this.request(env, info, id, 'application/json'), signal);
    return this.read(info, readAnswerJson(answer.body), id, `HTTP ${answer.status}`);
  }

  stream(env: Envelope, signal: AbortSignal): AsyncIterable<StreamResponse> {
    const info = methodOf(env);
    const id = this.nextId++;
    let where = 'SSE event';
    return mapEvents<SseEvent, StreamResponse>({
      open: async () => {
        const res = await this.pool.open(this.request(env, info, id, 'text/event-stream'), signal);
        // an error status is an error whatever its body's type (an SSE body with a 500 is no stream)
        if (res.status < 300 && isEventStream(res.contentType)) return res.events(this.target.maxSseEventBytes);
        // An error before the stream (or a single answer) comes as plain JSON.
        where = `HTTP ${res.status}`;
        return oneEvent(await res.whole());
      },
      each: (ev) => this.read(info, readEventJson(ev), id, where) as StreamResponse,
    });
  }
}
