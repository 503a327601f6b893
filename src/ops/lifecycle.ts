// Process lifecycle for the CLI: SIGTERM/SIGINT drain the gateway (stop
// accepting, finish unary calls, end streams after the grace period) and exit
// 0; SIGHUP or a change of the config file (config-watch.ts: atomic replaces
// and Kubernetes ConfigMap swaps included) reloads it — a valid file swaps the
// routes, an invalid one is logged with every problem and the old config stays.
import type { Logger } from 'pino';
import type { RunningGateway } from '../server/gateway.js';
import { ConfigWatch } from './config-watch.js';

export function installLifecycle(
  gateway: RunningGateway,
  log: Logger,
  graceMs: number,
  configFile: { path: string; hash: string } | undefined,
): void {
  const watcher = configFile
    ? new ConfigWatch({ ...configFile, apply: (c) => gateway.reload(c), log, metrics: gateway.metrics }).start()
    : undefined;
  const stop = (signal: string): void => {
    log.info({ signal }, 'shutting down');
    watcher?.close();
    const exit = (code: number): void => log.flush(() => process.exit(code));
    gateway.drain(graceMs).then(
      () => exit(0),
      (e: unknown) => {
        log.error({ err: (e as Error).message }, 'shutdown failed');
        exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  if (watcher) process.on('SIGHUP', () => watcher.reload());
}
