// Load generators for the benchmark: autocannon for the HTTP bindings and a
// grpc-js client loop for gRPC, both at fixed concurrency for a fixed time
// (closed loop; paced.ts has the constant-rate caller), reporting requests/s and p50/p99 latency; one call at a time (callOnce);
// plus /proc readings of a process's CPU time and memory, and the reset of its peak RSS.
import { readFileSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import * as grpc from '@grpc/grpc-js';
import { request } from 'undici';

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface HttpLoad {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/** As fast as the callers go (closed loop: each connection sends its next request when its answer came). */
export async function httpLoad(l: HttpLoad, connections: number, seconds: number): Promise<LoadResult> {
  const r = await autocannon({
    url: l.url,
    method: l.method,
    headers: l.headers,
    ...(l.body ? { body: l.body } : {}),
    connections,
    duration: seconds,
    pipelining: 1,
  });
  return {
    requests: r.requests.total,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx,
  };
}

export interface GrpcLoad {
  address: string;
  method: string;
  body: Buffer;
  metadata: Record<string, string>;
  authority?: string;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/** A gRPC client of the target's own (its address and authority) and the call metadata. */
export function grpcClient(l: GrpcLoad): { client: grpc.Client; md: grpc.Metadata } {
  const client = new grpc.Client(
    l.address,
    grpc.credentials.createInsecure(),
    l.authority ? { 'grpc.default_authority': l.authority } : {},
  );
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(l.metadata)) md.set(k, v);
  return { client, md };
}

/** The target's unary call with its raw request bytes (the answer is not decoded). */
export function unary(
  client: grpc.Client,
  md: grpc.Metadata,
  l: GrpcLoad,
  done: (err: grpc.ServiceError | null) => void,
  deadline?: number,
): void {
  const raw = (b: Buffer): Buffer => b;
  const options = deadline === undefined ? {} : { deadline };
  client.makeUnaryRequest(`/lf.a2a.v1.A2AService/${l.method}`, raw, raw, l.body, md, options, done);
}

export async function grpcLoad(l: GrpcLoad, concurrency: number, seconds: number): Promise<LoadResult> {
  const { client, md } = grpcClient(l);
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const t0 = process.hrtime.bigint();
      unary(client, md, l, (err) => {
        if (err) errors++;
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        resolve();
      });
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) await one();
    }),
  );
  client.close();
  return loadResult(latencies, seconds, errors);
}

/** A run's figures from its latencies (ms, in any order) over `seconds`. */
export function loadResult(latencies: number[], seconds: number, errors: number): LoadResult {
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    errors,
  };
}

/** One HTTP call, its answer read whole: whether it succeeded (2xx). */
export async function httpCallOnce(l: HttpLoad): Promise<boolean> {
  try {
    const res = await request(l.url, { method: l.method, headers: l.headers, body: l.body ?? null });
    await res.body.arrayBuffer();
    return res.statusCode >= 200 && res.statusCode < 300;
  } catch {
    return false;
  }
}

/** One gRPC unary call on a client of its own: whether it succeeded (status OK). */
export function grpcCallOnce(l: GrpcLoad): Promise<boolean> {
  const { client, md } = grpcClient(l);
  return new Promise((resolve) => {
    unary(client, md, l, (err) => {
      client.close();
      resolve(!err);
    });
  });
}

/** utime + stime of a process, in microseconds. */
export function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000; // CLK_TCK = 100
}

/** VmRSS and VmHWM of a process, in bytes. */
export function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Resets a process's peak RSS (VmHWM) to its RSS now (Linux: clear_refs 5; a process of the same user). */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}
