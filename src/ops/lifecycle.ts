// Process lifecycle for the CLI: SIGTERM/SIGINT drain the gateway (stop
// accepting, finish unary calls, end streams after the grace period) and exit
// 0; SIGHUP or a change of the config file reloads it — a valid file swaps the
// routes, an invalid one is logged with every problem and the old config stays.
import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from 'pino';
import { ConfigError, loadConfigFile } from '../config/load.js';
import type { RunningGateway } from '../server/gateway.js';

export function reloadFrom(path: string, gateway: RunningGateway, log: Logger): boolean {
  try {
    gateway.reload(loadConfigFile(path));
    return true;
  } catch (e) {
    const problems = e instanceof ConfigError ? e.problems : [(e as Error).message];
    log.error(
      { problems },
      'configuration NOT reloaded: the file is invalid; the previous configuration stays in force',
    );
    return false;
  }
}

export function installLifecycle(
  gateway: RunningGateway,
  log: Logger,
  graceMs: number,
  configPath: string | undefined,
): void {
  const watchers: FSWatcher[] = [];
  let debounce: NodeJS.Timeout | undefined;
  const stop = (signal: string): void => {
    log.info({ signal }, 'shutting down');
    for (const w of watchers) w.close();
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
  if (!configPath) return;
  process.on('SIGHUP', () => reloadFrom(configPath, gateway, log));
  const watcher = watch(configPath, () => {
    clearTimeout(debounce);
    debounce = setTimeout(() => reloadFrom(configPath, gateway, log), 100);
  });
  watcher.unref();
  watchers.push(watcher);
}
