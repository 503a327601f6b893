// The real CLI as a child process: writes a YAML config to a temp file,
// spawns `a2a-gateway --config FILE` (TypeScript via tsx, or a built entry),
// waits for its "listening" log line and keeps every log line for assertions.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface GatewayProcess {
  child: ChildProcess;
  configPath: string;
  http: string;
  grpc: string;
  admin: string | undefined;
  /** Parsed JSON log lines so far. */
  logs: Array<Record<string, unknown>>;
  writeConfig(config: unknown): void;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startGatewayProcess(
  config: unknown,
  entry: string[] = ['--import', 'tsx', 'src/cli/bin.ts'],
): Promise<GatewayProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-gw-'));
  const configPath = join(dir, 'gateway.yaml');
  const writeConfig = (c: unknown): void => writeFileSync(configPath, stringify(c));
  writeConfig(config);
  const child = spawn(process.execPath, [...entry, '--config', configPath], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  let buf = '';
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const listening = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const json = JSON.parse(line) as Record<string, unknown>;
          logs.push(json);
          if (json.msg === 'a2a-gateway listening') resolve(json);
        } catch {
          // not a log line
        }
      }
    });
    void exited.then((code) => reject(new Error(`gateway exited (${code}) before listening`)));
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const up = await listening.catch((e: Error) => {
    throw new Error(`${e.message}: ${stderr}`);
  });
  const admin = up.admin === undefined ? undefined : `127.0.0.1:${String(up.admin)}`;
  return {
    child,
    configPath,
    http: String(up.http),
    grpc: String(up.grpc),
    admin,
    logs,
    writeConfig,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
