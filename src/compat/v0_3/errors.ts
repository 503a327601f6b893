// A2A 0.3 errors ⇄ the catalogue (bridge-0.3-1.0.md §7, WN §7, spec §5.4):
// - JSON-RPC: the codes -32001…-32007 mean the same in both versions and are
//   kept; 1.0-only -32008/-32009 (and the gateway's own codes) keep theirs too
//   (0.3 SDKs surface an unknown code generically). 0.3 `data` is a free-form
//   object, 1.0 has ErrorInfo: toward 0.3 `data` = ErrorInfo.metadata (or
//   omitted) and BadRequest's field violations are told in the message; from
//   0.3 the ErrorInfo is synthesized from the code and the string fields of
//   `data` become its metadata.
// - REST: @a2a-js/sdk 0.3.x answers `{code, message, data?}` as application/json
//   with 404 (TaskNotFound, MethodNotFound), 409 (TaskNotCancelable), 400, 500;
//   a 0.3 error body is read by its `code` before its HTTP status.
// - gRPC: 0.3.14 sends a status and a message, no details: -32001 NOT_FOUND,
//   -32002/-32007 FAILED_PRECONDITION, -32003/-32004 UNIMPLEMENTED,
//   -32005/-32600/-32602 INVALID_ARGUMENT, -32006/-32603 INTERNAL; its client
//   tells the errors sharing a status apart by the method called.
import {
  A2AError,
  BAD_REQUEST_TYPE,
  ERROR_INFO_TYPE,
  nameFromDetails,
  nameFromHttp,
  nameFromJsonRpcCode,
} from '../../errors/a2a-error.js';
import { A2A_DOMAIN, CATALOGUE, GRPC_CODES, ROW_BY_GRPC, type ErrorName } from '../../errors/catalogue.js';
import type { MethodName } from '../../core/methods.js';
import { compact, isObject, type JsonObject } from './common.js';

function stringFields(o: JsonObject): Record<string, string> {
  return Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** The ErrorInfo metadata an error carries (the one naming the error first), or undefined when empty. */
export function errorInfoMetadata(err: A2AError): Record<string, string> | undefined {
  const infos = err.details.filter((d) => d['@type'] === ERROR_INFO_TYPE);
  const info = infos.find((d) => d.reason === err.errorName) ?? infos[0];
  if (!info || !isObject(info.metadata)) return undefined;
  const out = stringFields(info.metadata);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** "field: description; …" of the error's google.rpc.BadRequest (at most five), or "" when it has none. */
function violationsText(err: A2AError): string {
  const bad = err.details.find((d) => d['@type'] === BAD_REQUEST_TYPE);
  const list = Array.isArray(bad?.fieldViolations) ? bad.fieldViolations.filter(isObject) : [];
  const shown = list.slice(0, 5).map((v) => `${String(v.field ?? '')}: ${String(v.description ?? '')}`);
  return shown.join('; ') + (list.length > 5 ? `; and ${list.length - 5} more` : '');
}

/**
 * A 0.3 error object {code, message, data?} (JSON-RPC `error`, REST body, SSE
 * error event). 0.3 has no google.rpc details: field violations go into the message.
 */
export function errorToV03(err: A2AError): JsonObject {
  return compact({ code: err.row.jsonRpc, message: v03Message(err), data: errorInfoMetadata(err) });
}

/** The error's message as 0.3 writes it: its field violations appended (0.3 has no google.rpc details). */
export function v03Message(err: A2AError): string {
  const violations = violationsText(err);
  return violations ? `${err.message}: ${violations}` : err.message;
}

/** An error read from a 0.3 catalogue name, message and `data` object (string fields → ErrorInfo metadata). */
function readV03(name: ErrorName, message: string | undefined, data: unknown): A2AError {
  const metadata = isObject(data) ? stringFields(data) : {};
  const has = Object.keys(metadata).length > 0;
  const err = A2AError.of(name, message || undefined, has ? { metadata } : {});
  if (has && !CATALOGUE[name].domain) {
    // a row without an ErrorInfo of its own (InvalidParams, InternalError): keep the 0.3 data anyway
    err.details.push({ '@type': ERROR_INFO_TYPE, reason: name, domain: A2A_DOMAIN, metadata });
  }
  return err;
}

/** A 0.3 JSON-RPC `error` object → A2AError (an unknown code is INTERNAL_ERROR, a malformed one INVALID_AGENT_RESPONSE). */
export function errorFromV03(obj: unknown): A2AError {
  if (!isObject(obj) || typeof obj.code !== 'number' || !Number.isInteger(obj.code)) {
    return A2AError.of('INVALID_AGENT_RESPONSE', 'the A2A 0.3 agent answered a malformed JSON-RPC error');
  }
  const message = typeof obj.message === 'string' ? obj.message : undefined;
  return readV03(nameFromJsonRpcCode(obj.code), message, obj.data);
}

// --- REST --------------------------------------------------------------------

/** HTTP status of an A2A or JSON-RPC error toward a 0.3 REST caller (the gateway's own errors keep theirs). */
const V03_HTTP: ReadonlyMap<ErrorName, number> = new Map<ErrorName, number>([
  ['PARSE_ERROR', 400],
  ['INVALID_REQUEST', 400],
  ['INVALID_PARAMS', 400],
  ['METHOD_NOT_FOUND', 404],
  ['INTERNAL_ERROR', 500],
  ['TASK_NOT_FOUND', 404],
  ['TASK_NOT_CANCELABLE', 409],
  ['PUSH_NOTIFICATION_NOT_SUPPORTED', 400],
  ['UNSUPPORTED_OPERATION', 400],
  // 0.3.14 answers these with its default 500; they are the caller's errors (400, as 1.3.0's legacy server)
  ['CONTENT_TYPE_NOT_SUPPORTED', 400],
  ['EXTENDED_AGENT_CARD_NOT_CONFIGURED', 400],
  ['EXTENSION_SUPPORT_REQUIRED', 400],
  ['VERSION_NOT_SUPPORTED', 400],
  ['INVALID_AGENT_RESPONSE', 500],
]);

/** The 0.3 REST answer for an error: status and `{code, message, data?}` body (application/json). */
export function restErrorToV03(err: A2AError): { status: number; body: JsonObject } {
  return { status: V03_HTTP.get(err.errorName) ?? err.row.http, body: errorToV03(err) };
}

function parseBody(body: unknown): unknown {
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) return body;
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A 0.3 REST error (status and body, parsed or raw) → A2AError: by the body's
 * JSON-RPC `code` when it has one, else by the status. A 404/405/501 without a
 * 0.3 body is a route the agent does not serve: UNSUPPORTED_OPERATION.
 */
export function restErrorFromV03(status: number, body: unknown): A2AError {
  const b = parseBody(body);
  if (isObject(b) && typeof b.code === 'number' && Number.isInteger(b.code)) {
    const known = CATALOGUE[nameFromJsonRpcCode(b.code)].jsonRpc === b.code;
    const name = known ? nameFromJsonRpcCode(b.code) : nameFromHttp(status);
    return readV03(name, typeof b.message === 'string' ? b.message : undefined, b.data);
  }
  const name = status === 404 || status === 405 || status === 501 ? 'UNSUPPORTED_OPERATION' : nameFromHttp(status);
  return A2AError.of(name, `upstream answered HTTP ${status}`);
}

// --- gRPC --------------------------------------------------------------------

const V03_GRPC_BY_CODE: ReadonlyMap<number, number> = new Map([
  [-32001, GRPC_CODES.NOT_FOUND],
  [-32002, GRPC_CODES.FAILED_PRECONDITION],
  [-32003, GRPC_CODES.UNIMPLEMENTED],
  [-32004, GRPC_CODES.UNIMPLEMENTED],
  [-32005, GRPC_CODES.INVALID_ARGUMENT],
  [-32006, GRPC_CODES.INTERNAL],
  [-32007, GRPC_CODES.FAILED_PRECONDITION],
  [-32008, GRPC_CODES.FAILED_PRECONDITION],
  [-32009, GRPC_CODES.FAILED_PRECONDITION],
  [-32700, GRPC_CODES.INVALID_ARGUMENT],
  [-32600, GRPC_CODES.INVALID_ARGUMENT],
  [-32601, GRPC_CODES.UNIMPLEMENTED],
  [-32602, GRPC_CODES.INVALID_ARGUMENT],
  [-32603, GRPC_CODES.INTERNAL],
]);

/** The gRPC status code toward a 0.3 gRPC caller (the 0.3 table; the gateway's own errors keep the catalogue's). */
export function grpcCodeToV03(err: A2AError): number {
  return V03_GRPC_BY_CODE.get(err.row.jsonRpc) ?? GRPC_CODES[err.row.grpc];
}

const PUSH_METHODS: ReadonlySet<string> = new Set([
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
]);

/**
 * A 0.3 gRPC status → A2AError. An ErrorInfo in `details` (a 1.3.0 legacy
 * server sends one) decides; otherwise the code, told apart by the method
 * called as 0.3.14's client does (FAILED_PRECONDITION on CancelTask is
 * TaskNotCancelable, on GetExtendedAgentCard ExtendedCardNotConfigured;
 * UNIMPLEMENTED on a push-config method is PushNotificationNotSupported).
 */
export function errorFromV03Grpc(
  code: number,
  message: string,
  opts: { method?: MethodName; details?: JsonObject[] } = {},
): A2AError {
  const details = opts.details ?? [];
  const named = nameFromDetails(details);
  if (named) return A2AError.read(named, message, details);
  let name: ErrorName;
  switch (code) {
    case GRPC_CODES.NOT_FOUND:
      name = 'TASK_NOT_FOUND';
      break;
    case GRPC_CODES.FAILED_PRECONDITION:
      name =
        opts.method === 'CancelTask'
          ? 'TASK_NOT_CANCELABLE'
          : opts.method === 'GetExtendedAgentCard'
            ? 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'
            : 'FAILED_PRECONDITION';
      break;
    case GRPC_CODES.UNIMPLEMENTED:
      name = opts.method && PUSH_METHODS.has(opts.method) ? 'PUSH_NOTIFICATION_NOT_SUPPORTED' : 'UNSUPPORTED_OPERATION';
      break;
    default: {
      const entry = Object.entries(GRPC_CODES).find(([, v]) => v === code);
      name = entry ? ROW_BY_GRPC[entry[0] as keyof typeof GRPC_CODES] : 'INTERNAL_ERROR';
    }
  }
  return A2AError.read(name, message, details);
}
