// JSON-RPC upstream client (spec §9): POSTs {"jsonrpc":"2.0","id","method",
// "params"} to the agent's endpoint over an undici keep-alive pool, with the
// service parameters as headers (§9.2), and reads `result` or `error` (§9.5).
import type { Envelope } from '../../core/envelope.js';
import { methodInfo } from '../../core/methods.js';
import { responseFromJson } from '../../core/response.js';
import { upstreamHeaders } from '../../core/service-params.js';
import type { UpstreamClient, UpstreamTarget } from '../../core/upstream.js';
import { A2AError } from '../../errors/a2a-error.js';
import { toJson, type ProtoObject } from '../../proto/protojson.js';
import { HttpPool, parseJson } from '../../upstream/http-pool.js';
import { readErrorObject } from './wire.js';

export class JsonRpcUpstream implements UpstreamClient {
  private readonly pool: HttpPool;
  private readonly path: string;
  private nextId = 1;

  constructor(target: UpstreamTarget) {
    this.pool = new HttpPool(target.url, target.timeoutMs);
    const u = new URL(target.url);
    this.path = `${u.pathname}${u.search}` || '/';
  }

  async unary(env: Envelope, signal: AbortSignal): Promise<ProtoObject> {
    const info = methodInfo(env.method);
    const id = this.nextId++;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: info.name, params: toJson(info.requestType, env.request) });
    const answer = await this.pool.request(
      {
        method: 'POST',
        path: this.path,
        headers: { ...upstreamHeaders(env.serviceParameters), 'content-type': 'application/json', accept: 'application/json' },
        body,
      },
      signal,
    );
    const json = parseJson(answer.text) as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown } | undefined;
    if (!json || typeof json !== 'object' || json.jsonrpc !== '2.0') {
      throw A2AError.of('INVALID_AGENT_RESPONSE', `upstream answered HTTP ${answer.status} without a JSON-RPC response`);
    }
    if (json.id !== id && !(json.id === null && json.error !== undefined)) {
      throw A2AError.of('INVALID_AGENT_RESPONSE', `upstream answered JSON-RPC id ${JSON.stringify(json.id)} to request id ${id}`);
    }
    if (json.error !== undefined) {
      const err = readErrorObject(json.error);
      if (err) throw err;
      throw A2AError.of('INVALID_AGENT_RESPONSE', 'upstream sent a malformed JSON-RPC error object');
    }
    if (!('result' in json)) throw A2AError.of('INVALID_AGENT_RESPONSE', 'upstream JSON-RPC response has neither result nor error');
    return responseFromJson(info, json.result);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
