// HTTP+JSON upstream client (spec §11): builds the URL from a2a.proto's
// google.api.http rule (the /{tenant}/… form when a tenant is sent), puts the
// remaining fields in the query (GET/DELETE, §11.5) or the body, and reads
// the answer or the {"error": …} body (§11.6).
import type { Envelope } from '../../core/envelope.js';
import { methodInfo, type HttpRule } from '../../core/methods.js';
import { responseFromJson } from '../../core/response.js';
import { upstreamHeaders } from '../../core/service-params.js';
import type { UpstreamClient, UpstreamTarget } from '../../core/upstream.js';
import { A2AError } from '../../errors/a2a-error.js';
import { toJson, type Json, type JsonObject, type ProtoObject } from '../../proto/protojson.js';
import { HttpPool, parseJson } from '../../upstream/http-pool.js';
import { camel, patternVariables } from './paths.js';
import { A2A_JSON, readErrorBody } from './wire.js';

function chooseRule(rules: HttpRule[], tenant: string): HttpRule {
  const wantTenant = tenant !== '';
  const rule = rules.find((r) => r.pattern.includes('{tenant}') === wantTenant) ?? rules[0];
  if (!rule) throw A2AError.of('INTERNAL_ERROR', 'method has no HTTP rule');
  return rule;
}

function queryString(json: JsonObject, skip: Set<string>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(json)) {
    if (skip.has(k)) continue;
    for (const item of Array.isArray(v) ? v : [v]) {
      if (item !== null && typeof item !== 'object') q.append(k, String(item));
    }
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

export class RestUpstream implements UpstreamClient {
  private readonly pool: HttpPool;

  constructor(target: UpstreamTarget) {
    this.pool = new HttpPool(target.url, target.timeoutMs);
  }

  async unary(env: Envelope, signal: AbortSignal): Promise<ProtoObject> {
    const info = methodInfo(env.method);
    const json = toJson(info.requestType, env.request) as JsonObject;
    const rule = chooseRule(info.httpRules, typeof json.tenant === 'string' ? json.tenant : '');
    const bound = new Set<string>();
    let path = rule.pattern;
    for (const v of patternVariables(rule.pattern)) {
      const field = camel(v.name);
      bound.add(field);
      const value: Json | undefined = json[field];
      path = path.replace(v.text, encodeURIComponent(typeof value === 'string' ? value : ''));
    }
    const hasBody = rule.body !== undefined;
    const answer = await this.pool.request(
      {
        method: rule.verb,
        path: `${this.pool.basePath}${path}${hasBody ? '' : queryString(json, bound)}`,
        headers: {
          ...upstreamHeaders(env.serviceParameters),
          accept: `${A2A_JSON}, application/json`,
          ...(hasBody ? { 'content-type': 'application/json' } : {}),
        },
        ...(hasBody ? { body: JSON.stringify(json) } : {}),
      },
      signal,
    );
    const body = answer.text === '' ? undefined : parseJson(answer.text);
    if (answer.status < 200 || answer.status >= 300) throw readErrorBody(answer.status, body);
    if (body === undefined && answer.text !== '') {
      throw A2AError.of('INVALID_AGENT_RESPONSE', `upstream answered HTTP ${answer.status} with a body that is not JSON`);
    }
    return responseFromJson(info, body);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
