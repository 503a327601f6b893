// The one access log line per request (issue 15 item 4), the same shape for
// every binding and outcome: request id, client address, A2A method, path,
// route, inbound and upstream bindings, the status the caller got (HTTP
// status or gRPC code), the outcome (OK or the catalogue error), duration,
// bytes in and out, trace id, caller identity, stream events. The lines are
// written once the edge has answered, so the status and bytes it wrote are in
// them: the lines of one event-loop turn together, on the next turn (one
// setImmediate per turn, not per call: issue 11's hot path budget); a tap
// (the admin console) reads the same lines.
import type { Logger } from 'pino';
import type { RouteConfig } from '../config/types.js';
import type { Wire } from '../http/request.js';

/** The call's RouteConfig on its line, for the line's readers in the process (a symbol key: never logged). */
export const LINE_ROUTE: unique symbol = Symbol('the route config of the call');

export interface AccessLine {
  [LINE_ROUTE]?: RouteConfig;
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

/** Writes the call lines (pino, level info) once the edge has answered: with the path, status and bytes out it recorded. */
export class AccessLog {
  /** Lines answered in this event-loop turn, each followed by its wire record (or undefined). */
  #pending: Array<AnsweredLine | Wire | undefined> = [];

  constructor(
    private readonly log: Logger,
    private readonly tap?: LineTap,
  ) {}

  /** Does anything read the lines? (When not, a call need not build one.) */
  get wanted(): boolean {
    return this.tap !== undefined || this.log.isLevelEnabled('info');
  }

  write(line: AccessLine, wire: Wire | undefined): void {
    if (this.#pending.length === 0) setImmediate(this.#flush);
    this.#pending.push(line, wire);
  }

  readonly #flush = (): void => {
    const pending = this.#pending;
    this.#pending = [];
    for (let i = 0; i < pending.length; i += 2) {
      const line = pending[i] as AnsweredLine;
      const wire = pending[i + 1] as Wire | undefined;
      if (wire) {
        line.path = wire.path;
        line.status = wire.status;
        line.bytesOut = wire.bytesOut;
      }
      this.log.info(line, 'call');
      this.tap?.(line);
    }
  };
}
