// `npm run soak`: a long mixed run through the built gateway (a child
// process, so its RSS is its own) in front of a real SDK agent with all three
// bindings: unary SendMessage and GetTask and streaming SendStreamingMessage,
// across all 9 inbound × upstream pairs, from 8 concurrent callers, for
// SOAK_MINUTES (default 30). Samples the gateway's RSS every 10 s; after the
// warm-up (the first third, at least 1 minute) the mean RSS of the last sixth
// of the run must be within 10% of the mean of the first sixth after the
// warm-up (RSS saw-tooths with V8's collections; single samples are not a
// trend), and no call may fail. Prints the figures and writes docs/soak.md.
// Not part of `npm test`.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { request } from 'undici';
import type { Binding } from '../src/config/types.js';
import { startEchoAgent } from '../examples/demo-agent/echo-agent.js';
import type { RunningGateway } from '../src/server/gateway.js';
import { CALLERS, closeGrpcClients, userMessage } from '../test/helpers/harness.js';
import { STREAM_CALLERS } from '../test/helpers/streams.js';
import { ROOT, startGatewayProc } from './bench/procs.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const WORKERS = 8;
const BINDINGS: Binding[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
const slug = (b: Binding) => ({ JSONRPC: 'jsonrpc', 'HTTP+JSON': 'rest', GRPC: 'grpc' })[b];
const log = (s: string) => process.stdout.write(`${s}\n`);

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
const agent = await startEchoAgent({ bindings: BINDINGS });
const gwProc = await startGatewayProc({
  listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
  admin: { host: '127.0.0.1', port: 0 },
  log: { level: 'info' },
  routes: BINDINGS.map((b) => ({
    name: `soak-${slug(b)}`,
    match: { pathPrefix: `/soak-${slug(b)}`, tenant: `soak-${slug(b)}` },
    upstream: { url: agent.urlFor(b), binding: b, tenant: 'clear' },
    ...(b === 'GRPC' ? { card: { url: `${agent.httpUrl}/.well-known/agent-card.json` } } : {}),
  })),
});
const gw = { httpUrl: `http://${gwProc.http}`, grpcAddress: gwProc.grpc } as RunningGateway;

const counts = { unary: 0, streams: 0, events: 0 };
const failures = new Map<string, number>();
const fail = (what: string) => failures.set(what, (failures.get(what) ?? 0) + 1);
const started = Date.now();
const end = started + MINUTES * 60_000;
// V8 keeps growing its heap towards a steady size for several minutes under this load (the first soaks
// rose until ≈ 8 min and were flat after): the first third of the run is warm-up.
const warmupMs = Math.min(Math.max(60_000, MINUTES * 20_000), MINUTES * 30_000);

async function worker(n: number): Promise<void> {
  for (let i = n; Date.now() < end; i++) {
    const inbound = BINDINGS[i % 3]!;
    const up = BINDINGS[Math.floor(i / 3) % 3]!;
    const opts = { tenant: `soak-${slug(up)}`, prefix: `/soak-${slug(up)}` };
    const pair = `${inbound} → ${up}`;
    try {
      if (i % 4 === 3) {
        const r = await STREAM_CALLERS[inbound](gw, 'SendStreamingMessage', { message: userMessage('stream') }, opts);
        counts.streams++;
        counts.events += r.events.length;
        if (r.error || r.events.length < 4) fail(`${pair} stream: ${r.error?.message ?? `${r.events.length} events`}`);
      } else {
        const sent = await CALLERS[inbound](gw, 'SendMessage', { message: userMessage(`soak ${i}`) }, opts);
        counts.unary++;
        const id = (sent.result?.task as { id?: string } | undefined)?.id;
        if (!sent.ok || !id) {
          fail(`${pair} SendMessage: ${sent.message ?? 'no task'}`);
          continue;
        }
        const got = await CALLERS[inbound](gw, 'GetTask', { id }, opts);
        counts.unary++;
        if (!got.ok) fail(`${pair} GetTask: ${got.message}`);
      }
    } catch (e) {
      fail(`${pair}: ${(e as Error).message}`);
    }
  }
}

/** V8 heap in use, from the gateway's own /metrics on its admin listener (prom-client default metrics). */
async function heapMiB(): Promise<number> {
  try {
    const res = await request(`http://127.0.0.1:${gwProc.admin}/metrics`);
    const m = /^a2a_gateway_nodejs_heap_size_used_bytes ([\d.e+]+)/m.exec(await res.body.text());
    return m ? Number(m[1]) / 2 ** 20 : NaN;
  } catch {
    return NaN;
  }
}

const samples: Array<{ atS: number; rss: number; heap: number }> = [];
const sampler = setInterval(async () => {
  const s = { atS: Math.round((Date.now() - started) / 1000), rss: rssMiB(gwProc.pid), heap: await heapMiB() };
  samples.push(s);
  if (samples.length % 6 === 0)
    log(
      `${s.atS} s: RSS ${s.rss.toFixed(1)} MiB, heap ${s.heap.toFixed(1)} MiB, ${counts.unary} unary, ${counts.streams} streams, ${[...failures.values()].reduce((a, b) => a + b, 0)} failures`,
    );
}, 10_000);
log(`soak: ${MINUTES} min, ${WORKERS} callers, 9 binding pairs; gateway pid ${gwProc.pid}`);
await Promise.all(Array.from({ length: WORKERS }, (_, n) => worker(n)));
clearInterval(sampler);
samples.push({ atS: Math.round((Date.now() - started) / 1000), rss: rssMiB(gwProc.pid), heap: await heapMiB() });

// RSS follows V8's collections in a sawtooth; "flat" compares the mean of the first
// window after the warm-up with the mean of the last window (each a sixth of the run, ≥ 1 min).
const after = samples.filter((s) => s.atS * 1000 >= warmupMs);
const windowS = Math.max(60, (MINUTES * 60) / 6);
const mean = (xs: Array<{ rss: number }>) => xs.reduce((a, s) => a + s.rss, 0) / Math.max(1, xs.length);
const heapMean = (xs: Array<{ heap: number }>) => xs.reduce((a, s) => a + s.heap, 0) / Math.max(1, xs.length);
const firstAt = after[0]?.atS ?? 0;
const lastAt = after.at(-1)?.atS ?? 0;
const base = mean(after.filter((s) => s.atS < firstAt + windowS));
const last = mean(after.filter((s) => s.atS > lastAt - windowS));
const heapBase = heapMean(after.filter((s) => s.atS < firstAt + windowS));
const heapLast = heapMean(after.filter((s) => s.atS > lastAt - windowS));
const max = Math.max(...after.map((s) => s.rss));
const min = Math.min(...after.map((s) => s.rss));
const growth = ((last - base) / base) * 100;
const unexpected = [...failures.values()].reduce((a, b) => a + b, 0);
const flat = Math.abs(growth) <= 10;
const f = (x: number) => x.toFixed(1);
const report = [
  '# Soak',
  '',
  `Generated by \`npm run soak\` on ${new Date().toISOString().slice(0, 10)}: ${cpus()[0]?.model.trim() ?? 'cpu'}, ${cpus().length} cores, Node ${process.version}.`,
  `${MINUTES} minutes, ${WORKERS} concurrent callers, SendMessage + GetTask and SendStreamingMessage over all 9 inbound × upstream pairs, a real @a2a-js/sdk agent upstream; gateway RSS sampled every 10 s (warm-up: first ${Math.round(warmupMs / 1000)} s).`,
  '',
  '| figure | value |',
  '| :-- | --: |',
  `| unary calls | ${counts.unary} |`,
  `| streams (events) | ${counts.streams} (${counts.events}) |`,
  `| unexpected errors | ${unexpected} |`,
  `| mean RSS, first ${Math.round(windowS / 60)} min after warm-up | ${f(base)} MiB |`,
  `| mean RSS, last ${Math.round(windowS / 60)} min | ${f(last)} MiB (${growth >= 0 ? '+' : ''}${f(growth)}%) |`,
  `| RSS min / max after warm-up (GC sawtooth) | ${f(min)} / ${f(max)} MiB |`,
  `| mean V8 heap used, first / last window | ${f(heapBase)} / ${f(heapLast)} MiB |`,
  `| flat within 10% | ${flat ? 'yes' : '**no**'} |`,
  '',
  ...(unexpected > 0 ? ['Failures:', '', ...[...failures].map(([k, v]) => `- ${v}× ${k}`), ''] : []),
  '| time s | RSS MiB | heap used MiB |',
  '| --: | --: | --: |',
  ...samples
    .filter((_, i) => i % 6 === 5 || i === samples.length - 1)
    .map((s) => `| ${s.atS} | ${f(s.rss)} | ${f(s.heap)} |`),
  '',
].join('\n');
writeFileSync(join(ROOT, 'docs/soak.md'), report);
log(report);
closeGrpcClients();
await gwProc.stop();
await agent.close();
process.exit(flat && unexpected === 0 ? 0 : 1);
