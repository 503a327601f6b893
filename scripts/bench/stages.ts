// `npm run bench:stages`: where the gateway's CPU goes per call. Runs the
// built gateway under --cpu-prof for a few binding pairs at full load (as
// `npm run bench` does), then attributes every profiler sample taken during
// the load to one part of the call's path by the file of the function
// running (async stacks are cut at each await, so a sample is charged to the
// code that was on the CPU, not to its caller). Writes
// docs/benchmarks-stages.md: µs per call per part.
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import type { Binding } from '../../src/config/types.js';
import { target, type Target } from './calls.js';
import { cpuMicros, grpcLoad, httpLoad } from './load.js';
import { ROOT, startGatewayProc, startUpstreams } from './procs.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Load before the profiled window: V8 compiles the call path on background threads for ≈ 30 s of load (that CPU is no part of a call). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const CASES: Array<{ label: string; inbound: Binding; upstream: Binding; passThrough: boolean }> = [
  { label: 'JSONRPC → JSONRPC', inbound: 'JSONRPC', upstream: 'JSONRPC', passThrough: false },
  { label: 'HTTP+JSON → GRPC', inbound: 'HTTP+JSON', upstream: 'GRPC', passThrough: false },
  { label: 'GRPC → HTTP+JSON', inbound: 'GRPC', upstream: 'HTTP+JSON', passThrough: false },
  { label: 'JSONRPC pass-through', inbound: 'JSONRPC', upstream: 'JSONRPC', passThrough: true },
];

/** Parts of a call's path, matched against the sampled function's file (first match wins). */
const PARTS: Array<[string, RegExp]> = [
  ['garbage collection', /^\(garbage collector\)/],
  [
    'socket writes and reads (syscalls)',
    /^(writev|writeString|writeBuffer|readStart|onStreamRead) |node:net|stream_base_commons/,
  ],
  ['HTTP listener (node:http)', /node:_http_|node:internal\/streams/],
  [
    "gRPC transport (@grpc/grpc-js, node:http2, the gateway's gRPC client)",
    /@grpc\/|node:internal\/http2|node:http2|dist\/upstream\/grpc-/,
  ],
  ["HTTP upstream client (undici, llhttp, the gateway's HTTP pool)", /undici|wasm:|dist\/upstream\/http-/],
  ['ProtoJSON and binary codecs (protobuf-es)', /@bufbuild\//],
  ['request body read and JSON parse', /dist\/http\/(json-body|body-reader)|^(parse|stringify) /],
  ['validation (one walk)', /dist\/core\/validate|dist\/policy\//],
  ['bindings: decode and encode', /dist\/(bindings|compat|sse|proto)\//],
  ['pipeline stages and routing', /dist\/(pipeline|routing|core|auth|upstream|errors|card)\//],
  ['observe: log, metrics, tracing', /pino|sonic-boom|prom-client|@opentelemetry|dist\/ops\//],
  ['gateway listener glue', /dist\/(server|http)\//],
  [
    'promises, timers, abort signals, events',
    /runMicrotasks|processTicksAndRejections|node:internal\/(process|timers|abort_controller|event_target)|node:timers|node:events|^(setTimeout|clearTimeout|AbortSignal)/,
  ],
];

interface Node {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

function partOf(n: Node): string {
  const key = `${n.callFrame.functionName} ${n.callFrame.url}`;
  if (n.callFrame.functionName === '(idle)') return 'idle';
  return PARTS.find(([, re]) => re.test(key))?.[0] ?? 'other (V8, Node internals)';
}

/** CPU time per part within [from, to] (µs since the profile's start, wall clock). */
function attribute(p: Profile, from: number, to: number): Map<string, number> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    if (t < from || t > to) continue;
    const part = partOf(byId.get(p.samples[i]!)!);
    if (part !== 'idle') out.set(part, (out.get(part) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  return out;
}

execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
const up = await startUpstreams();
const urlOf = (b: Binding): string =>
  b === 'JSONRPC' ? up.urls.jsonrpc : b === 'HTTP+JSON' ? up.urls.rest : up.urls.grpc;
const rows: Array<{ label: string; cpuUs: number; parts: Map<string, number> }> = [];
for (const c of CASES) {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bench-prof-'));
  process.env.GATEWAY_NODE_FLAGS = `--cpu-prof --cpu-prof-dir=${dir}`;
  const route = c.passThrough
    ? {
        name: 'r',
        upstream: { url: urlOf(c.upstream), binding: c.upstream },
        passThrough: true,
      }
    : { name: 'r', upstream: { url: urlOf(c.upstream), binding: c.upstream } };
  const gw = await startGatewayProc({
    listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
    log: { level: 'info' },
    routes: [route],
  });
  const t: Target = target(c.inbound, 'SendMessage', {
    http: `http://${gw.http}`,
    grpc: gw.grpc,
    prefix: '',
    tenant: '',
  });
  const run = (s: number) => (t.kind === 'http' ? httpLoad(t.load, 32, s) : grpcLoad(t.load, 32, s));
  await run(WARMUP);
  const cpu0 = cpuMicros(gw.pid);
  const from = Number(process.hrtime.bigint() / 1000n);
  const r = await run(SECONDS);
  const to = Number(process.hrtime.bigint() / 1000n);
  const cpuUs = (cpuMicros(gw.pid) - cpu0) / r.requests;
  gw.child.kill('SIGTERM'); // a graceful exit writes the profile
  await once(gw.child, 'exit');
  await gw.stop(); // removes its temp folder (config and log)
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
  rmSync(dir, { recursive: true, force: true });
  const parts = attribute(profile, from, to);
  const busy = [...parts.values()].reduce((a, x) => a + x, 0);
  for (const [k, v] of parts) parts.set(k, (v / busy) * cpuUs);
  rows.push({ label: c.label, cpuUs, parts });
  if (r.errors > 0) throw new Error(`${c.label}: ${r.errors} calls failed`);
  process.stdout.write(`${c.label}: ${cpuUs.toFixed(0)} µs per call, ${r.rps.toFixed(0)} calls/s\n`);
}
await up.stop();

const names = [...PARTS.map(([n]) => n), 'other (V8, Node internals)'];
const lines = [
  '# Where the CPU goes, per call',
  '',
  `Generated by \`npm run bench:stages\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, 32 concurrent`,
  `callers for ${SECONDS} s per case after ${WARMUP} s of warm-up, SendMessage with a one-text-part message, access log at info. The gateway runs`,
  'under `--cpu-prof`; each sample taken during the load is charged to the part of the path whose code was on the',
  "CPU (by the function's file), and the shares are scaled to the gateway's measured CPU per call. The profiler",
  "itself adds a few per cent. Figures move with the machine's load: compare rows of one run, not runs.",
  '',
  `| part of the path | ${rows.map((r) => r.label).join(' | ')} |`,
  `| :-- | ${rows.map(() => '--:').join(' | ')} |`,
  ...names.map((n) => `| ${n} | ${rows.map((r) => (r.parts.get(n) ?? 0).toFixed(1)).join(' | ')} |`),
  `| **total µs per call** | ${rows.map((r) => `**${r.cpuUs.toFixed(0)}**`).join(' | ')} |`,
  '',
];
writeFileSync(join(ROOT, 'docs/benchmarks-stages.md'), lines.join('\n'));
process.stdout.write('wrote docs/benchmarks-stages.md\n');
process.exit(0);
