// The framework-free shape of an HTTP call that the JSON-RPC and REST inbound
// handlers work on; src/server/http.ts adapts fastify to it. Keeps transport
// handlers independent of the web framework.
import type { RequestView } from '../card/public-address.js';
import type { RouteConfig } from '../config/types.js';
import type { HeaderGetter } from '../core/service-params.js';

export interface HttpCall {
  method: string;
  /** Path below the matched route prefix. */
  path: string;
  query: URLSearchParams;
  header: HeaderGetter;
  body: Buffer | undefined;
  requestId: string;
  signal: AbortSignal;
  /** Host, peer address and headers, for the URLs of rewritten cards. */
  view: RequestView;
}

/** One Server-Sent Event to write (data holds no newline: it is one JSON text). */
export interface SseFrame {
  event?: string;
  data: string;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body?: string;
  /** A streamed answer: written as text/event-stream, pulled one frame at a time. */
  sse?: { frames: AsyncIterable<SseFrame>; keepAliveMs: number };
}

/** Routes whose prefix matched, most specific first; the handler picks by tenant. */
export type RouteCandidates = readonly RouteConfig[];

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}
