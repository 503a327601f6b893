// The JSON-RPC upstream client toward an A2A 0.3 agent (bridge §1, §3–§7):
// the same client as 1.0's (outbound.ts) in the 0.3 dialect — 0.3 method
// names (`message/send`, `tasks/get`, …), params and results translated by
// the bridge, 0.3 errors read into the catalogue; ListTasks, which 0.3 lacks,
// is UnsupportedOperation before anything is sent.
import { errorFromV03, requestToV03, resultFromV03 } from '../../compat/v0_3/jsonrpc-dialect.js';
import { v03Of } from '../../compat/v0_3/methods.js';
import { requestOf } from '../../core/envelope.js';
import { plainJson } from '../../proto/json-out.js';
import type { JsonRpcDialect } from './outbound.js';

export const JSONRPC_V03: JsonRpcDialect = {
  method: (info) => v03Of(info.name).jsonRpc,
  params: (info, env) => {
    const params = requestToV03(info.name, requestOf(env));
    return params === undefined ? undefined : plainJson(params);
  },
  result: (info, result, strings) => resultFromV03(info.name, strings.materialize(result)),
  error: (e) => (e !== null && typeof e === 'object' ? errorFromV03(e) : undefined),
};
