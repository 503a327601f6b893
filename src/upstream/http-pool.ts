// Shared HTTP plumbing for the HTTP-based upstream clients (JSON-RPC and REST
// outbound): one undici keep-alive Pool per upstream origin, the request
// timeout, and transport failures turned into gateway errors
// (connection refused → UPSTREAM_UNAVAILABLE, timeout → UPSTREAM_TIMEOUT).
import { Pool, type Dispatcher } from 'undici';
import { A2AError } from '../errors/a2a-error.js';

export interface HttpAnswer {
  status: number;
  contentType: string;
  text: string;
}

const REFUSED = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const TIMEOUT = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

function codeOf(e: unknown): string {
  const err = e as { code?: string; cause?: { code?: string } };
  return err?.code ?? err?.cause?.code ?? '';
}

export class HttpPool {
  private readonly pool: Pool;
  /** Path of the base URL without a trailing slash ("" for the origin). */
  readonly basePath: string;

  constructor(baseUrl: string, private readonly timeoutMs: number) {
    const u = new URL(baseUrl);
    this.pool = new Pool(u.origin, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });
    this.basePath = u.pathname.replace(/\/+$/, '');
  }

  async request(
    opts: { method: Dispatcher.HttpMethod; path: string; headers: Record<string, string>; body?: string },
    signal: AbortSignal,
  ): Promise<HttpAnswer> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const both = AbortSignal.any([signal, timeout]);
    try {
      const res = await this.pool.request({
        method: opts.method,
        path: opts.path,
        headers: opts.headers,
        body: opts.body ?? null,
        signal: both,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const text = await res.body.text();
      const ct = res.headers['content-type'];
      return { status: res.statusCode, contentType: (Array.isArray(ct) ? ct[0] : ct) ?? '', text };
    } catch (e) {
      const code = codeOf(e);
      if (timeout.aborted || TIMEOUT.has(code)) {
        throw A2AError.of('UPSTREAM_TIMEOUT', `upstream did not answer within ${this.timeoutMs} ms`);
      }
      if (signal.aborted) throw A2AError.of('CANCELLED', 'the caller cancelled the call');
      if (REFUSED.has(code)) throw A2AError.of('UPSTREAM_UNAVAILABLE', `upstream unreachable (${code})`);
      throw A2AError.of('UPSTREAM_UNAVAILABLE', `upstream request failed: ${(e as Error).message}`);
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** Parses an upstream body as JSON, or undefined if it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
