// JSON-RPC upstream client (spec §9): POSTs {"jsonrpc":"2.0","id","method",
// "params"} to the agent's endpoint over the generation's keep-alive pool,
// with the service parameters as headers (§9.2), and reads `result` or
// `error` (§9.5). Streams (§9.4.2, §9.4.6) are SSE whose events are JSON-RPC
// responses; an error before the stream is a plain JSON-RPC error body.
import { methodOf, requestOf, type Envelope } from '../../core/envelope.js';
import type { AnyResponse, MethodInfo } from '../../core/methods.js';
import { responseFromJson } from '../../core/response.js';
import { upstreamHeaders } from '../../core/service-params.js';
import type { UpstreamClient, UpstreamTarget } from '../../core/upstream.js';
import { A2AError } from '../../errors/a2a-error.js';
import type { StreamResponse } from '../../gen/a2a_pb.js';
import { writeJson } from '../../proto/json.js';
import { HttpPool, isEventStream, parseJson, type HttpRequestOptions } from '../../upstream/http-pool.js';
import type { UpstreamRegistry } from '../../upstream/registry.js';
import { readErrorObject } from './wire.js';

type RpcResponse = { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown };

export class JsonRpcUpstream implements UpstreamClient {
  private readonly pool: HttpPool;
  private readonly path: string;
  private nextId = 1;

  constructor(
    private readonly target: UpstreamTarget,
    upstreams: UpstreamRegistry,
  ) {
    this.pool = new HttpPool(target, upstreams);
    const u = new URL(target.url);
    this.path = `${u.pathname}${u.search}` || '/';
  }

  private request(env: Envelope, info: MethodInfo, id: number, accept: string): HttpRequestOptions {
    const params = writeJson(info.requestSchema, requestOf(env));
    return {
      method: 'POST',
      path: this.path,
      headers: { ...upstreamHeaders(env.serviceParameters), 'content-type': 'application/json', accept },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: info.name, params }),
    };
  }

  /** One JSON-RPC response object → the typed result, or the error thrown. */
  private read(info: MethodInfo, json: RpcResponse | undefined, id: number, what: string): AnyResponse {
    if (!json || typeof json !== 'object' || json.jsonrpc !== '2.0') {
      throw A2AError.of('INVALID_AGENT_RESPONSE', `upstream answered without a JSON-RPC response (${what})`);
    }
    if (json.id !== id && !(json.id === null && json.error !== undefined)) {
      throw A2AError.of(
        'INVALID_AGENT_RESPONSE',
        `upstream answered JSON-RPC id ${JSON.stringify(json.id)} to request id ${id}`,
      );
    }
    if (json.error !== undefined) {
      throw (
        readErrorObject(json.error) ??
        A2AError.of('INVALID_AGENT_RESPONSE', 'upstream sent a malformed JSON-RPC error object')
      );
    }
    if (!('result' in json))
      throw A2AError.of('INVALID_AGENT_RESPONSE', 'upstream JSON-RPC response has neither result nor error');
    return responseFromJson(info, json.result);
  }

  async unary(env: Envelope, signal: AbortSignal): Promise<AnyResponse> {
    const info = methodOf(env);
    const id = this.nextId++;
    const answer = await this.pool.request(this.request(env, info, id, 'application/json'), signal);
    return this.read(info, parseJson(answer.text) as RpcResponse | undefined, id, `HTTP ${answer.status}`);
  }

  async *stream(env: Envelope, signal: AbortSignal): AsyncGenerator<StreamResponse> {
    const info = methodOf(env);
    const id = this.nextId++;
    const res = await this.pool.open(this.request(env, info, id, 'text/event-stream'), signal);
    if (!isEventStream(res.contentType)) {
      // An error before the stream (or a single answer) comes as plain JSON.
      yield this.read(
        info,
        parseJson(await res.text()) as RpcResponse | undefined,
        id,
        `HTTP ${res.status}`,
      ) as StreamResponse;
      return;
    }
    for await (const ev of res.events(this.target.maxSseEventBytes)) {
      yield this.read(info, parseJson(ev.data) as RpcResponse | undefined, id, 'SSE event') as StreamResponse;
    }
  }
}
