// `npm run bench:scale` (issue 14): throughput through one gateway whose route
// has 3 endpoints against the same route with 1 (JSON-RPC SendMessage and
// GetTask, each endpoint a bench upstream process of its own), and the cost
// of the task-affinity lookup per call — a hit in the process-local table,
// and a miss that asks Redis (a redis-server of its own, when installed).
// Prints the figures and writes docs/benchmarks-scale.md. Not part of `npm test`.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Redis } from 'ioredis';
import { stateFromRaw } from '../../src/config/upstream.js';
import { SharedState } from '../../src/state/redis.js';
import { Affinity } from '../../src/upstream/affinity.js';
import { target } from './calls.js';
import { httpLoad, type LoadResult } from './load.js';
import { ROOT, startGatewayProc, startUpstreams } from './procs.js';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const out: string[] = [];
const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
  out.push(line);
};

execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
const ups = await Promise.all([0, 1, 2].map(() => startUpstreams()));
const route = (name: string, n: number) => ({
  name,
  match: { pathPrefix: `/${name}`, tenant: name },
  upstream: {
    binding: 'JSONRPC',
    tenant: 'clear',
    ...(n === 1 ? { url: ups[0]!.urls.jsonrpc } : { endpoints: ups.slice(0, n).map((u) => ({ url: u.urls.jsonrpc })) }),
  },
});
const gw = await startGatewayProc({
  listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
  // info: startGatewayProc waits for the "listening" line in the log
  log: { level: 'info' },
  routes: [route('one', 1), route('three', 3)],
});

async function measure(name: string, method: 'SendMessage' | 'GetTask'): Promise<LoadResult> {
  const t = target('JSONRPC', method, { http: `http://${gw.http}`, grpc: '', prefix: `/${name}`, tenant: name });
  if (t.kind !== 'http') throw new Error('JSON-RPC is HTTP');
  await httpLoad(t.load, CONCURRENCY, 1);
  return httpLoad(t.load, CONCURRENCY, SECONDS);
}

log(`# Scale-out figures (npm run bench:scale)`);
log('');
log(
  `Conditions: ${new Date().toISOString().slice(0, 10)}, ${cpus().length} CPU(s) (${cpus()[0]?.model ?? '?'}), Node ${process.version}; ` +
    `the gateway, 3 bench upstreams and the load generator (autocannon, ${CONCURRENCY} connections, ${SECONDS} s after 1 s warm-up) ` +
    'share the machine, so 3 endpoints cannot add CPU: the figure shows what placement costs, not what replicas on other machines add.',
);
log('');
log('| Call (JSON-RPC → JSON-RPC) | 1 endpoint: calls/s, p50/p99 ms | 3 endpoints: calls/s, p50/p99 ms | ratio |');
log('| --- | --- | --- | --- |');
for (const method of ['SendMessage', 'GetTask'] as const) {
  // alternated so machine drift cancels
  const one = await measure('one', method);
  const three = await measure('three', method);
  log(
    `| ${method} | ${one.rps.toFixed(0)}, ${one.p50}/${one.p99} | ${three.rps.toFixed(0)}, ${three.p50}/${three.p99} | ${(three.rps / one.rps).toFixed(2)} |`,
  );
}
await gw.stop();
await Promise.all(ups.map((u) => u.stop()));

// the affinity lookup alone
const silent = pino({ level: 'silent' });
const local = new Affinity(undefined, silent);
await local.learn('r', 'task', 'known', 'http://a', 3600);
const N = 200_000;
let t0 = process.hrtime.bigint();
for (let i = 0; i < N; i++) await local.owner('r', 'task', 'known', 3600);
const hitNs = Number(process.hrtime.bigint() - t0) / N;
log('');
log('| Affinity lookup per call | time |');
log('| --- | --- |');
log(`| hit in the process-local table | ${(hitNs / 1000).toFixed(2)} µs |`);

let redisLine: string;
try {
  execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { retryStrategy: () => 50 });
  probe.on('error', () => undefined); // refused until the server listens
  await probe.ping();
  probe.disconnect();
  const shared = new SharedState(stateFromRaw({ redis: { url } })!.redis, silent);
  await shared.connected(5_000);
  await shared.client.set(shared.key('affinity', 'r', 'task', 'remote'), 'http://a');
  const M = 5_000;
  t0 = process.hrtime.bigint();
  // a fresh gateway each time: every lookup misses locally and asks Redis
  for (let i = 0; i < M; i++) await new Affinity(shared, silent).owner('r', 'task', 'remote', 3600);
  const missUs = Number(process.hrtime.bigint() - t0) / M / 1000;
  redisLine = `| miss, asked of Redis (loopback) | ${missUs.toFixed(1)} µs |`;
  shared.close();
  server.kill('SIGKILL');
  await once(server, 'exit');
} catch (e) {
  redisLine = `| miss, asked of Redis | (not measured: ${(e as Error).message}; is redis-server installed?) |`;
}
log(redisLine);
log('');
log(
  'A call pays the lookup only on routes with several endpoints and only when it names a task or context; a hit is the common case (the gateway that relayed the answer learned it), a miss costs one Redis round trip.',
);
writeFileSync(join(ROOT, 'docs/benchmarks-scale.md'), `${out.join('\n')}\n`);
