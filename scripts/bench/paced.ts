// Paced load for the benchmark's "added p99 at 50% of the maximum load":
// an open-loop caller that starts requests at a constant rate, evenly spread
// (those due are started on each 1 ms timer tick), whether or not earlier
// answers have come, as a steady stream of users would. A latency counts from
// the moment the request is handed to the client, so the time it waits for a
// free connection (HTTP: at most `connections`) is part of it, but not the
// timer's lateness in this process. autocannon's own pacing (overallRate) is
// not used: each connection sends its whole second's share back to back at
// the start of every second and then idles, which is full load in bursts, not
// half load (the last run that way: p99 through the gateway 10–34 ms).
import { Pool } from 'undici';
import type { GrpcLoad, HttpLoad, LoadResult } from './load.js';
import { grpcClient, loadResult, unary } from './load.js';

type Send = (done: (ok: boolean) => void) => void;

/** A request not answered in this long counts as failed (no run waits on a stuck one). */
const TIMEOUT_MS = 10_000;

/** Starts `send` `rate` times a second for `seconds`; latencies from each request's start. */
async function pace(rate: number, seconds: number, send: Send): Promise<LoadResult> {
  const total = Math.round(rate * seconds);
  if (!(total > 0)) throw new Error(`a paced run of ${seconds} s at ${rate}/s starts no request`);
  const latencies: number[] = [];
  let errors = 0;
  let inFlight = 0;
  let allSent!: () => void;
  const drained = new Promise<void>((r) => (allSent = r));
  const start = performance.now();
  let started = 0;
  const tick = (): void => {
    const now = performance.now();
    const due = Math.min(total, Math.floor(((now - start) / 1000) * rate));
    for (; started < due; started++) {
      const sentAt = performance.now();
      inFlight++;
      const done = (ok: boolean): void => {
        if (!ok) errors++;
        latencies.push(performance.now() - sentAt);
        if (--inFlight === 0 && started === total) allSent();
      };
      try {
        send(done);
      } catch {
        done(false); // a client that throws at once (a closed channel) fails the request, not the run
      }
    }
    if (started < total) setTimeout(tick, 1);
    else if (inFlight === 0) allSent();
  };
  tick();
  await drained;
  return loadResult(latencies, seconds, errors);
}

/**
 * HTTP at `rate` requests/s over at most `connections` kept-alive connections (more wait in the pool's queue):
 * `warmup` seconds at that rate, then the measured `seconds` on the same connections.
 */
export async function pacedHttpLoad(
  l: HttpLoad,
  connections: number,
  warmup: number,
  seconds: number,
  rate: number,
): Promise<LoadResult> {
  const url = new URL(l.url);
  const pool = new Pool(url.origin, { connections, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
  const path = `${url.pathname}${url.search}`;
  const send: Send = (done) => {
    pool
      .request({ path, method: l.method, headers: l.headers, body: l.body ?? null })
      .then(async (res) => {
        await res.body.arrayBuffer();
        done(res.statusCode >= 200 && res.statusCode < 300);
      })
      .catch(() => done(false));
  };
  try {
    await pace(rate, warmup, send);
    return await pace(rate, seconds, send);
  } finally {
    await pool.close();
  }
}

/** gRPC at `rate` calls/s on one channel (HTTP/2 streams need no connection cap): `warmup` seconds, then `seconds`. */
export async function pacedGrpcLoad(l: GrpcLoad, warmup: number, seconds: number, rate: number): Promise<LoadResult> {
  const { client, md } = grpcClient(l);
  const send: Send = (done) => unary(client, md, l, (err) => done(!err), Date.now() + TIMEOUT_MS);
  try {
    await pace(rate, warmup, send);
    return await pace(rate, seconds, send);
  } finally {
    client.close();
  }
}
