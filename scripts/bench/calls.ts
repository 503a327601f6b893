// What one benchmark call looks like on each binding, direct to the upstream
// or through a gateway route: the HTTP request for autocannon, or the gRPC
// path, bytes and metadata for the grpc-js loop; and the streaming probes
// (time to first event, events/s, idle streams).
import * as grpc from '@grpc/grpc-js';
import { request } from 'undici';
import type { Binding } from '../../src/config/types.js';
import { fromJson, toBinary, type JsonValue } from '@bufbuild/protobuf';
import { methodInfo, type MethodName } from '../../src/core/methods.js';
import type { JsonObject } from '../../src/proto/json.js';
import type { GrpcLoad, HttpLoad } from './load.js';

export type Target = { kind: 'http'; load: HttpLoad } | { kind: 'grpc'; load: GrpcLoad };

/** Where a call goes: an upstream's own URL, or a gateway route (prefix + tenant) / host. */
export interface Endpoint {
  http: string;
  grpc: string;
  prefix: string;
  tenant: string;
  authority?: string;
}

export function params(method: MethodName, text = 'hi', raw?: string): JsonObject {
  if (method === 'GetTask') return { id: 'bench-task' };
  return {
    message: {
      messageId: 'm-bench',
      role: 'ROLE_USER',
      parts: [raw ? { raw, mediaType: 'application/octet-stream' } : { text }],
    },
  };
}

const HEADERS = { 'a2a-version': '1.0' };

export function target(binding: Binding, method: MethodName, e: Endpoint, p: JsonObject = params(method)): Target {
  const withTenant = e.tenant ? { ...p, tenant: e.tenant } : p;
  if (binding === 'JSONRPC') {
    return {
      kind: 'http',
      load: {
        url: `${e.http}${e.prefix}`,
        method: 'POST',
        headers: { ...HEADERS, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: withTenant }),
      },
    };
  }
  if (binding === 'HTTP+JSON') {
    const base = `${e.http}${e.prefix}${e.tenant ? `/${e.tenant}` : ''}`;
    if (method === 'GetTask')
      return { kind: 'http', load: { url: `${base}/tasks/bench-task`, method: 'GET', headers: HEADERS } };
    const path = method === 'SendStreamingMessage' ? '/message:stream' : '/message:send';
    return {
      kind: 'http',
      load: {
        url: `${base}${path}`,
        method: 'POST',
        headers: { ...HEADERS, 'content-type': 'application/json' },
        body: JSON.stringify(p),
      },
    };
  }
  const schema = methodInfo(method).requestSchema;
  const body = Buffer.from(toBinary(schema, fromJson(schema, withTenant as JsonValue)));
  return {
    kind: 'grpc',
    load: { address: e.grpc, method, body, metadata: HEADERS, ...(e.authority ? { authority: e.authority } : {}) },
  };
}

/** A gRPC channel to a target's address, for streams opened on it one after another (openStream). */
export function grpcChannel(t: Target): grpc.Client {
  if (t.kind !== 'grpc') throw new Error('not a gRPC target');
  return new grpc.Client(
    t.load.address,
    grpc.credentials.createInsecure(),
    t.load.authority ? { 'grpc.default_authority': t.load.authority } : {},
  );
}

/**
 * Opens a stream and resolves at its first event (ms; NaN when it ended or failed first), then at its end with the
 * event count. A gRPC stream goes on `channel`, or on a channel (a connection) of its own, closed at its end.
 */
export function openStream(
  t: Target,
  channel?: grpc.Client,
): { first: Promise<number>; done: Promise<number>; cancel(): void } {
  const t0 = process.hrtime.bigint();
  let firstResolve!: (ms: number) => void;
  const first = new Promise<number>((r) => (firstResolve = r));
  let count = 0;
  const seen = (n: number): void => {
    if (count === 0 && n > 0) firstResolve(Number(process.hrtime.bigint() - t0) / 1e6);
    count += n;
  };
  if (t.kind === 'grpc') {
    const client = channel ?? grpcChannel(t);
    const md = new grpc.Metadata();
    for (const [k, v] of Object.entries(t.load.metadata)) md.set(k, v);
    const call = client.makeServerStreamRequest(
      `/lf.a2a.v1.A2AService/${t.load.method}`,
      (b: Buffer) => b,
      (b: Buffer) => b,
      t.load.body,
      md,
      {},
    );
    const done = new Promise<number>((resolve) => {
      call.on('data', () => seen(1));
      call.on('end', () => resolve(count));
      call.on('error', () => resolve(count));
    }).then((n) => {
      if (n === 0) firstResolve(NaN);
      if (!channel) client.close(); // (a stream's own channel was left open before: never closed)
      return n;
    });
    return { first, done, cancel: () => call.cancel() };
  }
  const ac = new AbortController();
  const done = (async () => {
    try {
      const res = await request(t.load.url, {
        method: t.load.method,
        headers: t.load.headers,
        body: t.load.body ?? null,
        signal: ac.signal,
      });
      for await (const chunk of res.body) seen((chunk.toString().match(/\ndata:|^data:/g) ?? []).length);
    } catch {
      // cancelled
    }
    if (count === 0) firstResolve(NaN);
    return count;
  })();
  return { first, done, cancel: () => ac.abort() };
}
