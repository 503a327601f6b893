// Test harness: real SDK agents (every binding) behind a real gateway, all on
// 127.0.0.1 port 0, plus raw callers for each inbound binding that return
// what went over the wire.
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { request } from 'undici';
import { routeFromRaw } from '../../src/config/load.js';
import type { Binding, GatewayConfig } from '../../src/config/types.js';
import { methodInfo, type MethodName } from '../../src/core/methods.js';
import { startEchoAgent, type RunningAgent } from '../../examples/demo-agent/echo-agent.js';
import type { Json, JsonObject } from '../../src/proto/json.js';
import { requestBytes, responseJson, statusJson } from './codec.js';
import { BOUND_MS } from './wait.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';

export const BINDINGS: Binding[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
export const slug = (b: Binding): string => ({ JSONRPC: 'jsonrpc', 'HTTP+JSON': 'rest', GRPC: 'grpc' })[b];

export interface Harness {
  gateway: RunningGateway;
  agent: RunningAgent;
  noPushAgent: RunningAgent;
  close(): Promise<void>;
}

export function gatewayConfig(
  routes: Parameters<typeof routeFromRaw>[0][],
  extra: Partial<GatewayConfig> = {},
): GatewayConfig {
  return {
    source: '<test>',
    host: '127.0.0.1',
    httpPort: 0,
    grpcPort: 0,
    tls: undefined,
    publicHttpUrl: undefined,
    publicGrpcAddress: undefined,
    logLevel: 'silent',
    trustedProxies: [],
    admin: undefined,
    grpcReflection: true,
    shutdownGraceMs: 10_000,
    tracing: undefined,
    routes: routes.map((r) => routeFromRaw(r)),
    ...extra,
  };
}

/**
 * Routes "up-<binding>" (tenant "up-<binding>") to an agent with every
 * capability, and "nopush-<binding>" to one without push notifications and
 * streaming; upstream tenant cleared.
 */
export async function startHarness(): Promise<Harness> {
  const agent = await startEchoAgent({ bindings: BINDINGS, pushNotifications: true, extendedAgentCard: true });
  const noPushAgent = await startEchoAgent({
    bindings: BINDINGS,
    pushNotifications: false,
    streaming: false,
    name: 'No Push Agent',
  });
  // A gRPC agent publishes its card elsewhere: here, on the same agent's HTTP side.
  const cardOf = (a: RunningAgent, b: Binding) =>
    b === 'GRPC' ? { card: { url: `${a.httpUrl}/.well-known/agent-card.json` } } : {};
  const routes = BINDINGS.flatMap((b) => [
    {
      name: `up-${slug(b)}`,
      match: { pathPrefix: `/up-${slug(b)}`, tenant: `up-${slug(b)}` },
      upstream: { url: agent.urlFor(b), binding: b, tenant: 'clear' },
      forwardHeaders: ['x-allowed'],
      timeoutMs: 30_000,
      ...cardOf(agent, b),
    },
    {
      name: `nopush-${slug(b)}`,
      match: { pathPrefix: `/nopush-${slug(b)}`, tenant: `nopush-${slug(b)}` },
      upstream: { url: noPushAgent.urlFor(b), binding: b, tenant: 'clear' },
      timeoutMs: 30_000,
      ...cardOf(noPushAgent, b),
    },
  ]);
  const gateway = await startGateway(gatewayConfig(routes), pino({ level: 'silent' }));
  return {
    gateway,
    agent,
    noPushAgent,
    async close() {
      await gateway.close();
      await agent.close();
      await noPushAgent.close();
    },
  };
}

/** What a caller saw, normalized across bindings for assertions. */
export interface WireResult {
  ok: boolean;
  /** The typed response as ProtoJSON (ok) */
  result?: JsonObject;
  /** JSON-RPC error code / HTTP status / gRPC code of an error. */
  code?: number;
  message?: string;
  /** REST error.status */
  status?: string;
  details?: JsonObject[];
  httpStatus?: number;
  /** HTTP response headers (HTTP bindings). */
  headers?: Record<string, string | string[] | undefined>;
  raw?: unknown;
}

export interface CallOptions {
  headers?: Record<string, string>;
  tenant: string;
  prefix: string;
}

let rpcId = 0;

export async function callJsonRpc(
  gw: RunningGateway,
  method: MethodName,
  params: JsonObject,
  opts: CallOptions,
): Promise<WireResult> {
  const res = await request(`${gw.httpUrl}${opts.prefix}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...opts.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params: { ...params, tenant: opts.tenant } }),
  });
  const body = (await res.body.json()) as JsonObject;
  const err = body.error as JsonObject | undefined;
  if (err)
    return {
      ok: false,
      code: err.code as number,
      message: err.message as string,
      details: (err.data as JsonObject[]) ?? [],
      httpStatus: res.statusCode,
      headers: res.headers,
      raw: body,
    };
  return { ok: true, result: body.result as JsonObject, httpStatus: res.statusCode, headers: res.headers, raw: body };
}

/** REST call built the way §11.3/§11.5 say, from the method's http rule. */
export async function callRest(
  gw: RunningGateway,
  method: MethodName,
  params: JsonObject,
  opts: CallOptions,
): Promise<WireResult> {
  const info = methodInfo(method);
  const rule = info.httpRules.find((r) => r.pattern.startsWith('/{tenant}') === (opts.tenant !== ''))!;
  let path = rule.pattern;
  const bound = new Set<string>(['tenant']);
  for (const m of rule.pattern.matchAll(/\{([a-z_]+)(?:=\*)?\}/g)) {
    const field = m[1]!.replace(/_([a-z])/g, (_x, c: string) => c.toUpperCase());
    bound.add(field);
    const value = field === 'tenant' ? opts.tenant : String(params[field] ?? '');
    path = path.replace(m[0], encodeURIComponent(value));
  }
  const q = new URLSearchParams();
  if (rule.body === undefined) for (const [k, v] of Object.entries(params)) if (!bound.has(k)) q.append(k, String(v));
  const qs = q.toString();
  const res = await request(`${gw.httpUrl}${opts.prefix}${path}${qs ? `?${qs}` : ''}`, {
    method: rule.verb,
    headers: {
      'a2a-version': '1.0',
      ...(rule.body !== undefined ? { 'content-type': 'application/a2a+json' } : {}),
      ...opts.headers,
    },
    ...(rule.body !== undefined ? { body: JSON.stringify(params) } : {}),
  });
  const text = await res.body.text();
  const body = JSON.parse(text) as JsonObject;
  const err = body.error as JsonObject | undefined;
  if (res.statusCode >= 400) {
    return {
      ok: false,
      code: err?.code as number,
      status: err?.status as string,
      message: err?.message as string,
      details: (err?.details as JsonObject[]) ?? [],
      httpStatus: res.statusCode,
      headers: res.headers,
      raw: body,
    };
  }
  return { ok: true, result: body, httpStatus: res.statusCode, headers: res.headers, raw: res.headers['content-type'] };
}

const grpcClients = new Map<string, grpc.Client>();
function grpcClient(address: string): grpc.Client {
  let c = grpcClients.get(address);
  if (!c) {
    c = new grpc.Client(address, grpc.credentials.createInsecure());
    grpcClients.set(address, c);
  }
  return c;
}
export function closeGrpcClients(): void {
  for (const c of grpcClients.values()) c.close();
  grpcClients.clear();
}

/** Raw gRPC unary call: the request is protobuf-encoded from ProtoJSON; errors decoded from the trailer bytes. */
export function callGrpcRaw(
  address: string,
  method: MethodName,
  body: Buffer,
  metadata: Record<string, string>,
  path = `/lf.a2a.v1.A2AService/${method}`,
): Promise<{ err?: grpc.ServiceError; value?: Buffer }> {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(metadata)) md.set(k, v);
  return new Promise((resolve) => {
    grpcClient(address).makeUnaryRequest(
      path,
      (b: Buffer) => b,
      (b: Buffer) => b,
      body,
      md,
      (err, value) => resolve(err ? { err } : { value: value! }),
    );
  });
}

/**
 * A raw gRPC call's final status (unary or a server stream, its messages dropped); DEADLINE_EXCEEDED after
 * `deadlineMs` (the tests' bound on any wait) is a call never answered.
 */
export function grpcStatusOf(
  client: grpc.Client,
  path: string,
  body: Buffer,
  streaming: boolean,
  metadata = new grpc.Metadata(),
  deadlineMs = BOUND_MS,
): Promise<grpc.StatusObject> {
  const raw = (b: Buffer): Buffer => b;
  const opts = { deadline: Date.now() + deadlineMs };
  return new Promise((resolve) => {
    const call = streaming
      ? client.makeServerStreamRequest(path, raw, raw, body, metadata, opts)
      : client.makeUnaryRequest(path, raw, raw, body, metadata, opts, () => undefined);
    if (streaming) {
      const stream = call as grpc.ClientReadableStream<Buffer>;
      stream.on('data', () => undefined);
      stream.on('error', () => undefined); // the status says it
    }
    call.on('status', resolve);
  });
}

export async function callGrpc(
  gw: RunningGateway,
  method: MethodName,
  params: JsonObject,
  opts: CallOptions,
): Promise<WireResult> {
  const bytes = requestBytes(method, { ...params, tenant: opts.tenant });
  const { err, value } = await callGrpcRaw(gw.grpcAddress, method, bytes, { 'a2a-version': '1.0', ...opts.headers });
  if (err) {
    const status = statusJson(err.metadata.get('grpc-status-details-bin')[0] as Buffer | undefined);
    return {
      ok: false,
      code: err.code,
      message: err.details,
      details: (status.details as JsonObject[]) ?? [],
      raw: status,
    };
  }
  return {
    ok: true,
    result: responseJson(method, value!),
  };
}

export type Caller = (
  gw: RunningGateway,
  method: MethodName,
  params: JsonObject,
  opts: CallOptions,
) => Promise<WireResult>;
export const CALLERS: Record<Binding, Caller> = { JSONRPC: callJsonRpc, 'HTTP+JSON': callRest, GRPC: callGrpc };

export function userMessage(text: string, extra: JsonObject = {}): Json {
  return { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}
