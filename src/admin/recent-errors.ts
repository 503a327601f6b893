// The last failed calls for the admin console (issue 16): a ring buffer fed
// by the access log's tap (ops/access-log.ts), newest first, each with its
// request id so an operator can find the call's log line and trace. The
// texts are the log line's: already redacted of the call's secrets.
import type { AnsweredLine } from '../ops/access-log.js';

export interface RecentError {
  at: string;
  requestId: string;
  route: string | null;
  method: string | null;
  inbound: string;
  upstream: string | null;
  outcome: string;
  /** What the caller was told. */
  error: string | undefined;
  /** What the caller was not told (an upstream's address, a socket error). */
  detail: string | undefined;
  /** HTTP status or gRPC code the caller got. */
  status: number | undefined;
  traceId: string | undefined;
}

export class RecentErrors {
  private readonly ring: RecentError[] = [];
  private next = 0;

  constructor(readonly capacity = 50) {}

  record(line: AnsweredLine): void {
    if (line.outcome === 'OK') return;
    const entry: RecentError = {
      at: new Date().toISOString(),
      requestId: line.requestId,
      route: line.route,
      method: line.method,
      inbound: line.inbound,
      upstream: line.upstream,
      outcome: line.outcome,
      error: line.error,
      detail: line.errorDetail,
      status: line.status,
      traceId: line.traceId,
    };
    if (this.ring.length < this.capacity) this.ring.push(entry);
    else this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
  }

  /** Newest first. */
  list(): RecentError[] {
    const n = this.ring.length;
    const out: RecentError[] = [];
    for (let i = 1; i <= n; i++) out.push(this.ring[(this.next - i + n) % n]!);
    return out;
  }
}
