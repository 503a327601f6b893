// HTTP+JSON error wire form (spec §11.6, AIP-193): the HTTP status and
// {"error": {"code", "status", "message", "details"}} with google.rpc detail
// objects. Reads upstream errors by ErrorInfo reason, then status name, then
// HTTP code (including the older v1.0.0 codes 409/415/502). A NOT_FOUND
// without an A2A reason is read by the method: TaskNotFound for a call that
// names a task, METHOD_NOT_FOUND (no such operation there) for any other.
import { namesTask, type MethodInfo } from '../../core/methods.js';
import { A2AError, isGrpcStatusName, nameFromDetails, nameFromGrpc, nameFromHttp } from '../../errors/a2a-error.js';
import type { ErrorName } from '../../errors/catalogue.js';
import { isObject, type JsonObject } from '../../proto/json.js';

export const A2A_JSON = 'application/a2a+json';

export function errorBody(err: A2AError): JsonObject {
  return { error: { code: err.row.http, status: err.row.grpc, message: err.message, details: err.details } };
}

/** An upstream's non-2xx REST answer → core error (`method`: the call it answers, for a bare 404). */
export function readErrorBody(httpStatus: number, body: unknown, method?: MethodInfo): A2AError {
  const e = isObject(body) && isObject(body.error) ? body.error : undefined;
  const details = e && Array.isArray(e.details) ? e.details.filter(isObject) : [];
  const status = e?.status;
  let name: ErrorName | undefined = nameFromDetails(details);
  if (name === undefined) {
    const notFound = isGrpcStatusName(status) ? status === 'NOT_FOUND' : httpStatus === 404;
    if (notFound && method) name = namesTask(method) ? 'TASK_NOT_FOUND' : 'METHOD_NOT_FOUND';
    else name = isGrpcStatusName(status) ? nameFromGrpc(status) : nameFromHttp(httpStatus);
  }
  const message = typeof e?.message === 'string' ? e.message : `upstream answered HTTP ${httpStatus}`;
  return A2AError.read(name, message, details);
}
