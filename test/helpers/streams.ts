// Raw streaming callers for each inbound binding: what came over the wire,
// event by event, and how the stream ended (clean, or the error and where).
import * as grpc from '@grpc/grpc-js';
import { request } from 'undici';
import type { Binding } from '../../src/config/types.js';
import type { MethodName } from '../../src/core/methods.js';
import type { JsonObject } from '../../src/proto/json.js';
import { requestBytes, responseJson, statusJson } from './codec.js';
import type { RunningGateway } from '../../src/server/gateway.js';
import type { CallOptions } from './harness.js';
import { TestSseParser } from './sse.js';

export interface StreamResult {
  /** StreamResponse JSON of every event, in order. */
  events: JsonObject[];
  /** The error that ended the stream (before or after events), normalized. */
  error?: { code: number | string; message: string; details: JsonObject[]; afterEvents: boolean };
  httpStatus?: number;
  contentType?: string;
  /** The SSE events as the test's own parser read them (HTTP bindings). */
  frames?: Array<{ event: string; data: string }>;
}

export type StreamMethod = Extract<MethodName, 'SendStreamingMessage' | 'SubscribeToTask'>;
/** `take`: hang up after this many events (the caller goes away). */
/** `signal`: the caller goes away when it is aborted. */
export type StreamOptions = CallOptions & { take?: number; onEvent?: (count: number) => void; signal?: AbortSignal };
let id = 1000;

async function readFrames(
  body: AsyncIterable<Buffer>,
  take: number,
  hangUp: () => void,
  onEvent?: (n: number) => void,
): Promise<Array<{ event: string; data: string }>> {
  const parser = new TestSseParser();
  const out: Array<{ event: string; data: string }> = [];
  const add = (events: Array<{ event: string; data: string }>) => {
    for (const ev of events) {
      out.push(ev);
      onEvent?.(out.length);
    }
  };
  try {
    for await (const chunk of body) {
      add(parser.push(chunk));
      if (out.length >= take) {
        hangUp();
        return out;
      }
    }
    add(parser.end());
  } catch (e) {
    if (out.length < take) throw e;
  }
  return out;
}

export async function streamJsonRpc(
  gw: RunningGateway,
  method: StreamMethod,
  params: JsonObject,
  opts: StreamOptions,
): Promise<StreamResult> {
  const reqId = ++id;
  const ac = new AbortController();
  opts.signal?.addEventListener('abort', () => ac.abort(), { once: true });
  const res = await request(`${gw.httpUrl}${opts.prefix}`, {
    method: 'POST',
    signal: ac.signal,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'a2a-version': '1.0', ...opts.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: reqId, method, params: { ...params, tenant: opts.tenant } }),
  });
  const contentType = String(res.headers['content-type'] ?? '');
  const out: StreamResult = { events: [], httpStatus: res.statusCode, contentType };
  if (!contentType.startsWith('text/event-stream')) {
    const body = (await res.body.json()) as JsonObject;
    const err = body.error as JsonObject;
    out.error = {
      code: err.code as number,
      message: err.message as string,
      details: (err.data as JsonObject[]) ?? [],
      afterEvents: false,
    };
    return out;
  }
  out.frames = await readFrames(
    res.body as AsyncIterable<Buffer>,
    opts.take ?? Infinity,
    () => ac.abort(),
    opts.onEvent,
  );
  for (const f of out.frames) {
    const msg = JSON.parse(f.data) as JsonObject;
    if (msg.id !== reqId) throw new Error(`event with id ${String(msg.id)}, expected ${reqId}`);
    if (msg.error) {
      const err = msg.error as JsonObject;
      out.error = {
        code: err.code as number,
        message: err.message as string,
        details: (err.data as JsonObject[]) ?? [],
        afterEvents: true,
      };
    } else out.events.push(msg.result as JsonObject);
  }
  return out;
}

export async function streamRest(
  gw: RunningGateway,
  method: StreamMethod,
  params: JsonObject,
  opts: StreamOptions & { verb?: 'GET' | 'POST' },
): Promise<StreamResult> {
  const ac = new AbortController();
  opts.signal?.addEventListener('abort', () => ac.abort(), { once: true });
  const tenant = opts.tenant ? `/${encodeURIComponent(opts.tenant)}` : '';
  const path =
    method === 'SendStreamingMessage' ? '/message:stream' : `/tasks/${encodeURIComponent(String(params.id))}:subscribe`;
  const verb = method === 'SendStreamingMessage' ? 'POST' : (opts.verb ?? 'POST');
  const res = await request(`${gw.httpUrl}${opts.prefix}${tenant}${path}`, {
    method: verb,
    signal: ac.signal,
    headers: {
      accept: 'text/event-stream',
      'a2a-version': '1.0',
      ...(method === 'SendStreamingMessage' ? { 'content-type': 'application/a2a+json' } : {}),
      ...opts.headers,
    },
    ...(method === 'SendStreamingMessage' ? { body: JSON.stringify(params) } : {}),
  });
  const contentType = String(res.headers['content-type'] ?? '');
  const out: StreamResult = { events: [], httpStatus: res.statusCode, contentType };
  if (!contentType.startsWith('text/event-stream')) {
    const err = ((await res.body.json()) as JsonObject).error as JsonObject;
    out.error = {
      code: err.status as string,
      message: err.message as string,
      details: (err.details as JsonObject[]) ?? [],
      afterEvents: false,
    };
    return out;
  }
  out.frames = await readFrames(
    res.body as AsyncIterable<Buffer>,
    opts.take ?? Infinity,
    () => ac.abort(),
    opts.onEvent,
  );
  for (const f of out.frames) {
    const msg = JSON.parse(f.data) as JsonObject;
    if (f.event === 'error') {
      const err = msg.error as JsonObject;
      out.error = {
        code: err.status as string,
        message: err.message as string,
        details: (err.details as JsonObject[]) ?? [],
        afterEvents: true,
      };
    } else out.events.push(msg);
  }
  return out;
}

export function grpcStreamCall(
  gw: RunningGateway,
  method: StreamMethod,
  params: JsonObject,
  opts: CallOptions,
): grpc.ClientReadableStream<Buffer> {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries({ 'a2a-version': '1.0', ...opts.headers })) md.set(k, v);
  const client = new grpc.Client(gw.grpcAddress, grpc.credentials.createInsecure());
  const call = client.makeServerStreamRequest(
    `/lf.a2a.v1.A2AService/${method}`,
    (b: Buffer) => b,
    (b: Buffer) => b,
    requestBytes(method, { ...params, tenant: opts.tenant }),
    md,
    {},
  );
  call.on('close', () => client.close());
  call.on('error', () => client.close());
  return call;
}

export async function streamGrpc(
  gw: RunningGateway,
  method: StreamMethod,
  params: JsonObject,
  opts: StreamOptions,
): Promise<StreamResult> {
  const call = grpcStreamCall(gw, method, params, opts);
  const out: StreamResult = { events: [] };
  try {
    for await (const bytes of call as AsyncIterable<Buffer>) {
      out.events.push(responseJson(method, bytes));
      opts.onEvent?.(out.events.length);
      if (out.events.length >= (opts.take ?? Infinity)) {
        call.cancel();
        return out;
      }
    }
  } catch (e) {
    const err = e as grpc.ServiceError;
    const status = statusJson(err.metadata?.get('grpc-status-details-bin')[0] as Buffer | undefined);
    out.error = {
      code: err.code,
      message: err.details,
      details: (status.details as JsonObject[]) ?? [],
      afterEvents: out.events.length > 0,
    };
  }
  return out;
}

export type StreamCaller = (
  gw: RunningGateway,
  method: StreamMethod,
  params: JsonObject,
  opts: StreamOptions,
) => Promise<StreamResult>;
export const STREAM_CALLERS: Record<Binding, StreamCaller> = {
  JSONRPC: streamJsonRpc,
  'HTTP+JSON': streamRest,
  GRPC: streamGrpc,
};
