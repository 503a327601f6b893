// What an edge knows of a caller's request, shared by every inbound binding,
// the pipeline and the card service: a case-insensitive header lookup, the
// caller's view (host, peer address, verified client certificate), and the
// framework-free HTTP call and answer that the JSON-RPC and REST inbounds work
// on (src/server/http.ts makes them from node:http requests).
import type { Readable } from 'node:stream';
import type { RouteConfig } from '../config/types.js';
import type { JsonBody, PiecedBody } from '../proto/json-out.js';
import type { CallSignal } from '../util/call-signal.js';

/** Header (or gRPC metadata) lookup by lower-case name; multi-valued headers are comma-joined. */
export type HeaderGetter = (lowerName: string) => string | undefined;

/** What the gateway keeps of a verified client certificate. */
export interface PeerCertificate {
  /** Subject common name (else the first DNS subjectAltName). */
  subject: string;
  /** SHA-256 fingerprint, colon-separated hex. */
  fingerprint: string;
}

/** What the edge knows about the caller's request. */
export interface RequestView {
  /** Host header or :authority. */
  host: string | undefined;
  /** The TCP peer address. */
  remoteAddress: string | undefined;
  header: HeaderGetter;
  /** The request came to the gRPC port: `host` is the gRPC authority, not the HTTP one. */
  grpc?: boolean;
  /** A query parameter of the request URL (HTTP only). */
  query?: (name: string) => string | undefined;
  /** The client certificate verified by the listener's client CA (mTLS), if any. */
  peerCertificate?: () => PeerCertificate | undefined;
}

/** What went over the wire for one request, for its access log line (filled by the edge as it answers). */
export interface Wire {
  /** The request path (HTTP) or the gRPC method path. */
  path: string;
  /** HTTP status, or gRPC status code; 0 until answered. */
  status: number;
  bytesOut: number;
  /** The routes that served the request's calls (a batch may have several), set by the pipeline's route stage. */
  routes?: RouteConfig[];
}

/** A caller's X-Request-Id kept when it is a plain token of at most 128 characters; else the gateway makes one. */
export const REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

export interface HttpCall {
  method: string;
  /** Path below the matched route prefix. */
  path: string;
  query: URLSearchParams;
  /** The query string as it came (no "?"): a pass-through forwards it so. */
  rawQuery: string;
  header: HeaderGetter;
  body: Buffer | undefined;
  requestId: string;
  signal: CallSignal;
  /** Host, peer address and headers, for authentication and the URLs of rewritten cards. */
  view: RequestView;
  wire: Wire;
}

/** One Server-Sent Event to write (data holds no newline: it is one JSON text). */
export interface SseFrame {
  event?: string;
  /** One line of JSON; pieces made as they are written when it holds a large `raw` part (proto/json-out.ts). */
  data: string | PiecedBody;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  /** JSON text, or pieces made as they are sent when it holds a large `raw` part (proto/json-out.ts). */
  body?: JsonBody;
  /** A streamed answer: written as text/event-stream, pulled one frame at a time. */
  /** `flush`: the head goes out before the first frame (a quiet stream's first may be long in coming). */
  sse?: { frames: AsyncIterable<SseFrame>; keepAliveMs: number; flush?: boolean };
  /** A relayed upstream answer (pass-through): its head was read; its body whole, or piped as it comes. */
  relay?: Readable | Buffer;
}

/** A pass-through's answer as the edge writes it: the agent's status and passed-back headers, the body as it came. */
export function relayedAnswer(a: {
  status: number;
  headers: Record<string, string>;
  body: Readable | Buffer;
}): HttpAnswer {
  return { status: a.status, headers: a.headers, relay: a.body };
}

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** What the access log keeps of an HTTP request that never became a call. */
export function rejectedInfo(http: HttpCall, inbound: 'JSONRPC' | 'HTTP+JSON', started: bigint) {
  return {
    inbound,
    requestId: http.requestId,
    started,
    wire: http.wire,
    view: http.view,
    size: http.body?.length ?? 0,
  };
}
