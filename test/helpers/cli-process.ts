// The real CLI as a child process: the built `dist/cli/bin.js` (scripts/tap.ts
// builds it before the suite when a source is newer), spawned
// with a YAML config written into the test's own folder (t.testdir(), removed
// by tap). Waits for the "listening" log line — an event, not a sleep — and
// keeps every log line for assertions; `exited` resolves with the exit code.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The built command, as the package's "bin" runs it. */
export const BIN = join(ROOT, 'dist/cli/bin.js');

export interface GatewayProcess {
  child: ChildProcess;
  configPath: string;
  http: string;
  grpc: string;
  admin: string | undefined;
  /** Parsed JSON log lines so far. */
  logs: Array<Record<string, unknown>>;
  /** Resolves with the first log line that satisfies `test` (already seen or still to come). */
  logLine(test: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Replaces the config file atomically (the watcher must follow the new inode). */
  writeConfig(config: unknown): void;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI to completion. */
export async function runCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Finished> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** Resolves with the first JSON log line (on `child`'s stdout) that satisfies `test`; rejects if the child exits first. */
export function watchLogs(child: ChildProcess): {
  logs: Array<Record<string, unknown>>;
  logLine(test: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
} {
  const logs: Array<Record<string, unknown>> = [];
  const waiters: Array<{
    test: (l: Record<string, unknown>) => boolean;
    resolve: (l: Record<string, unknown>) => void;
  }> = [];
  let stderr = '';
  let buf = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    const lines = buf.split('\n');
    buf = lines.pop() ?? '';
    for (const line of lines) {
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue; // not a log line
      }
      logs.push(json);
      for (const w of [...waiters])
        if (w.test(json)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(json);
        }
    }
  });
  const exited = once(child, 'exit');
  return {
    logs,
    logLine(test) {
      const seen = logs.find(test);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ test, resolve });
        void exited.then(([code]) => reject(new Error(`the process exited (${String(code)}) first: ${stderr}`)));
      });
    },
  };
}

/** `dir`: the test's own folder (t.testdir()); the config is written there as gateway.yaml. */
export async function startGatewayProcess(
  dir: string,
  config: unknown,
  env: NodeJS.ProcessEnv = process.env,
  /** More command-line flags after --config. */
  args: string[] = [],
): Promise<GatewayProcess> {
  const configPath = join(dir, 'gateway.yaml');
  // Replaced atomically (write, then rename over), as editors and config tools do.
  const writeConfig = (c: unknown): void => {
    writeFileSync(`${configPath}.tmp`, stringify(c));
    renameSync(`${configPath}.tmp`, configPath);
  };
  writeConfig(config);
  const child = spawn(process.execPath, [BIN, '--config', configPath, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const { logs, logLine } = watchLogs(child);
  const up = await logLine((l) => l.msg === 'a2a-gateway listening');
  return {
    child,
    configPath,
    http: String(up.http),
    grpc: String(up.grpc),
    admin: up.admin === undefined ? undefined : `127.0.0.1:${String(up.admin)}`,
    logs,
    logLine,
    writeConfig,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
