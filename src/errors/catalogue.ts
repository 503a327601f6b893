// The one error catalogue: every A2A error (spec §3.3.2 with the §5.4 table),
// every JSON-RPC 2.0 standard error (§9.5) and the gateway's own errors, each
// with its JSON-RPC code, gRPC status, HTTP status and ErrorInfo reason.
// `satisfies Record<ErrorName, ErrorRow>` makes a missing row or cell a
// compile error. Bindings read this table; none keeps its own mapping.

export const A2A_DOMAIN = 'a2a-protocol.org';
export const GATEWAY_DOMAIN = 'a2a-gateway';

/** gRPC status codes by name (google.rpc.Code). */
export const GRPC_CODES = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcStatusName = keyof typeof GRPC_CODES;

export type ErrorKind = 'a2a' | 'jsonrpc' | 'gateway';

export interface ErrorRow {
  kind: ErrorKind;
  jsonRpc: number;
  grpc: GrpcStatusName;
  http: number;
  /** ErrorInfo.domain written with this error, or null for plain status errors. */
  domain: typeof A2A_DOMAIN | typeof GATEWAY_DOMAIN | null;
  /** Default human-readable message. */
  message: string;
  /** Older codes (A2A v1.0.0 tag) recognised when reading an upstream's error. */
  legacy?: { http?: number[]; grpc?: GrpcStatusName[] };
}

export type A2AErrorName =
  | 'TASK_NOT_FOUND'
  | 'TASK_NOT_CANCELABLE'
  | 'PUSH_NOTIFICATION_NOT_SUPPORTED'
  | 'UNSUPPORTED_OPERATION'
  | 'CONTENT_TYPE_NOT_SUPPORTED'
  | 'INVALID_AGENT_RESPONSE'
  | 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'
  | 'EXTENSION_SUPPORT_REQUIRED'
  | 'VERSION_NOT_SUPPORTED';

export type JsonRpcErrorName =
  'PARSE_ERROR' | 'INVALID_REQUEST' | 'METHOD_NOT_FOUND' | 'INVALID_PARAMS' | 'INTERNAL_ERROR';

export type GatewayErrorName =
  | 'NO_ROUTE'
  | 'UPSTREAM_UNAVAILABLE'
  | 'UPSTREAM_TIMEOUT'
  | 'PAYLOAD_TOO_LARGE'
  | 'SHUTTING_DOWN'
  | 'RATE_LIMITED'
  | 'UPSTREAM_OVERLOADED'
  | 'LOOP_DETECTED'
  | 'REQUEST_TIMEOUT'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'RESOURCE_EXHAUSTED'
  | 'CANCELLED'
  | 'ALREADY_EXISTS'
  | 'ABORTED'
  | 'OUT_OF_RANGE'
  | 'FAILED_PRECONDITION';

export type ErrorName = A2AErrorName | JsonRpcErrorName | GatewayErrorName;

const a2a = (
  jsonRpc: number,
  grpc: GrpcStatusName,
  http: number,
  message: string,
  legacy?: ErrorRow['legacy'],
): ErrorRow => ({
  kind: 'a2a',
  jsonRpc,
  grpc,
  http,
  domain: A2A_DOMAIN,
  message,
  ...(legacy ? { legacy } : {}),
});
// PARSE_ERROR, INVALID_REQUEST and METHOD_NOT_FOUND share their status with
// other rows, so the gateway names them with an ErrorInfo of its own domain.
const rpc = (jsonRpc: number, grpc: GrpcStatusName, http: number, message: string, named = false): ErrorRow => ({
  kind: 'jsonrpc',
  jsonRpc,
  grpc,
  http,
  domain: named ? GATEWAY_DOMAIN : null,
  message,
});
const gw = (jsonRpc: number, grpc: GrpcStatusName, http: number, message: string, own = true): ErrorRow => ({
  kind: 'gateway',
  jsonRpc,
  grpc,
  http,
  domain: own ? GATEWAY_DOMAIN : null,
  message,
});

export const CATALOGUE = {
  // A2A errors: specification.md §5.4.
  TASK_NOT_FOUND: a2a(-32001, 'NOT_FOUND', 404, 'Task not found'),
  TASK_NOT_CANCELABLE: a2a(-32002, 'FAILED_PRECONDITION', 400, 'Task cannot be canceled', { http: [409] }),
  PUSH_NOTIFICATION_NOT_SUPPORTED: a2a(-32003, 'FAILED_PRECONDITION', 400, 'Push Notification is not supported'),
  UNSUPPORTED_OPERATION: a2a(-32004, 'FAILED_PRECONDITION', 400, 'This operation is not supported', {
    http: [501],
    grpc: ['UNIMPLEMENTED'],
  }),
  CONTENT_TYPE_NOT_SUPPORTED: a2a(-32005, 'INVALID_ARGUMENT', 400, 'Incompatible content types', { http: [415] }),
  INVALID_AGENT_RESPONSE: a2a(-32006, 'INTERNAL', 500, 'Invalid agent response', { http: [502] }),
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: a2a(-32007, 'FAILED_PRECONDITION', 400, 'Extended agent card is not configured'),
  EXTENSION_SUPPORT_REQUIRED: a2a(-32008, 'FAILED_PRECONDITION', 400, 'Extension support is required'),
  VERSION_NOT_SUPPORTED: a2a(-32009, 'FAILED_PRECONDITION', 400, 'A2A version is not supported'),
  // JSON-RPC 2.0 standard errors: specification.md §9.5.
  PARSE_ERROR: rpc(-32700, 'INVALID_ARGUMENT', 400, 'Invalid JSON payload', true),
  INVALID_REQUEST: rpc(-32600, 'INVALID_ARGUMENT', 400, 'Request payload validation error', true),
  // UNIMPLEMENTED is HTTP 501 in google.rpc's code table (and in the official SDK's REST mapping of -32601).
  METHOD_NOT_FOUND: rpc(-32601, 'UNIMPLEMENTED', 501, 'Method not found', true),
  INVALID_PARAMS: rpc(-32602, 'INVALID_ARGUMENT', 400, 'Invalid parameters'),
  INTERNAL_ERROR: rpc(-32603, 'INTERNAL', 500, 'Internal error'),
  // The gateway's own errors (JSON-RPC server-error range -32050…-32069).
  NO_ROUTE: gw(-32050, 'NOT_FOUND', 404, 'No route matches this request'),
  UPSTREAM_UNAVAILABLE: gw(-32051, 'UNAVAILABLE', 503, 'Upstream agent is unavailable'),
  UPSTREAM_TIMEOUT: gw(-32052, 'DEADLINE_EXCEEDED', 504, 'Upstream agent did not answer in time'),
  PAYLOAD_TOO_LARGE: gw(-32053, 'RESOURCE_EXHAUSTED', 413, 'Request body exceeds the size limit'),
  SHUTTING_DOWN: gw(-32063, 'UNAVAILABLE', 503, 'The gateway is shutting down'),
  RATE_LIMITED: gw(-32064, 'RESOURCE_EXHAUSTED', 429, 'Rate or concurrency limit exceeded'),
  UPSTREAM_OVERLOADED: gw(-32065, 'UNAVAILABLE', 503, 'Upstream connection budget exhausted'),
  LOOP_DETECTED: gw(-32066, 'FAILED_PRECONDITION', 508, 'Request loop detected'),
  REQUEST_TIMEOUT: gw(-32067, 'DEADLINE_EXCEEDED', 408, 'The request was not received in time'),
  // Status-only errors an upstream may answer with; carried, not invented.
  UNAUTHENTICATED: gw(-32055, 'UNAUTHENTICATED', 401, 'Authentication required'),
  PERMISSION_DENIED: gw(-32056, 'PERMISSION_DENIED', 403, 'Permission denied', false),
  RESOURCE_EXHAUSTED: gw(-32057, 'RESOURCE_EXHAUSTED', 429, 'Resource exhausted', false),
  CANCELLED: gw(-32058, 'CANCELLED', 499, 'Cancelled', false),
  ALREADY_EXISTS: gw(-32059, 'ALREADY_EXISTS', 409, 'Already exists', false),
  ABORTED: gw(-32060, 'ABORTED', 409, 'Aborted', false),
  OUT_OF_RANGE: gw(-32061, 'OUT_OF_RANGE', 400, 'Out of range', false),
  FAILED_PRECONDITION: gw(-32062, 'FAILED_PRECONDITION', 400, 'Failed precondition', false),
} as const satisfies Record<ErrorName, ErrorRow>;

export const ERROR_NAMES = Object.keys(CATALOGUE) as ErrorName[];

/**
 * The row a bare status code stands for when an upstream sent no ErrorInfo.
 * Each gRPC code names one row, so the choice is explicit and total.
 */
export const ROW_BY_GRPC = {
  OK: 'INTERNAL_ERROR',
  CANCELLED: 'CANCELLED',
  UNKNOWN: 'INTERNAL_ERROR',
  INVALID_ARGUMENT: 'INVALID_PARAMS',
  DEADLINE_EXCEEDED: 'UPSTREAM_TIMEOUT',
  NOT_FOUND: 'TASK_NOT_FOUND',
  ALREADY_EXISTS: 'ALREADY_EXISTS',
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  RESOURCE_EXHAUSTED: 'RESOURCE_EXHAUSTED',
  FAILED_PRECONDITION: 'FAILED_PRECONDITION',
  ABORTED: 'ABORTED',
  OUT_OF_RANGE: 'OUT_OF_RANGE',
  UNIMPLEMENTED: 'UNSUPPORTED_OPERATION',
  INTERNAL: 'INTERNAL_ERROR',
  UNAVAILABLE: 'UPSTREAM_UNAVAILABLE',
  DATA_LOSS: 'INTERNAL_ERROR',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
} as const satisfies Record<GrpcStatusName, ErrorName>;

/** When each error is answered: docs/errors.md's error table is generated from this. */
export const WHEN = {
  TASK_NOT_FOUND:
    "the task does not exist or is not visible (from the agent; an upstream's bare HTTP 404 to a call that names a task)",
  TASK_NOT_CANCELABLE: 'CancelTask on a task in a terminal state (from the agent)',
  PUSH_NOTIFICATION_NOT_SUPPORTED:
    'push-notification config calls to an agent without push notifications (from the agent)',
  UNSUPPORTED_OPERATION:
    'an operation the agent does not support; streaming to an agent whose card does not declare it',
  CONTENT_TYPE_NOT_SUPPORTED:
    'a request body that is not application/json or application/a2a+json, or a part media type the agent does not accept (from the agent)',
  INVALID_AGENT_RESPONSE:
    'the upstream answered something that is not the A2A answer for the method (or an SSE event over maxSseEventBytes)',
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: 'the agent declares an extended card but has none (from the agent)',
  EXTENSION_SUPPORT_REQUIRED:
    'the agent requires an extension the caller did not list in A2A-Extensions (from the agent)',
  VERSION_NOT_SUPPORTED:
    'A2A-Version neither 1.x nor 0.3 (empty = 0.3); 0.3 for a 1.0 method name or path, 1.x for a 0.3 one; a version the route does not take (`versions`)',
  PARSE_ERROR: 'the body is not JSON (JSON-RPC, REST) or not a valid protobuf message (gRPC)',
  INVALID_REQUEST:
    'JSON-RPC: not a request object, an empty batch, or a streaming method in a batch or without an id; HTTP: a Host that is not a host[:port], or a path with dot segments (`..`, `%2e%2e`, and between `\\`, `%5C` or `%2F`: `..\\`, `..%2F`), or a target holding what no URI may (bytes outside printable ASCII, space, quote, #, <, >, backslash, ^, backtick, {, |, }); a header the gateway reads or passes on over 8 KiB or with CR, LF or NUL',
  METHOD_NOT_FOUND:
    "unknown JSON-RPC method, REST path or HTTP method (gRPC: UNIMPLEMENTED from grpc-js); an upstream's bare HTTP 404 to a call that names no task",
  INVALID_PARAMS:
    'params of the wrong type, a missing REQUIRED field, or a tenant that is not URL-safe (google.rpc.BadRequest names the field)',
  INTERNAL_ERROR: 'an unexpected failure in the gateway or the agent',
  NO_ROUTE: 'no route matches the host, path prefix and tenant',
  UPSTREAM_UNAVAILABLE: 'the upstream refused the connection, could not be reached, or dropped it mid-stream',
  UPSTREAM_TIMEOUT: 'the upstream did not answer within timeoutMs, or a stream was idle for streamIdleTimeoutMs',
  PAYLOAD_TOO_LARGE:
    "the request body exceeds the route's maxBodyBytes (default 10 MiB), or a JSON-RPC batch has more than limits.maxBatchItems requests",
  SHUTTING_DOWN: 'a stream still open when the shutdown grace period ends (retry on another replica)',
  RATE_LIMITED: "over the route's rateLimit or maxConcurrentStreams (RetryInfo; Retry-After on HTTP)",
  UPSTREAM_OVERLOADED:
    'the upstream origin already has limits.upstreamConnections unary calls (or limits.upstreamStreams streams) in flight: answered at once, not queued (RetryInfo; Retry-After on HTTP)',
  LOOP_DETECTED:
    'the call already passed through this gateway (its own id in the Via header): an upstream or a card interface leads back to the gateway',
  REQUEST_TIMEOUT:
    'the request body paused for longer than limits.bodyTimeoutMs (default 60 s); the connection is closed. gRPC: the request message not whole within it (the stream is reset); logged, too, for a call whose deadline had passed before it was handled (a plain DEADLINE_EXCEEDED, nothing sent upstream)',
  UNAUTHENTICATED:
    'missing or invalid credentials on a route with `auth` (ErrorInfo metadata `wwwAuthenticate`; the `WWW-Authenticate` header on HTTP, JSON-RPC too), or passed on from an upstream that answered UNAUTHENTICATED / 401',
  PERMISSION_DENIED: 'passed on from an upstream that answered PERMISSION_DENIED / 403',
  RESOURCE_EXHAUSTED: 'passed on from an upstream that answered RESOURCE_EXHAUSTED / 429',
  CANCELLED: 'the caller went away before the answer',
  ALREADY_EXISTS: 'passed on from an upstream that answered ALREADY_EXISTS',
  ABORTED: 'passed on from an upstream that answered ABORTED',
  OUT_OF_RANGE: 'passed on from an upstream that answered OUT_OF_RANGE',
  FAILED_PRECONDITION: 'passed on from an upstream that answered FAILED_PRECONDITION without an A2A reason',
} as const satisfies Record<ErrorName, string>;

/** docs/errors.md's error table (Markdown), one row per catalogue entry. */
export function errorTableMarkdown(): string {
  const lines = [
    '| ErrorInfo reason | JSON-RPC | gRPC | HTTP | ErrorInfo domain | when |',
    '| :-- | --: | :-- | --: | :-- | :-- |',
  ];
  for (const name of ERROR_NAMES) {
    const r = CATALOGUE[name];
    lines.push(`| \`${name}\` | ${r.jsonRpc} | ${r.grpc} | ${r.http} | ${r.domain ?? '—'} | ${WHEN[name]} |`);
  }
  return lines.join('\n');
}
