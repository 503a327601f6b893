// `npm run bench`: the gateway side by side with direct calls for every
// binding pair (SendMessage, GetTask), same-binding pass-through next to nginx
// where it is installed and a minimal Node proxy (node-proxy.ts), streaming (time to first event, events/s, idle
// streams' memory) and large payloads (payload.ts). Direct and gateway runs alternate so
// machine drift cancels. Prints a table and writes docs/benchmarks.md and
// docs/benchmarks-ratio.svg. Not part of `npm test`.
import { execFileSync } from 'node:child_process';
import type { Binding } from '../../src/config/types.js';
import type { MethodName } from '../../src/core/methods.js';
import * as grpc from '@grpc/grpc-js';
import { grpcChannel, openStream, params, target, type Endpoint, type Target } from './calls.js';
import { cpuMicros, grpcLoad, httpLoad, memory, type LoadResult } from './load.js';
import { pacedGrpcLoad, pacedHttpLoad } from './paced.js';
import { measurePayloads } from './payload.js';
import { startGatewayProc, startNginx, startNodeProxy, startUpstreams, ROOT, type GatewayProc } from './procs.js';
import { writeReport, type PairRow, type Report } from './report.js';
import { BINDINGS, benchConfig, slug, via as viaGateway } from './routes.js';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const WARMUP = 1;
/**
 * Seconds each pair, pass-through and direct target runs once before anything is measured: under load V8 goes on
 * compiling (and recompiling after deoptimizations) the call path on its background threads for ≈ 30 s; a run in that
 * window measured ≈ 40–50 µs of compile work per call on top of the call itself (a gateway serves for days).
 */
const JIT_WARMUP = Number(process.env.BENCH_WARMUP ?? 1.5);
/**
 * Seconds the started gateway is left alone before its idle RSS is read. V8's memory reducer gives back the young
 * generation start-up grew (≈ 12 MiB) at one of its idle checks, 8 s apart after start-up's last mark-compact; a check
 * declines while its allocation rate still counts start-up. Traced with --trace-gc over fifteen starts: at ≈ 8.4 s
 * after start in 2, ≈ 16.3 s in 12, ≈ 24.4 s in 1, so a reading at 15 s (the bench's until 2026-12-04) came before it
 * in most starts. An operator's `docker stats` a minute after start sees the settled figure.
 */
const IDLE_SETTLE_S = 30;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function load(t: Target, seconds = SECONDS, concurrency = CONCURRENCY): Promise<LoadResult> {
  return t.kind === 'http' ? httpLoad(t.load, concurrency, seconds) : grpcLoad(t.load, concurrency, seconds);
}

/**
 * Constant-rate load (paced.ts): `rate` requests/s, evenly spread, measured after a warm-up of a second at that
 * rate on the same connections (as `measure` warms up: without it the first 0.7 s through the gateway had answers
 * up to 140 ms late, a queue built while the start caught up).
 */
async function paced(t: Target, rate: number): Promise<LoadResult> {
  return t.kind === 'http'
    ? pacedHttpLoad(t.load, CONCURRENCY, WARMUP, SECONDS, rate)
    : pacedGrpcLoad(t.load, WARMUP, SECONDS, rate);
}

/** Warm up, then measure; CPU of the given processes over the measured part (µs per request). */
async function measure(t: Target, pids: number[]): Promise<LoadResult & { cpuUs: number[] }> {
  await load(t, WARMUP);
  const before = pids.map(cpuMicros);
  const r = await load(t);
  const cpuUs = pids.map((p, i) => (cpuMicros(p) - before[i]!) / Math.max(1, r.requests));
  return { ...r, cpuUs };
}

const up = await startUpstreams();
const direct: Record<Binding, Endpoint> = {
  JSONRPC: { http: up.urls.jsonrpc, grpc: '', prefix: '', tenant: '' },
  'HTTP+JSON': { http: up.urls.rest, grpc: '', prefix: '', tenant: '' },
  GRPC: { http: '', grpc: up.urls.grpc, prefix: '', tenant: '' },
};
const config = benchConfig(up.urls);
log('building the gateway (npm run build)…');
execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
let gw: GatewayProc = await startGatewayProc(config);
await new Promise((r) => setTimeout(r, 500)); // let start-up garbage be collected before the first reading
const startRss = memory(gw.pid).rss;
// The idle figure is read once the gateway is at rest, after V8's memory reducer has run (IDLE_SETTLE_S).
log(
  `idle RSS 0.5 s after start ${(startRss / 2 ** 20).toFixed(1)} MiB; waiting ${IDLE_SETTLE_S} s for the settled figure…`,
);
await new Promise((r) => setTimeout(r, IDLE_SETTLE_S * 1000));
const idleRss = memory(gw.pid).rss;
const via = (b: Binding): Endpoint => viaGateway(gw, b);
const passThroughOf = (b: Binding): Endpoint => ({
  http: `http://${gw.http}`,
  grpc: gw.grpc,
  prefix: `/pt-${slug(b)}`,
  tenant: '',
  authority: 'pt-grpc',
});
log(`warming up: every target once for ${JIT_WARMUP} s…`);
for (const method of ['SendMessage', 'GetTask'] as MethodName[]) {
  for (const upstream of BINDINGS) {
    await load(target(upstream, method, direct[upstream]), JIT_WARMUP);
    for (const inbound of BINDINGS) await load(target(inbound, method, via(upstream)), JIT_WARMUP);
  }
}
for (const b of BINDINGS) await load(target(b, 'SendMessage', passThroughOf(b)), JIT_WARMUP);
const report: Report = {
  pairs: [],
  passThrough: [],
  streaming: [],
  idle: [],
  payload: [],
  notes: [],
  concurrency: CONCURRENCY,
  seconds: SECONDS,
  idleRss,
  idleSettleS: IDLE_SETTLE_S,
  startRss,
};

log(`pairs: ${CONCURRENCY} concurrent, ${SECONDS} s per run after ${WARMUP} s warm-up; direct and gateway alternate`);
for (const method of ['SendMessage', 'GetTask'] as MethodName[]) {
  for (const inbound of BINDINGS) {
    for (const upstream of BINDINGS) {
      const d = await measure(target(upstream, method, direct[upstream]), [up.pid]);
      const g = await measure(target(inbound, method, via(upstream)), [gw.pid, up.pid]);
      const row: PairRow = {
        method,
        inbound,
        upstream,
        direct: d,
        gateway: g,
        gatewayCpuUs: g.cpuUs[0]!,
        upstreamCpuUs: g.cpuUs[1]!,
        rss: memory(gw.pid).rss,
      };
      if (method === 'SendMessage') {
        // added latency at 50% of the gateway's maximum throughput, both sides paced at the same rate
        const rate = Math.max(1, Math.round(g.rps / 2));
        const dh = await paced(target(upstream, method, direct[upstream]), rate);
        const gh = await paced(target(inbound, method, via(upstream)), rate);
        row.half = { rate, direct: dh, gateway: gh };
        log(
          `  at ${rate} rps (50%): direct p99 ${dh.p99.toFixed(2)} ms | gateway p99 ${gh.p99.toFixed(2)} ms | errors ${dh.errors} / ${gh.errors}`,
        );
        if (dh.errors + gh.errors > 0)
          report.notes.push(
            `${inbound} → ${upstream} at half load: ${dh.errors} direct and ${gh.errors} gateway requests failed (their latency is in the p99)`,
          );
      }
      report.pairs.push(row);
      log(
        `${method.padEnd(11)} ${inbound.padEnd(9)} → ${upstream.padEnd(9)} direct ${d.rps.toFixed(0).padStart(6)} rps p99 ${d.p99.toFixed(1)} ms | gateway ${g.rps.toFixed(0).padStart(6)} rps p99 ${g.p99.toFixed(1)} ms | ratio ${(g.rps / d.rps).toFixed(2)} | gw ${row.gatewayCpuUs.toFixed(0)} µs/req | errors ${g.errors}`,
      );
    }
  }
}

const nginx = await startNginx(up.urls);
if (typeof nginx === 'string') report.notes.push(nginx);
log(typeof nginx === 'string' ? nginx : `nginx baseline on ${nginx.http} / ${nginx.grpc}`);
const nodeProxy = await startNodeProxy(new URL(up.urls.jsonrpc).origin);
for (const b of BINDINGS) {
  const pt = passThroughOf(b);
  const d = await measure(target(b, 'SendMessage', direct[b]), [up.pid]);
  const g = await measure(target(b, 'SendMessage', pt), [gw.pid]);
  let n: (LoadResult & { cpuUs: number[] }) | undefined;
  if (typeof nginx !== 'string') {
    const ne: Endpoint = {
      http: b === 'JSONRPC' ? `${nginx.http}/rpc` : `${nginx.http}/rest`,
      grpc: nginx.grpc,
      prefix: '',
      tenant: '',
    };
    const pids = nginx.pids();
    n = await measure(target(b, 'SendMessage', ne), pids);
    n.cpuUs = [n.cpuUs.reduce((a, x) => a + x, 0)];
  }
  // the minimal Node proxy (HTTP bindings): what any Node proxy pays per call here
  const np =
    b === 'GRPC'
      ? undefined
      : await measure(
          target(b, 'SendMessage', {
            http: `${nodeProxy.http}${b === 'JSONRPC' ? '/rpc' : '/rest'}`,
            grpc: '',
            prefix: '',
            tenant: '',
          }),
          [nodeProxy.pid],
        );
  report.passThrough.push({
    binding: b,
    direct: d,
    gateway: g,
    gatewayCpuUs: g.cpuUs[0]!,
    nginx: n,
    nginxCpuUs: n?.cpuUs[0],
    nodeProxyCpuUs: np?.cpuUs[0],
    nodeProxy: np,
  });
  log(
    `pass-through ${b.padEnd(9)} direct ${d.rps.toFixed(0)} rps | gateway ${g.rps.toFixed(0)} rps (${(g.rps / d.rps).toFixed(2)}×, ${g.cpuUs[0]!.toFixed(0)} µs/req)${n ? ` | nginx ${n.rps.toFixed(0)} rps (${n.cpuUs[0]!.toFixed(0)} µs/req)` : ''}${np ? ` | minimal Node proxy ${np.rps.toFixed(0)} rps (${np.cpuUs[0]!.toFixed(0)} µs/req)` : ''}`,
  );
}
if (typeof nginx !== 'string') await nginx.stop();
await nodeProxy.stop();

log('streaming…');
for (const b of BINDINGS) {
  // a gRPC caller keeps its channel, as the HTTP callers keep their connection (one per side); `fresh`: a new
  // connection per stream
  const channels = new Map<Endpoint, grpc.Client>();
  const one = async (e: Endpoint, fresh = false): Promise<number> => {
    const t = target(b, 'SendStreamingMessage', e, params('SendStreamingMessage', '1'));
    let channel = t.kind === 'grpc' && !fresh ? channels.get(e) : undefined;
    if (t.kind === 'grpc' && !fresh && !channel) channels.set(e, (channel = grpcChannel(t)));
    const s = openStream(t, channel);
    const first = await s.first;
    await s.done;
    return first;
  };
  const median = (times: number[]): number => times.sort((x, y) => x - y)[times.length >> 1]!;
  // the binding's first 100 streams, direct and through the gateway taking turns (the agent warms up at the same
  // pace for both), then the same after JIT_WARMUP s of streams on each side, as every unary target is measured
  // after its own warm-up
  const cold: [number[], number[]] = [[], []];
  for (let i = 0; i < 100; i++) {
    cold[0].push(await one(direct[b]));
    cold[1].push(await one(via(b)));
  }
  const [coldD, coldG] = cold.map(median) as [number, number];
  for (const e of [direct[b], via(b)]) for (const end = Date.now() + JIT_WARMUP * 1000; Date.now() < end;) await one(e);
  const ttfe = async (e: Endpoint): Promise<number> => {
    const times: number[] = [];
    for (let i = 0; i < 100; i++) times.push(await one(e));
    return median(times);
  };
  const d = await ttfe(direct[b]);
  const g = await ttfe(via(b));
  let newConnectionAdded: number | undefined;
  if (b === 'GRPC') {
    const fresh: [number[], number[]] = [[], []];
    for (let i = 0; i < 100; i++) {
      fresh[0].push(await one(direct[b], true));
      fresh[1].push(await one(via(b), true));
    }
    newConnectionAdded = median(fresh[1]) - median(fresh[0]);
  }
  for (const c of channels.values()) c.close();
  const N = 20_000;
  const cpu0 = cpuMicros(gw.pid);
  const t0 = Date.now();
  const s = openStream(target(b, 'SendStreamingMessage', via(b), params('SendStreamingMessage', String(N))));
  const events = await s.done;
  const seconds = (Date.now() - t0) / 1000;
  report.streaming.push({
    binding: b,
    ttfeDirectMs: d,
    ttfeGatewayMs: g,
    ttfeColdAddedMs: coldG - coldD,
    ...(newConnectionAdded === undefined ? {} : { ttfeNewConnectionAddedMs: newConnectionAdded }),
    eventsPerSecond: events / seconds,
    cpuUsPerEvent: (cpuMicros(gw.pid) - cpu0) / Math.max(1, events),
  });
  log(
    `stream ${b.padEnd(9)} first event: direct ${d.toFixed(2)} ms, gateway ${g.toFixed(2)} ms (+${(g - d).toFixed(2)}; first 100 streams +${(coldG - coldD).toFixed(2)}${newConnectionAdded === undefined ? '' : `; a new connection per stream +${newConnectionAdded.toFixed(2)}`}) | ${(events / seconds).toFixed(0)} events/s | ${((cpuMicros(gw.pid) - cpu0) / Math.max(1, events)).toFixed(1)} µs/event`,
  );
}
for (const count of [1000, 10_000]) {
  await gw.stop();
  gw = await startGatewayProc(config);
  // 100 streams run to their end first: what the first streams load and grow (V8's young generation, lazily
  // loaded code) is no part of what each idle stream holds
  for (let i = 0; i < 100; i++) {
    await openStream(target('GRPC', 'SendStreamingMessage', via('GRPC'), params('SendStreamingMessage', '1'))).done;
  }
  await new Promise((r) => setTimeout(r, 500));
  const before = memory(gw.pid).rss;
  const streams = Array.from({ length: count }, () =>
    openStream(target('GRPC', 'SendStreamingMessage', via('GRPC'), params('SendStreamingMessage', 'hold'))),
  );
  const firsts = await Promise.all(streams.map((s) => s.first));
  const refused = firsts.filter((ms) => Number.isNaN(ms)).length;
  if (refused) report.notes.push(`${refused} of ${count} idle streams were refused or ended before their first event`);
  await new Promise((r) => setTimeout(r, 500));
  const after = memory(gw.pid).rss;
  report.idle.push({ streams: count, rssBefore: before, rssAfter: after, perStream: (after - before) / count });
  log(
    `${count} idle streams: RSS ${(before / 2 ** 20).toFixed(0)} → ${(after / 2 ** 20).toFixed(0)} MiB, ${((after - before) / count / 1024).toFixed(1)} KiB per stream`,
  );
  streams.forEach((s) => s.cancel());
  up.child.kill('SIGUSR2');
}

log('payloads… (a gateway of its own per pair)');
await gw.stop();
report.payload = await measurePayloads(up, [1, 10], log);

await up.stop();
writeReport(report);
log('wrote docs/benchmarks.md and docs/benchmarks-ratio.svg');
process.exit(0);
