// "Try it" (issue 16): one SendMessage or SendStreamingMessage sent through
// the gateway's own public listener, over loopback, in the binding the
// operator picked — JSON-RPC (§9), HTTP+JSON (§11) or gRPC (§10) — exactly
// as an outside caller would send it (A2A-Version 1.0, the route's host and
// tenant), so every stage of the route runs. Yields what the console page
// shows: the request as curl or grpcurl and as the binding's JSON, then each
// answer or stream event as it arrives, then the end. Header values the
// operator typed are never echoed back (they may be credentials).
import { randomUUID } from 'node:crypto';
import { status as grpcCodes } from '@grpc/grpc-js';
import { fromBinary, fromJson, toBinary, type JsonValue } from '@bufbuild/protobuf';
import type { Dispatcher } from 'undici';
import { Agent, request } from '../util/undici.js';
import { MAX_TIMER_MS, type Binding, type RouteConfig } from '../config/types.js';
import { REDACTED } from '../core/secrets.js';
import { methodInfo } from '../core/methods.js';
import { statusFromBinary, writeJson, type JsonObject } from '../proto/json.js';
import { GrpcStatusError, type GrpcStatus } from '../upstream/grpc-messages.js';
import { GrpcSession, LOOPBACK_TLS } from '../upstream/grpc-session.js';
import { readSse } from '../sse/reader.js';
import { hostOnListener } from './route-view.js';

export interface TryRequest {
  route: RouteConfig;
  binding: Binding;
  stream: boolean;
  text: string;
  /** Extra request headers (gRPC metadata), e.g. the route's API key. */
  headers: Record<string, string>;
}

/** Where the gateway's public listeners are reached from inside the process. */
export interface Listeners {
  /** "http://127.0.0.1:8080" (https:// with TLS) */
  httpUrl: string;
  /** "127.0.0.1:50051" */
  grpcAddress: string;
  tls: boolean;
}

export type TryEvent =
  | { type: 'request'; binding: Binding; shown: Array<{ label: string; text: string }> }
  | { type: 'status'; status: string }
  | { type: 'event'; data: unknown }
  | { type: 'error'; message: string; data?: unknown }
  | { type: 'done' };

const MAX_EVENT_BYTES = 16 * 1024 * 1024;

/** How long the console waits for an answer: the route's timeout and 5 s, within what a timer holds. */
const waitFor = (route: RouteConfig): number => Math.min(route.timeoutMs + 5000, MAX_TIMER_MS);

/** A POSIX shell single-quoted word. */
function sq(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function curl(url: string, headers: Record<string, string>, body: string, stream: boolean): string {
  const lines = [`curl${stream ? ' -N' : ''} -X POST ${sq(url)}`];
  for (const [k, v] of Object.entries(headers)) lines.push(`  -H ${sq(`${k}: ${v}`)}`);
  lines.push(`  --data ${sq(body)}`);
  return lines.join(' \\\n');
}

/** The headers as shown: what the operator typed is masked. */
function shownHeaders(fixed: Record<string, string>, extra: Record<string, string>): Record<string, string> {
  return { ...fixed, ...Object.fromEntries(Object.keys(extra).map((k) => [k, REDACTED])) };
}

function sendMessageRequest(req: TryRequest): JsonObject {
  return {
    ...(req.route.tenant !== undefined ? { tenant: req.route.tenant } : {}),
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: req.text }] },
  };
}

/**
 * The console's clients of its own gateway's listeners: the gateway's own gRPC client (node:http2; grpc-js's could
 * leave a stream open on the wire when cancelled a few turns after it started), one TLS agent.
 */
export class TryClients {
  private readonly sessions = new Map<string, GrpcSession>();
  private agent: Agent | undefined;

  /** Loopback to the gateway's own TLS listener: its certificate names the public host, not 127.0.0.1. */
  dispatcher(l: Listeners): Dispatcher | undefined {
    if (!l.tls) return undefined;
    this.agent ??= new Agent({ connect: { rejectUnauthorized: false } });
    return this.agent;
  }

  grpc(l: Listeners): GrpcSession {
    const key = `${l.grpcAddress} ${l.tls}`;
    let s = this.sessions.get(key);
    if (!s) {
      s = new GrpcSession(l.grpcAddress, l.tls ? LOOPBACK_TLS : undefined);
      this.sessions.set(key, s);
    }
    return s;
  }

  close(): void {
    for (const s of this.sessions.values()) s.close();
    this.sessions.clear();
    void this.agent?.close();
    this.agent = undefined;
  }
}

async function* http(req: TryRequest, l: Listeners, c: TryClients, signal: AbortSignal): AsyncGenerator<TryEvent> {
  const { route, binding, stream } = req;
  const params = sendMessageRequest(req);
  const method = stream ? 'SendStreamingMessage' : 'SendMessage';
  let url: string;
  let body: string;
  const fixed: Record<string, string> = { 'a2a-version': '1.0' };
  if (binding === 'JSONRPC') {
    url = `${l.httpUrl}${route.pathPrefix || '/'}`;
    body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
    fixed['content-type'] = 'application/json';
  } else {
    const { tenant, ...rest } = params;
    const tenantPath = tenant === undefined ? '' : `/${encodeURIComponent(String(tenant))}`;
    url = `${l.httpUrl}${route.pathPrefix}${tenantPath}/message:${stream ? 'stream' : 'send'}`;
    body = JSON.stringify(rest);
    fixed['content-type'] = 'application/a2a+json';
  }
  if (stream) fixed.accept = 'text/event-stream';
  // a host-bound route's Host: its first host on the listener's port (none for port 80/443, as callers send it)
  const host: Record<string, string> = route.hosts[0]
    ? { host: hostOnListener(route.hosts[0], new URL(l.httpUrl).host) }
    : {};
  const headers = { ...fixed, ...host, ...req.headers };
  const shown = shownHeaders({ ...fixed, ...host }, req.headers);
  yield {
    type: 'request',
    binding,
    shown: [
      { label: 'curl', text: curl(url, shown, body, stream) },
      { label: binding === 'JSONRPC' ? 'JSON-RPC' : 'HTTP+JSON body', text: JSON.stringify(JSON.parse(body), null, 2) },
    ],
  };
  const d = c.dispatcher(l);
  const res = await request(url, {
    method: 'POST',
    headers,
    body,
    signal,
    ...(d ? { dispatcher: d } : {}),
    headersTimeout: waitFor(route),
    bodyTimeout: stream ? 0 : waitFor(route),
  });
  const type = String(res.headers['content-type'] ?? '');
  yield { type: 'status', status: `HTTP ${res.statusCode} ${type}` };
  if (type.startsWith('text/event-stream')) {
    for await (const e of readSse(res.body, MAX_EVENT_BYTES)) {
      const data = JSON.parse(e.data) as JsonObject;
      if (binding === 'JSONRPC' && data.error)
        yield { type: 'error', message: `JSON-RPC error ${String((data.error as JsonObject).code)}`, data: data.error };
      else if (e.event === 'error' || data.error) yield { type: 'error', message: 'stream error', data };
      else yield { type: 'event', data: binding === 'JSONRPC' ? data.result : data };
    }
    return;
  }
  const text = await res.body.text();
  let data: unknown;
  try {
    data = JSON.parse(text) as unknown;
  } catch {
    data = text;
  }
  const err = (data as JsonObject | undefined)?.error;
  if (binding === 'JSONRPC' && err) {
    const e = err as JsonObject;
    yield { type: 'error', message: `JSON-RPC error ${String(e.code)}: ${String(e.message)}`, data: err };
  } else if (res.statusCode >= 400 || err)
    yield { type: 'error', message: `HTTP ${res.statusCode}`, data: err ?? data };
  else yield { type: 'event', data: binding === 'JSONRPC' ? (data as JsonObject).result : data };
}

/** The details the status carries, when they read as a google.rpc.Status. */
function statusOf(bin: unknown): ReturnType<typeof statusFromBinary> | undefined {
  try {
    return bin instanceof Buffer ? statusFromBinary(bin) : undefined;
  } catch {
    return undefined; // the page shows the code and message without them
  }
}

function grpcFailure(s: GrpcStatus): TryEvent {
  const details = statusOf(s.metadata?.get('grpc-status-details-bin')[0]);
  // (a code past 16, which a pass-through route's agent may send, is UNKNOWN to gRPC)
  const name = grpcCodes[s.code] ?? 'UNKNOWN';
  return { type: 'error', message: `gRPC ${name} (${s.code}): ${s.details}`, data: details };
}

/** A failed call as the page's error event: a status other than OK, or an answer refused (none, torn, too large). */
function failure(e: unknown): TryEvent {
  return e instanceof GrpcStatusError ? grpcFailure(e.status) : { type: 'error', message: (e as Error).message };
}

async function* grpcCall(req: TryRequest, l: Listeners, c: TryClients, signal: AbortSignal): AsyncGenerator<TryEvent> {
  const method = methodInfo(req.stream ? 'SendStreamingMessage' : 'SendMessage');
  const params = sendMessageRequest(req);
  const authority = req.route.hosts[0];
  const metadata = { 'a2a-version': '1.0', ...req.headers };
  const shown = shownHeaders({ 'a2a-version': '1.0' }, req.headers);
  const path = `/lf.a2a.v1.A2AService/${method.name}`;
  const grpcurl = [
    `grpcurl ${l.tls ? '-insecure' : '-plaintext'}`,
    ...Object.entries(shown).map(([k, v]) => `  -H ${sq(`${k}: ${v}`)}`),
    ...(authority ? [`  -authority ${sq(authority)}`] : []),
    `  -d ${sq(JSON.stringify(params))}`,
    `  ${l.grpcAddress} lf.a2a.v1.A2AService/${method.name}`,
  ].join(' \\\n');
  yield {
    type: 'request',
    binding: 'GRPC',
    shown: [
      { label: 'grpcurl', text: grpcurl },
      { label: `${method.requestSchema.typeName} (ProtoJSON)`, text: JSON.stringify(params, null, 2) },
    ],
  };
  const body = [toBinary(method.requestSchema, fromJson(method.requestSchema, params as JsonValue))];
  // an answer as the page shows it; bytes it cannot read (an agent's, through a pass-through route) an error event
  const answer = (b: Buffer): TryEvent => {
    try {
      return { type: 'event', data: writeJson(method.responseSchema, fromBinary(method.responseSchema, b)) };
    } catch (e) {
      return { type: 'error', message: `an answer the console cannot read: ${(e as Error).message}` };
    }
  };
  const session = c.grpc(l);
  const opts = {
    metadata,
    maxMessageBytes: MAX_EVENT_BYTES,
    signal,
    ...(authority !== undefined ? { authority } : {}),
  };
  if (!req.stream) {
    const out = await session.unary(path, body, { ...opts, timeoutMs: waitFor(req.route) }, answer).catch(failure);
    yield { type: 'status', status: out.type === 'error' ? 'gRPC error' : 'gRPC OK' };
    yield out;
    return;
  }
  const call = session.call(path, body, opts);
  yield { type: 'status', status: 'gRPC stream open' };
  try {
    for await (const m of call) yield answer(m);
  } catch (e) {
    yield failure(e);
  }
}

/** The call's events as the page shows them; a failure to connect is one error event. */
export async function* tryCall(
  req: TryRequest,
  l: Listeners,
  clients: TryClients,
  signal: AbortSignal,
): AsyncGenerator<TryEvent> {
  try {
    yield* req.binding === 'GRPC' ? grpcCall(req, l, clients, signal) : http(req, l, clients, signal);
  } catch (e) {
    yield { type: 'error', message: (e as Error).message };
  }
  yield { type: 'done' };
}
