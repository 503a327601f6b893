// The request one framed JSON-RPC call hands the pipeline (inbound.ts frames
// it; pipeline/call.ts InboundRequest): `params` read as the method's typed
// request only when the decode stage asks (after authentication; a 0.3
// method through the bridge), the body as it came to a pass-through route's
// JSON-RPC endpoint (single requests only: a batch is answered per item), and
// the tenants a 1.0 call names (`params.tenant`, in any case of either key,
// as Go's encoding/json reads them), as they came, which the decode stage
// holds a pass-through to (none, or the routed tenant; no string is InvalidParams).
import { requestFromV03 } from '../../compat/v0_3/jsonrpc-dialect.js';
import type { AnyRequest, MethodInfo } from '../../core/methods.js';
import { A2AError } from '../../errors/a2a-error.js';
import type { HttpCall } from '../../http/request.js';
import type { InboundRequest } from '../../pipeline/call.js';
import { ProtoJsonError, type JsonObject } from '../../proto/json.js';
import type { LongStrings } from '../../proto/json-in.js';
import { topLevelValues } from '../../http/top-level-keys.js';
import { forwardHttp, upstreamUrl } from '../../upstream/http-forward.js';
import { readErrorObject } from './wire.js';

/**
 * The error object of a relayed JSON-RPC answer (HTTP 200 like its results), read by its top-level keys only, for the
 * call's log line and metrics; a batch answer (an array) or a result is none.
 */
function errorIn(body: Buffer): A2AError | undefined {
  // an answer has `result` or `error`: a result's value (most of the body) is never walked
  const errors = topLevelValues(body, 'error', 'result');
  return errors && errors.length > 0 ? readErrorObject(errors[errors.length - 1]) : undefined;
}

/** `name`: the method as the caller wrote it (`v03`: a 0.3 name, read through the bridge). */
export function jsonRpcRequest(
  http: HttpCall,
  info: MethodInfo,
  name: string,
  v03: boolean,
  params: JsonObject | undefined,
  strings: LongStrings,
  inBatch: boolean,
  /** The tenants the request names, in whatever case of `tenant` and `params` an agent's parser may read. */
  named: () => unknown[],
): InboundRequest {
  const body = http.body;
  return {
    size: body?.length ?? 0,
    decode: () => {
      try {
        if (v03) return requestFromV03(name, strings.materialize(params));
        return strings.read(info.requestSchema, params ?? {}) as AnyRequest;
      } catch (e) {
        if (e instanceof ProtoJsonError) throw A2AError.invalidParams(e.violations);
        throw e;
      }
    },
    // 0.3 has no tenant; a 1.0 call's is also the one it was routed by, unless it is no string
    namedTenants: () => (v03 ? [] : named().map((t) => strings.materialize(t))),
    ...(inBatch
      ? {}
      : {
          relay: (target) => {
            const u = upstreamUrl(target);
            const passed: Record<string, string> = {
              'content-type': http.header('content-type') ?? 'application/json',
            };
            const accept = http.header('accept');
            if (accept !== undefined) passed.accept = accept;
            return forwardHttp(target, { method: 'POST', path: `${u.pathname}${u.search}`, body, passed, errorIn });
          },
        }),
  };
}
