// Child processes for the benchmark: the upstream agents, the gateway (the
// built CLI with a benchmark config) and, when it is installed, nginx as the
// baseline proxy. Each is started on 127.0.0.1 port 0 (nginx: a free port)
// and stopped at the end.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

export const ROOT = new URL('../../', import.meta.url).pathname;

export interface Proc {
  child: ChildProcess;
  pid: number;
  stop(): Promise<void>;
}

function firstLine(child: ChildProcess, match: (line: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const line = buf.split('\n').find(match);
      if (line) resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} before starting`)));
  });
}

/** A process the benchmark started; `dir`, its temp folder, is removed once it has stopped. */
function proc(child: ChildProcess, dir?: string): Proc {
  return {
    child,
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Upstreams extends Proc {
  urls: { jsonrpc: string; rest: string; grpc: string };
}

export async function startUpstreams(): Promise<Upstreams> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/bench/upstream.ts')], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await firstLine(child, (l) => l.startsWith('{'));
  return { ...proc(child), urls: JSON.parse(line) as Upstreams['urls'] };
}

/** The minimal Node proxy (node-proxy.ts) in front of the agent's HTTP side: the floor for any Node proxy. */
export async function startNodeProxy(upstreamOrigin: string): Promise<Proc & { http: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'scripts/bench/node-proxy.ts'), upstreamOrigin],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const line = await firstLine(child, (l) => l.startsWith('{'));
  return { ...proc(child), http: (JSON.parse(line) as { http: string }).http };
}

export interface GatewayProc extends Proc {
  http: string;
  grpc: string;
  /** The admin listener's port, when the config has `admin:` (the only place /metrics is served). */
  admin: number | undefined;
}

/** The gateway logs to a file (as in production), not to a pipe the busy load generator would have to drain. */
export async function startGatewayProc(config: unknown): Promise<GatewayProc> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bench-'));
  writeFileSync(join(dir, 'gateway.yaml'), stringify(config));
  const logFile = join(dir, 'gateway.log');
  const out = openSync(logFile, 'w');
  // GATEWAY_NODE_FLAGS: e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the gateway under load
  const flags = (process.env.GATEWAY_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const args = [...flags, join(ROOT, 'dist/cli/bin.js'), '--config', join(dir, 'gateway.yaml')];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  for (let i = 0; i < 200; i++) {
    const line = readFileSync(logFile, 'utf8')
      .split('\n')
      .find((l) => l.includes('a2a-gateway listening'));
    if (line) {
      const up = JSON.parse(line) as { http: string; grpc: string; admin?: number };
      return { ...proc(child, dir), http: up.http, grpc: up.grpc, admin: up.admin };
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`the gateway did not start; see ${logFile}`);
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface Nginx extends Proc {
  http: string;
  grpc: string;
  /** All nginx processes (master and workers), for CPU readings. */
  pids(): number[];
}

/** nginx as a plain reverse proxy (HTTP keep-alive upstream, grpc_pass), or undefined with the reason. */
export async function startNginx(u: Upstreams['urls']): Promise<Nginx | string> {
  let bin: string;
  try {
    bin = execFileSync('sh', ['-c', 'command -v nginx || ls /usr/sbin/nginx'], { encoding: 'utf8' })
      .trim()
      .split('\n')[0]!;
  } catch {
    return 'nginx is not installed (apt-get install nginx to add the baseline); baseline skipped';
  }
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bench-nginx-'));
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const httpUp = new URL(u.jsonrpc).host;
  writeFileSync(
    join(dir, 'nginx.conf'),
    `
worker_processes 1;
error_log ${dir}/error.log;
pid ${dir}/nginx.pid;
events { worker_connections 4096; }
http {
  access_log off;
  upstream a2a_http { server ${httpUp}; keepalive 64; }
  upstream a2a_grpc { server ${u.grpc}; keepalive 16; }
  server {
    listen 127.0.0.1:${httpPort};
    location / { proxy_pass http://a2a_http; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering off; }
  }
  server {
    listen 127.0.0.1:${grpcPort} http2;
    location / { grpc_pass grpc://a2a_grpc; }
  }
}
`,
  );
  const child = spawn(bin, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 500));
  if (child.exitCode !== null)
    return `nginx failed to start (exit ${child.exitCode}; see ${dir}/error.log); baseline skipped`;
  const pids = (): number[] => {
    try {
      const workers = execFileSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .map(Number)
        .filter((n) => n > 0);
      return [child.pid!, ...workers];
    } catch {
      return [child.pid!];
    }
  };
  // SIGKILL on the master would leave its workers running: stop nginx with SIGTERM (fast shutdown of all).
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { ...proc(child), stop, http: `http://127.0.0.1:${httpPort}`, grpc: `127.0.0.1:${grpcPort}`, pids };
}
