// The gRPC listener's per-call limits, as a grpc-js server interceptor (it
// sees every call — the A2A services', health's and reflection's — before its
// handler runs), in the caller's own binding (docs/security.md, Limits):
// - a request that has not arrived whole (the caller's half-close) within
//   limits.bodyTimeoutMs is ended with REQUEST_TIMEOUT and its stream reset,
//   so a caller cannot hold a part-sent message, or a stream, for ever;
// - a call whose deadline (grpc-timeout) has passed when its handler would
//   start is refused with DEADLINE_EXCEEDED: nothing goes upstream;
// - at the deadline, a call whose answer is stuck behind a caller that does
//   not read is reset (RST_STREAM CANCEL): grpc-js's own deadline only queues
//   its trailers after that data, so the call, and its upstream call, would
//   stay open. The reset ends the call in grpc-js ('cancelled'), which aborts
//   the pipeline's call (inbound.ts), and so resets the upstream call too.
// grpc-js keeps a call's HTTP/2 stream on its base call (`stream`, private in
// its typings); without it the statuses still go out, but nothing is reset.
import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { A2AError } from '../../errors/a2a-error.js';
import { GRPC_CODES } from '../../errors/catalogue.js';
import { GRPC_DIALECTS } from './dialects.js';

type Status = Parameters<grpc.ServerInterceptingCallInterface['sendStatus']>[0];
/** A call ended before its handler ran: the error, the method path, the peer, and how long the call had been open. */
export type Refused = (err: A2AError, path: string, peer: string, openMs: number) => void;

const { NGHTTP2_NO_ERROR, NGHTTP2_CANCEL } = http2.constants;
/** The longest delay a Node timer takes (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** What grpc-js sends at a deadline: the same whichever of its timer and this one fires first. */
const DEADLINE_EXCEEDED: Status = { code: grpc.status.DEADLINE_EXCEEDED, details: 'Deadline exceeded' };

/** The HTTP/2 stream of grpc-js's base call (the one the first interceptor wraps). */
function streamOf(call: grpc.ServerInterceptingCallInterface): http2.ServerHttp2Stream | undefined {
  const stream = (call as { stream?: Partial<http2.ServerHttp2Stream> }).stream;
  return typeof stream?.close === 'function' && typeof stream.writableLength === 'number'
    ? (stream as http2.ServerHttp2Stream)
    : undefined;
}

/** An A2A error as the method's service writes it (1.0, 0.3); a plain status for the other services. */
function statusOf(path: string, err: A2AError): Status {
  const d = GRPC_DIALECTS.find((x) => path.startsWith(`/${x.service}/`));
  const s = d?.error(err);
  return { code: s?.code ?? GRPC_CODES[err.row.grpc], details: s?.details ?? err.message, metadata: s?.metadata };
}

const deadlineMs = (d: grpc.Deadline): number => (typeof d === 'number' ? d : d.getTime());

/** One call's limits: its timers, and what it takes to end the call (state on one object, no closure per timer). */
class Guard {
  halfClosed = false;
  bodyTimer: NodeJS.Timeout | undefined;
  deadlineTimer: NodeJS.Timeout | undefined;
  call!: grpc.ServerInterceptingCall;
  readonly stream: http2.ServerHttp2Stream | undefined;
  readonly deadline: number;

  constructor(
    readonly method: grpc.ServerMethodDefinition<unknown, unknown>,
    readonly next: grpc.ServerInterceptingCallInterface,
    readonly refused: Refused | undefined,
  ) {
    this.stream = streamOf(next);
    this.deadline = deadlineMs(next.getDeadline());
  }

  clear(): void {
    clearTimeout(this.bodyTimer);
    clearTimeout(this.deadlineTimer);
  }

  /** Ends the call with `status`; resets its stream when the status cannot end it. */
  end(status: Status): void {
    this.clear();
    const stream = this.stream;
    const trailersOnly = stream !== undefined && !stream.headersSent;
    this.call.sendStatus(status);
    if (!stream || stream.closed) return;
    // the answer is stuck behind a caller that does not read: no trailers can follow it
    if (stream.writableLength > 0) stream.close(NGHTTP2_CANCEL);
    // answered in full before the request ended: the caller is told to stop sending it (RFC 9113 §8.1)
    else if (trailersOnly && !this.halfClosed) stream.close(NGHTTP2_NO_ERROR);
  }

  refuse(err: A2AError, status: Status, openMs: number): void {
    this.end(status);
    this.refused?.(err, this.method.path, this.next.getPeer(), openMs);
  }

  /** The request is whole: the handler runs, unless the call's deadline has passed already. */
  halfClose(handle: () => void): void {
    this.halfClosed = true;
    clearTimeout(this.bodyTimer);
    if (this.deadline === Infinity || this.deadline > Date.now()) return handle();
    const err = A2AError.of('REQUEST_TIMEOUT', "the call's deadline had passed before it was handled");
    this.refuse(err, DEADLINE_EXCEEDED, 0);
  }

  /** grpc-js ended the call: its status is sent, or its stream closed. */
  cancelled(): void {
    this.clear();
    const stream = this.stream;
    // ended before the request was whole (grpc-js's deadline, a message over the size limit): the caller stops sending
    if (!this.halfClosed && !this.method.requestStream && stream && !stream.closed) stream.close(NGHTTP2_NO_ERROR);
  }
}

function bodyTimedOut(g: Guard, ms: number): void {
  const err = A2AError.of('REQUEST_TIMEOUT', `the request message did not arrive whole within ${ms} ms`);
  g.refuse(err, statusOf(g.method.path, err), ms);
}

const deadlinePassed = (g: Guard): void => g.end(DEADLINE_EXCEEDED);

/** The interceptor: the request's time limit and the caller's deadline, for every call of the listener. */
export function callLimits(bodyTimeoutMs: number, refused?: Refused): grpc.ServerInterceptor {
  return (method, next) => {
    const g = new Guard(method, next, refused);
    g.call = new grpc.ServerInterceptingCall(next, {
      start: (go) => go({ onReceiveHalfClose: (handle) => g.halfClose(handle), onCancel: () => g.cancelled() }),
    });
    // a client or bidi stream's request runs as long as the call: only its deadline bounds it
    if (!method.requestStream) g.bodyTimer = setTimeout(bodyTimedOut, bodyTimeoutMs, g, bodyTimeoutMs).unref();
    if (g.deadline !== Infinity) {
      const wait = g.deadline - Date.now();
      if (wait < MAX_TIMER_MS) g.deadlineTimer = setTimeout(deadlinePassed, Math.max(0, wait), g).unref();
    }
    return g.call;
  };
}
