// The one access log line per request (issue 15 item 4), the same shape for
// every binding and outcome: request id, client address, A2A method, path,
// route, inbound and upstream bindings, the status the caller got (HTTP
// status or gRPC code), the outcome (OK or the catalogue error), duration,
// bytes in and out, trace id, caller identity, stream events. The line is
// written once the edge has answered (a setImmediate after the pipeline's
// answer), so the status and bytes it wrote are in it; a tap (the admin
// console) reads the same line.
import type { Logger } from 'pino';
import type { Wire } from '../http/request.js';

export interface AccessLine {
  requestId: string;
  client: string | null;
  method: string | null;
  route: string | null;
  inbound: string;
  upstream: string | null;
  outcome: string;
  error?: string;
  /** What the caller was not told (internal addresses), for the operator. */
  errorDetail?: string;
  durationMs: number;
  bytesIn: number;
  traceId?: string | undefined;
  caller?: string;
  events?: number;
  passThrough?: true;
  version?: string | null;
  upstreamVersion?: string | null;
}

/** The line as written: with what the edge recorded of its answer. */
export type AnsweredLine = AccessLine & { path?: string; status?: number; bytesOut?: number };

/** Something that reads every written line too (the admin console's last errors and endpoint health). */
export type LineTap = (line: AnsweredLine) => void;

/** Writes the line when the edge has answered: with the path, status and bytes out it recorded. */
export function logWhenAnswered(log: Logger, line: AccessLine, wire: Wire | undefined, tap?: LineTap): void {
  setImmediate(() => {
    const answered: AnsweredLine = wire
      ? { ...line, path: wire.path, status: wire.status, bytesOut: wire.bytesOut }
      : line;
    log.info(answered, 'call');
    tap?.(answered);
  });
}
