// JSON-RPC 2.0 wire forms of A2A replies and errors (spec §9.5): the
// response object, and the error object whose `data` is the array of
// google.rpc detail objects ("@type"). Reads and writes through the catalogue.
import { A2AError, nameFromDetails, nameFromJsonRpcCode } from '../../errors/a2a-error.js';
import { isObject, type Json, type JsonObject } from '../../proto/json.js';

export type JsonRpcId = string | number | null;

export function errorObject(err: A2AError): JsonObject {
  const out: JsonObject = { code: err.row.jsonRpc, message: err.message };
  if (err.details.length > 0) out.data = err.details;
  return out;
}

export function errorResponse(id: JsonRpcId, err: A2AError): JsonObject {
  return { jsonrpc: '2.0', id, error: errorObject(err) };
}

export function resultResponse(id: JsonRpcId, result: Json): JsonObject {
  return { jsonrpc: '2.0', id, result };
}

/** A JSON-RPC error object from an upstream → core error; undefined if it is not one. */
export function readErrorObject(e: unknown): A2AError | undefined {
  if (!isObject(e) || typeof e.code !== 'number') return undefined;
  const data = e.data;
  const details = Array.isArray(data)
    ? data.filter(isObject)
    : isObject(data) && typeof data['@type'] === 'string'
      ? [data]
      : [];
  const name = nameFromDetails(details) ?? nameFromJsonRpcCode(e.code);
  return A2AError.read(name, typeof e.message === 'string' ? e.message : undefined, details);
}

/**
 * The HTTP status of a JSON-RPC error answer: 200 as every JSON-RPC-level
 * answer (ContentTypeNotSupportedError too, as the official SDK answers it),
 * except the transport-level refusals — 401 (with WWW-Authenticate, §7.4),
 * 413 and 408 — which keep theirs so HTTP clients and proxies see them.
 */
export function httpStatusOf(err: A2AError): number {
  const name = err.errorName;
  return name === 'UNAUTHENTICATED' || name === 'PAYLOAD_TOO_LARGE' || name === 'REQUEST_TIMEOUT' ? err.row.http : 200;
}
