// Errors as data: an A2AError is one catalogue row plus the message and the
// google.rpc.Status details (ProtoJSON `Any` objects with "@type"), so every
// binding can write it and nothing is lost across translations (§3.3.2).
// Also the reverse lookups used when reading an upstream's error: by
// ErrorInfo reason first, by code second (including the older v1.0.0 codes).
import { CATALOGUE, ERROR_NAMES, GRPC_CODES, ROW_BY_GRPC, type ErrorName, type GrpcStatusName } from './catalogue.js';
import type { FieldViolation } from '../proto/violations.js';
import type { JsonObject } from '../proto/json.js';

export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

export class A2AError extends Error {
  override readonly name = 'A2AError';
  /** Set by an upstream client when the connection was refused: the call cannot have reached the agent. */
  connectionRefused = false;
  /** Set by an upstream client when a kept-alive connection was reset under the call (an idempotent call may be retried). */
  connectionReset = false;
  /** Set by an upstream client when the connection failed after the answer's head came: the agent had the call. */
  answerCut = false;
  /**
   * A same-binding pass-through keeps the upstream's own error as it came
   * (e.g. a gRPC status with its trailers) so the edge can relay it verbatim.
   */
  relayed: unknown = undefined;
  /**
   * What the log may know and the caller may not (an upstream's address, a
   * socket error's text): logged with the call, never answered.
   */
  internal: string | undefined = undefined;
  constructor(
    readonly errorName: ErrorName,
    message: string,
    readonly details: JsonObject[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  get row() {
    return CATALOGUE[this.errorName];
  }

  /** A new error of the catalogue, with its ErrorInfo and any extra details. */
  static of(
    name: ErrorName,
    message?: string,
    opts: { metadata?: Record<string, string>; details?: JsonObject[]; cause?: unknown; internal?: string } = {},
  ): A2AError {
    const row = CATALOGUE[name];
    const details = opts.details ?? [];
    const info = row.domain
      ? [
          {
            '@type': ERROR_INFO_TYPE,
            reason: name,
            domain: row.domain,
            ...(opts.metadata ? { metadata: opts.metadata } : {}),
          },
        ]
      : [];
    const err = new A2AError(name, message ?? row.message, [...info, ...details], { cause: opts.cause });
    err.internal = opts.internal;
    return err;
  }

  static invalidParams(violations: FieldViolation[], message?: string): A2AError {
    return A2AError.of('INVALID_PARAMS', message ?? CATALOGUE.INVALID_PARAMS.message, {
      details: [{ '@type': BAD_REQUEST_TYPE, fieldViolations: violations.map((v) => ({ ...v })) }],
    });
  }

  /**
   * An error read from an upstream (or a caller): `name` was identified by
   * the reader; A2A and gateway errors get their ErrorInfo if it was missing.
   */
  static read(name: ErrorName, message: string | undefined, details: JsonObject[]): A2AError {
    const row = CATALOGUE[name];
    const hasInfo = details.some((d) => d['@type'] === ERROR_INFO_TYPE);
    const info = row.domain && !hasInfo ? [{ '@type': ERROR_INFO_TYPE, reason: name, domain: row.domain }] : [];
    return new A2AError(name, message || row.message, [...info, ...details]);
  }
}

/**
 * The catalogue name an ErrorInfo in these details names: its reason in the domain the catalogue writes it with
 * (§10.6: A2A errors in "a2a-protocol.org", the gateway's own in its domain). A reason of another domain is that
 * service's own vocabulary ("RATE_LIMITED" at shop.example.com), read by its status code instead.
 */
export function nameFromDetails(details: JsonObject[]): ErrorName | undefined {
  for (const d of details) {
    if (d['@type'] !== ERROR_INFO_TYPE) continue;
    const reason = typeof d.reason === 'string' ? d.reason : '';
    if (!(ERROR_NAMES as string[]).includes(reason)) continue;
    const domain = CATALOGUE[reason as ErrorName].domain;
    if (domain !== null && d.domain === domain) return reason as ErrorName;
  }
  return undefined;
}

const byJsonRpc = new Map<number, ErrorName>(ERROR_NAMES.map((n) => [CATALOGUE[n].jsonRpc, n]));

export function nameFromJsonRpcCode(code: number): ErrorName {
  return byJsonRpc.get(code) ?? 'INTERNAL_ERROR';
}

export function grpcNameOf(code: number): GrpcStatusName {
  const found = (Object.keys(GRPC_CODES) as GrpcStatusName[]).find((k) => GRPC_CODES[k] === code);
  return found ?? 'UNKNOWN';
}

export function nameFromGrpc(code: GrpcStatusName): ErrorName {
  return ROW_BY_GRPC[code];
}

/** By HTTP status when a REST error gave no usable `status` name. */
const HTTP_PRIMARY: Record<number, ErrorName> = {
  400: 'INVALID_PARAMS',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'TASK_NOT_FOUND',
  405: 'METHOD_NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL_ERROR',
  503: 'UPSTREAM_UNAVAILABLE',
  504: 'UPSTREAM_TIMEOUT',
};
for (const n of ERROR_NAMES) for (const h of CATALOGUE[n].legacy?.http ?? []) HTTP_PRIMARY[h] = n;

export function nameFromHttp(status: number): ErrorName {
  return HTTP_PRIMARY[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_PARAMS');
}

export function isGrpcStatusName(s: unknown): s is GrpcStatusName {
  return typeof s === 'string' && Object.prototype.hasOwnProperty.call(GRPC_CODES, s);
}

/** Any thrown value as a catalogue error (an unexpected one is INTERNAL_ERROR, the original kept as its cause). */
export function asA2AError(e: unknown): A2AError {
  if (e instanceof A2AError) return e;
  // the text of an unexpected failure may name internal things: it is logged, not answered
  return A2AError.of('INTERNAL_ERROR', 'internal gateway error', {
    cause: e,
    internal: `gateway error: ${(e as Error)?.message ?? String(e)}`,
  });
}
