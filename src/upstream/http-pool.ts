// Shared HTTP plumbing for the HTTP-based upstream clients (JSON-RPC and REST
// outbound): requests over the generation's keep-alive Pools for the
// upstream's origin (upstream/registry.ts: unary calls and streams each within
// their budget, on connections of their own), the request timeout, answers
// read up to the route's maxResponseBytes (past it INVALID_AGENT_RESPONSE, and
// the body is dropped), streamed bodies for SSE (pulled, so a slow caller
// slows the upstream), and transport failures turned into gateway errors
// (connection refused or dropped, TLS failure → UPSTREAM_UNAVAILABLE, timeout →
// UPSTREAM_TIMEOUT, caller gone → CANCELLED) whose answered text names no
// address (the socket error's own text is logged: A2AError.internal).
import type { Dispatcher, Pool } from 'undici';
import type { UpstreamTarget } from '../core/upstream.js';
import { A2AError } from '../errors/a2a-error.js';
import { withoutAddresses } from '../errors/addresses.js';
import { isTlsFailure } from '../tls/upstream-tls.js';
import { bytesEvent, readSse, SseEventTooLarge, type SseEvent } from '../sse/reader.js';
import { mapEvents } from '../core/event-stream.js';
import { PiecedBody, type JsonBody } from '../proto/json-out.js';
import type { UpstreamRegistry } from './registry.js';
import type { AbortLike } from '../util/call-signal.js';
import { readCapped, requestPulled } from './pulled-answer.js';

export interface UpstreamAnswer {
  status: number;
  contentType: string;
  /** The whole body (gathered-body.ts: a large one of declared length in one buffer of that length). */
  body: Buffer;
}

export interface HttpStream {
  status: number;
  contentType: string;
  /** A non-SSE answer's whole body as one "message" event (its data kept as bytes: read in place when large). */
  whole(): Promise<SseEvent>;
  /** The body as SSE events; transport failures come out as A2AErrors. */
  events(maxEventBytes: number): AsyncIterableIterator<SseEvent>;
}

export interface HttpRequestOptions {
  method: Dispatcher.HttpMethod;
  path: string;
  headers: Record<string, string>;
  body?: JsonBody;
}

/** The request as undici takes it: a pieced body is an iterable (sent as it is made), its length given. */
function sendable(opts: HttpRequestOptions): Dispatcher.DispatchOptions {
  const body = opts.body;
  if (!(body instanceof PiecedBody)) return { ...opts, body: body ?? null };
  // Dispatcher.md allows an Iterable body; undici's DispatchOptions type does not list it
  const iterable = body as unknown as Dispatcher.DispatchOptions['body'];
  return { ...opts, headers: { ...opts.headers, 'content-length': String(body.byteLength) }, body: iterable };
}

const REFUSED = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const RESET = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'EPIPE']);
const TIMEOUT = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

function codeOf(e: unknown): string {
  const err = e as { code?: string; cause?: { code?: string } };
  return err?.code ?? err?.cause?.code ?? '';
}

/** A header's first value ('' when absent). */
function headerValue(v: string | string[] | undefined): string {
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

export function isEventStream(contentType: string): boolean {
  return contentType.toLowerCase().startsWith('text/event-stream');
}

/**
 * A transport failure of an HTTP upstream call (undici) as a gateway error:
 * timeout, cancel, TLS failure (with its reason), refused/reset/dropped
 * connection (flagged for fallback and retry), anything else unavailable.
 */
export function transportFailure(
  e: unknown,
  signal: AbortLike,
  timedOut: boolean,
  stage: 'request' | 'body',
  timeoutMs: number,
): A2AError {
  if (e instanceof A2AError) return e;
  const code = codeOf(e);
  if (timedOut || TIMEOUT.has(code))
    return A2AError.of('UPSTREAM_TIMEOUT', `upstream did not answer within ${timeoutMs} ms`);
  if (signal.aborted) return A2AError.of('CANCELLED', 'the call was cancelled');
  // the socket error's text names the upstream's address: answered without it, logged whole
  const text = (e as Error)?.message ?? String(e);
  const internal = `${code ? `${code}: ` : ''}${text}`;
  const shown = withoutAddresses(text);
  if (isTlsFailure(`${code} ${text}`))
    return A2AError.of('UPSTREAM_UNAVAILABLE', `upstream TLS failure: ${shown} (${code})`, { internal });
  if (REFUSED.has(code) || stage === 'body') {
    const err = A2AError.of(
      'UPSTREAM_UNAVAILABLE',
      stage === 'body' ? `upstream connection dropped mid-stream (${code || shown})` : `upstream unreachable (${code})`,
      { internal },
    );
    err.connectionRefused = code === 'ECONNREFUSED';
    err.connectionReset = stage === 'request' && RESET.has(code);
    err.answerCut = stage === 'body';
    return err;
  }
  return A2AError.of('UPSTREAM_UNAVAILABLE', `upstream request failed: ${shown}`, { internal });
}

export class HttpPool {
  private readonly pool: Pool;
  private readonly streams: Pool;
  private readonly origin: string;
  /** Path of the base URL without a trailing slash ("" for the origin). */
  readonly basePath: string;

  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;

  constructor(
    target: UpstreamTarget,
    private readonly upstreams: UpstreamRegistry,
  ) {
    const u = new URL(target.url);
    this.origin = u.origin;
    this.pool = upstreams.httpPool(u.origin, target.tls);
    this.streams = upstreams.httpPool(u.origin, target.tls, 'stream');
    this.timeoutMs = target.timeoutMs;
    this.maxResponseBytes = target.maxResponseBytes;
    this.basePath = u.pathname.replace(/\/+$/, '');
  }

  private failure(e: unknown, signal: AbortLike, timedOut: boolean, stage: 'request' | 'body'): A2AError {
    return transportFailure(e, signal, timedOut, stage, this.timeoutMs);
  }

  /** A unary request: the whole answer within the timeout, gathered as it arrives (pulled-answer.ts). */
  request(opts: HttpRequestOptions, signal: AbortLike): Promise<UpstreamAnswer> {
    const answer = requestPulled(this.pool, sendable(opts), {
      signal,
      timeoutMs: this.timeoutMs,
      gather: true,
      maxBytes: this.maxResponseBytes,
      admit: () => this.upstreams.admit(this.origin, 'unary'),
      failure: (e, timedOut) => this.failure(e, signal, timedOut, 'request'),
    });
    return answer.then((res) => ({
      status: res.status,
      contentType: headerValue(res.headers['content-type']),
      body: res.body,
    }));
  }

  /**
   * A streaming request (pulled-answer.ts): the timeout covers only the wait
   * for the answer's head, connecting included; the body is read as the
   * caller pulls (no overall timeout; the dispatcher applies the route's idle
   * timeout per event).
   */
  async open(opts: HttpRequestOptions, signal: AbortLike): Promise<HttpStream> {
    const res = await requestPulled(this.streams, sendable(opts), {
      signal,
      timeoutMs: this.timeoutMs,
      // the stream's budget is held until its body is done with (read, failed or dropped)
      admit: () => this.upstreams.admit(this.origin, 'stream'),
      failure: (e, timedOut, stage) => this.failure(e, signal, timedOut, stage),
    });
    const body = res.body;
    const headers = res.headers;
    const max = this.maxResponseBytes;
    const fail = (e: unknown): A2AError => {
      if (e instanceof SseEventTooLarge) return A2AError.of('INVALID_AGENT_RESPONSE', `upstream stream: ${e.message}`);
      return this.failure(e, signal, false, 'body');
    };
    return {
      status: res.status,
      contentType: headerValue(res.headers['content-type']),
      whole: async () => {
        try {
          return bytesEvent('message', await readCapped(body, headers, max));
        } catch (e) {
          throw fail(e);
        } finally {
          if (!body.destroyed) body.destroy();
        }
      },
      events: (maxEventBytes: number) =>
        mapEvents<SseEvent>({
          open: () => readSse(body, maxEventBytes),
          error: fail,
          close: () => {
            if (!body.destroyed) body.destroy();
          },
        }),
    };
  }
}
