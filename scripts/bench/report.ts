// Writes the benchmark's results: docs/benchmarks.md (machine, Node, date,
// every table, and where each target of the performance issue stands) and
// docs/benchmarks-ratio.svg (gateway ÷ direct throughput per binding pair,
// drawn by chart.ts from the same rounded ratios as the tables).
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { Binding } from '../../src/config/types.js';
import type { LoadResult } from './load.js';
import { PAYLOAD_CALLERS, PAYLOAD_CALLS, PAYLOAD_SECONDS, type PayloadRow } from './payload.js';
import { ROOT } from './procs.js';
import { ratioChartSvg, type RatioBar } from './chart.js';

export interface PairRow {
  method: string;
  inbound: Binding;
  upstream: Binding;
  direct: LoadResult;
  gateway: LoadResult;
  gatewayCpuUs: number;
  upstreamCpuUs: number;
  rss: number;
  /** Both sides paced at half the gateway's maximum rps (SendMessage only). */
  half?: { rate: number; direct: LoadResult; gateway: LoadResult };
}
export interface PassRow {
  binding: Binding;
  direct: LoadResult;
  gateway: LoadResult;
  gatewayCpuUs: number;
  nginx: LoadResult | undefined;
  nginxCpuUs: number | undefined;
  /** The minimal Node proxy's CPU per call (node-proxy.ts; HTTP bindings only). */
  nodeProxyCpuUs?: number | undefined;
  /** The minimal Node proxy's load run (its throughput beside the gateway's and nginx's). */
  nodeProxy?: LoadResult | undefined;
}
export interface StreamRow {
  binding: Binding;
  ttfeDirectMs: number;
  ttfeGatewayMs: number;
  /** The same over the binding's first 100 streams, direct and through the gateway taking turns, before the warm-up. */
  ttfeColdAddedMs?: number;
  /** gRPC: the added first event when each stream opens a connection of its own (after the warm-up). */
  ttfeNewConnectionAddedMs?: number;
  eventsPerSecond: number;
  cpuUsPerEvent: number;
}
export interface IdleRow {
  streams: number;
  rssBefore: number;
  rssAfter: number;
  perStream: number;
}
export interface Report {
  pairs: PairRow[];
  passThrough: PassRow[];
  streaming: StreamRow[];
  idle: IdleRow[];
  payload: PayloadRow[];
  notes: string[];
  concurrency: number;
  seconds: number;
  /** The gateway's RSS at rest, `idleSettleS` after it started with the benchmark's routes, before any call. */
  idleRss: number;
  /** Seconds between the gateway's start and the idle RSS reading. */
  idleSettleS: number;
  /** The same 0.5 s after start (before V8 shrinks the heap start-up grew). */
  startRss: number;
}

const f = (n: number, d = 0) => n.toFixed(d);
const mib = (b: number) => f(b / 2 ** 20, 1);

/** The figure's bars: the ratio of every unary pair and pass-through binding, as the page's tables give them. */
function ratioBars(r: Report): RatioBar[] {
  return [
    ...r.pairs.map((p) => ({
      group: 'translated' as const,
      method: p.method,
      inbound: p.inbound,
      upstream: p.upstream,
      ratio: Number(f(p.gateway.rps / p.direct.rps, 2)),
    })),
    ...r.passThrough.map((p) => ({
      group: 'passThrough' as const,
      method: 'SendMessage',
      inbound: p.binding,
      upstream: p.binding,
      ratio: Number(f(p.gateway.rps / p.direct.rps, 2)),
    })),
  ];
}

export function writeReport(r: Report): void {
  const translated = r.pairs.filter((p) => p.inbound !== p.upstream || true);
  const minRatio = Math.min(...translated.map((p) => p.gateway.rps / p.direct.rps));
  const maxCpu = Math.max(...r.pairs.map((p) => p.gatewayCpuUs));
  const addedP99 = Math.max(...r.pairs.map((p) => p.gateway.p99 - p.direct.p99));
  const halves = r.pairs.filter((p) => p.half);
  const addedHalfP99 = Math.max(...halves.map((p) => p.half!.gateway.p99 - p.half!.direct.p99));
  const pt = r.passThrough;
  const ptRatio = Math.min(...pt.map((p) => p.gateway.rps / p.direct.rps));
  const ttfe = Math.max(...r.streaming.map((s) => s.ttfeGatewayMs - s.ttfeDirectMs));
  const colds = r.streaming.flatMap((s) => (s.ttfeColdAddedMs === undefined ? [] : [s.ttfeColdAddedMs]));
  const coldTtfe = colds.length > 0 ? Math.max(...colds) : undefined;
  const freshTtfe = r.streaming.find((s) => s.ttfeNewConnectionAddedMs !== undefined)?.ttfeNewConnectionAddedMs;
  const idle = Math.max(...r.idle.map((i) => i.perStream));
  const tenMiB = r.payload.filter((p) => p.mib === 10);
  const worstPayload = tenMiB.reduce<PayloadRow | undefined>(
    (w, p) => (!w || p.perPayload > w.perPayload ? p : w),
    undefined,
  );
  const payloadPeak = worstPayload?.perPayload ?? 0;
  const firstCallPeak = Math.max(0, ...tenMiB.map((p) => p.firstCall));
  const nginxCmp = pt.filter((p) => p.nginxCpuUs !== undefined).map((p) => p.gatewayCpuUs / p.nginxCpuUs!);
  // the references measured in the same rounds: what nginx and the minimal Node proxy reach against each target
  const worst = (xs: number[]) => (xs.length ? Math.min(...xs) : undefined);
  const nginxRatio = worst(pt.flatMap((p) => (p.nginx ? [p.nginx.rps / p.direct.rps] : [])));
  const proxyRatio = worst(pt.flatMap((p) => (p.nodeProxy ? [p.nodeProxy.rps / p.direct.rps] : [])));
  const proxyCmp = pt.flatMap((p) =>
    p.nodeProxyCpuUs !== undefined && p.nginxCpuUs !== undefined ? [p.nodeProxyCpuUs / p.nginxCpuUs] : [],
  );
  const refs = (parts: Array<string | undefined>) => {
    const named = parts.filter((x): x is string => x !== undefined);
    return named.length ? ` (in the same rounds: ${named.join('; ')})` : '';
  };
  const met = (ok: boolean) => (ok ? 'met' : '**not met**');
  const lines = [
    '# Benchmarks',
    '',
    `Generated by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}.`,
    `Load: ${r.concurrency} concurrent callers, ${r.seconds} s per run after a 1 s warm-up (autocannon for HTTP, a grpc-js loop for gRPC);`,
    'direct and gateway runs alternate. The upstream is a minimal agent whose answers are pre-encoded (its CPU per request is shown: it is never the bottleneck).',
    "Before anything is measured every target runs once for 1.5 s: under load V8 compiles the call path on its background threads for about 30 s, which added 40–50 µs of CPU to each call of a run inside that window (measured: 55 µs per call on the compiler's threads 1 s into load, 11 µs after 40 s). The streaming path, which the unary load does not run, gets its own 1.5 s of one-event streams per side before its first-event median (the median before that is shown beside it).",
    '',
    '`npm run bench` (not part of `npm test`; about 10 minutes) measures every binding pair against direct calls (at full',
    "load, and paced at half the gateway's maximum for the added p99), same-binding pass-through against nginx (when",
    'nginx is installed: `apt-get install nginx-light`; otherwise it says so and skips it) and a minimal Node proxy,',
    'streaming (time to first event,',
    'events/s, memory per idle stream) and 1 MiB / 10 MiB payloads (`npm run bench:payload` runs that part alone).',
    '`BENCH_SECONDS`, `BENCH_CONCURRENCY` and `BENCH_WARMUP` change the run length (default 3 s), the callers',
    '(default 32) and the first warm-up per target (1.5 s). The figure is drawn from the tables below (`npm run docs`',
    'redraws it from this page).',
    '',
    '![Gateway ÷ direct throughput per method and binding pair, with the 0.5× and 0.8× targets](benchmarks-ratio.svg)',
    '',
    'Where the CPU of one call goes, part by part of its path: [benchmarks-stages.md](benchmarks-stages.md) (`npm run bench:stages`).',
    'Three endpoints against one and the cost of a task-affinity lookup: [benchmarks-scale.md](benchmarks-scale.md) (`npm run bench:scale`).',
    '',
    '## Targets',
    '',
    '| target | measured | |',
    '| :-- | :-- | :-- |',
    `| gateway CPU ≤ 120 µs per translated unary call | worst ${f(maxCpu)} µs | ${met(maxCpu <= 120)} |`,
    `| translated unary ≥ 0.5× direct throughput | worst pair ${f(minRatio, 2)}× | ${met(minRatio >= 0.5)} |`,
    `| pass-through ≥ 0.8× direct | worst ${f(ptRatio, 2)}×${refs([nginxRatio === undefined ? undefined : `nginx worst ${f(nginxRatio, 2)}×`, proxyRatio === undefined ? undefined : `the minimal Node proxy worst ${f(proxyRatio, 2)}×`])} | ${met(ptRatio >= 0.8)} |`,
    `| pass-through CPU per call ≤ 2× nginx's | ${nginxCmp.length ? `worst ${f(Math.max(...nginxCmp), 2)}×` : 'nginx not measured'}${refs([proxyCmp.length ? `the minimal Node proxy worst ${f(Math.max(...proxyCmp), 2)}× nginx's` : undefined])} | ${nginxCmp.length ? met(Math.max(...nginxCmp) <= 2) : 'n/a'} |`,
    `| added p99 ≤ 1 ms at 50% of max load | worst +${f(addedHalfP99, 2)} ms (SendMessage, both sides paced at half the gateway's maximum rps) | ${met(addedHalfP99 <= 1)} |`,
    `| added time to first stream event ≤ 1 ms | worst +${f(ttfe, 2)} ms${coldTtfe === undefined ? '' : ` (first 100 streams of each binding, before its warm-up: worst +${f(coldTtfe, 2)} ms)`}${freshTtfe === undefined ? '' : `; a gRPC caller opening a connection per stream: +${f(freshTtfe, 2)} ms`} | ${met(ttfe <= 1)} |`,
    `| ≤ 50 KiB RSS per idle stream | ${f(idle / 1024, 1)} KiB | ${met(idle <= 50 * 1024)} |`,
    `| peak RSS for a 10 MiB payload ≤ 4× the payload | worst pair ${f(payloadPeak, 1)}×${worstPayload ? ` (${worstPayload.inbound} → ${worstPayload.upstream})` : ''}: peak over the pair's idle RSS, ${PAYLOAD_CALLS} calls one at a time (the first call alone: worst ${f(firstCallPeak, 1)}×) | ${met(payloadPeak <= 4)} |`,
    `| idle RSS after start ≤ 80 MiB | ${mib(r.idleRss)} MiB at rest, ${r.idleSettleS} s after start (0.5 s after start: ${mib(r.startRss)} MiB, before V8 shrinks the heap start-up grew) | ${met(r.idleRss <= 80 * 2 ** 20)} |`,
    '',
    `At full load (${r.concurrency} callers all busy) the added p99 is worst +${f(addedP99, 2)} ms; the table below gives both.`,
    '',
    '## Unary calls per binding pair',
    '',
    '| method | inbound → upstream | direct rps | gateway rps | ratio | direct p50 / p99 ms | gateway p50 / p99 ms | gateway µs CPU/req | upstream µs CPU/req | gateway RSS MiB |',
    '| :-- | :-- | --: | --: | --: | --: | --: | --: | --: | --: |',
    ...r.pairs.map(
      (p) =>
        `| ${p.method} | ${p.inbound} → ${p.upstream} | ${f(p.direct.rps)} | ${f(p.gateway.rps)} | ${f(p.gateway.rps / p.direct.rps, 2)} | ${f(p.direct.p50, 1)} / ${f(p.direct.p99, 1)} | ${f(p.gateway.p50, 1)} / ${f(p.gateway.p99, 1)} | ${f(p.gatewayCpuUs)} | ${f(p.upstreamCpuUs)} | ${mib(p.rss)} |`,
    ),
    '',
    '### Added latency at 50% of the maximum load (SendMessage)',
    '',
    '| inbound → upstream | paced rps | direct p50 / p99 ms | gateway p50 / p99 ms | added p99 ms |',
    '| :-- | --: | --: | --: | --: |',
    ...halves.map(
      (p) =>
        `| ${p.inbound} → ${p.upstream} | ${p.half!.rate} | ${f(p.half!.direct.p50, 2)} / ${f(p.half!.direct.p99, 2)} | ${f(p.half!.gateway.p50, 2)} / ${f(p.half!.gateway.p99, 2)} | ${f(p.half!.gateway.p99 - p.half!.direct.p99, 2)} |`,
    ),
    '',
    `_Each side paced at the same rate (scripts/bench/paced.ts): requests started at a constant rate, evenly spread, whether or not earlier answers have come (an open loop, as independent users), for ${r.seconds} s after 1 s at that rate on the same connections; latency from each request's start. The caller, the agent and the gateway share the machine's 2 cores._`,
    '',
    '## Same-binding pass-through (SendMessage)',
    '',
    '| binding | direct rps | gateway rps | ratio | gateway µs CPU/req | nginx rps | nginx ratio | nginx µs CPU/req | minimal Node proxy rps | its ratio | minimal Node proxy µs CPU/req |',
    '| :-- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |',
    ...pt.map((p) => {
      const ratio = (l: LoadResult | undefined) => (l ? f(l.rps / p.direct.rps, 2) : '—');
      return `| ${p.binding} | ${f(p.direct.rps)} | ${f(p.gateway.rps)} | ${f(p.gateway.rps / p.direct.rps, 2)} | ${f(p.gatewayCpuUs)} | ${p.nginx ? f(p.nginx.rps) : '—'} | ${ratio(p.nginx)} | ${p.nginxCpuUs !== undefined ? f(p.nginxCpuUs) : '—'} | ${p.nodeProxy ? f(p.nodeProxy.rps) : '—'} | ${ratio(p.nodeProxy)} | ${p.nodeProxyCpuUs !== undefined ? f(p.nodeProxyCpuUs) : '—'} |`;
    }),
    '',
    "_The minimal Node proxy (scripts/bench/node-proxy.ts: node:http in, one undici request out, no parsing, policy, log or metrics) is the floor any Node proxy pays per call on this machine: a target below it (nginx's 2×) is out of reach for a proxy on Node._",
    ...r.notes.map((n) => `\n_${n}_`),
    '',
    '## Streaming',
    '',
    '| binding (same both sides) | first event direct ms | first event via gateway ms | added ms | added ms, first 100 streams | events/s via gateway | gateway µs CPU/event |',
    '| :-- | --: | --: | --: | --: | --: | --: |',
    ...r.streaming.map(
      (s) =>
        `| ${s.binding} | ${f(s.ttfeDirectMs, 2)} | ${f(s.ttfeGatewayMs, 2)} | ${f(s.ttfeGatewayMs - s.ttfeDirectMs, 2)} | ${s.ttfeColdAddedMs === undefined ? '—' : f(s.ttfeColdAddedMs, 2)} | ${f(s.eventsPerSecond)} | ${f(s.cpuUsPerEvent, 1)} |`,
    ),
    '',
    "_First event: the median of 100 one-event streams opened one after another on an otherwise idle gateway (each caller keeps its connection: HTTP keep-alive, one gRPC channel per side), after each side ran one-event streams for the warm-up's 1.5 s, as each unary target does before it is measured; “first 100 streams”: the same median over the binding's first 100 streams, direct and through the gateway taking turns, before that warm-up (the stream path's code not yet compiled on either side). Events/s and CPU per event: one stream of 20,000 events._",
    ...r.streaming.flatMap((s) =>
      s.ttfeNewConnectionAddedMs === undefined
        ? []
        : [
            '',
            `_A ${s.binding} caller that opens a connection of its own per stream (to the agent directly as to the gateway): added ${f(s.ttfeNewConnectionAddedMs, 2)} ms._`,
          ],
    ),
    '',
    '| idle gRPC streams through the gateway | RSS before MiB | RSS after MiB | KiB per stream |',
    '| --: | --: | --: | --: |',
    ...r.idle.map((i) => `| ${i.streams} | ${mib(i.rssBefore)} | ${mib(i.rssAfter)} | ${f(i.perStream / 1024, 1)} |`),
    '',
    '_Each on a gateway of its own, after 100 streams ran to their end on it (what the first streams load and grow is no part of what an idle stream holds)._',
    '',
    '## Large payloads (SendMessage with one `raw` part)',
    '',
    `A gateway of its own per pair, warmed up with one small call through the pair; then its peak RSS is reset to its`,
    `RSS (the idle RSS) and ${PAYLOAD_CALLS} calls go one at a time: the peak over the idle RSS, in multiples of the payload,`,
    "after the first call (what one call holds at once) and after all of them (with the earlier calls' buffers V8 has not",
    `collected yet). Throughput is measured after that, apart: ${PAYLOAD_CALLERS} callers for ${PAYLOAD_SECONDS} s.`,
    '',
    "What the later calls add is garbage, not copies a call keeps: V8 collects Buffers' memory (outside its heap) once",
    'it has grown by 64 MiB since the last collection (`kExternalAllocationSoftLimit` in v8-internal.h), so with',
    'more calls the peak levels off at about 64 MiB over idle whatever their number (`BENCH_PAYLOAD_CALLS=20',
    'BENCH_PAYLOAD_MIB=10 npm run bench:payload` shows it: on 2026-12-04, 20 calls of 10 MiB gave 6.2–8.8× per pair',
    '(the first call alone 2.1–3.6×), about what the 5 calls below give).',
    '',
    '| payload | inbound → upstream | idle RSS MiB | peak RSS MiB | first call ÷ payload | all calls ÷ payload | failed calls | MiB/s | errors |',
    '| --: | :-- | --: | --: | --: | --: | --: | --: | --: |',
    ...r.payload.map(
      (p) =>
        `| ${p.mib} MiB | ${p.inbound} → ${p.upstream} | ${mib(p.start)} | ${mib(p.peak)} | ${f(p.firstCall, 1)}× | ${f(p.perPayload, 1)}× | ${p.callErrors} of ${PAYLOAD_CALLS} | ${f(p.mibPerSecond, 1)} | ${p.errors} |`,
    ),
    '',
  ];
  writeFileSync(`${ROOT}docs/benchmarks.md`, lines.join('\n'));
  writeFileSync(`${ROOT}docs/benchmarks-ratio.svg`, ratioChartSvg(ratioBars(r)));
}
