// Process lifecycle for the CLI: SIGTERM/SIGINT drain the gateway (stop
// accepting, finish unary calls, end streams after the grace period) and exit
// 0 (a repeated SIGTERM is ignored, a second SIGINT exits at once); SIGHUP or a change of the config file (config-watch.ts: atomic replaces
// and Kubernetes ConfigMap swaps included) reloads it — a valid file swaps the
// routes, an invalid one is logged with every problem and the old config stays.
// A SIGTERM or SIGINT that comes while the gateway starts (its listening line
// is out before the lifecycle is installed) is held, then handled as usual.
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/types.js';
import type { RunningGateway } from '../server/gateway.js';
import { ConfigWatch } from './config-watch.js';

/** Holds SIGTERM and SIGINT until `release()`, which raises the ones that came again (for installLifecycle's handlers). */
export function holdSignals(): { release(): void } {
  // each one, in order: Ctrl-C twice while starting still exits at once
  const held: NodeJS.Signals[] = [];
  const hold = (signal: NodeJS.Signals): void => void held.push(signal);
  process.on('SIGTERM', hold);
  process.on('SIGINT', hold);
  return {
    release() {
      process.off('SIGTERM', hold);
      process.off('SIGINT', hold);
      for (const signal of held) process.emit(signal, signal);
    },
  };
}

/** The log's destination (pino.destination()): its synchronous flush runs again at process exit. */
interface LogDestination {
  flushSync(): void;
  end(): void;
  once(event: 'close', listener: () => void): unknown;
}

/**
 * Exits once the log is written out and closed, or after 1 s at the latest. A log whose reader is gone or stuck
 * must not keep a SIGTERMed gateway alive: its async writes never finish, and pino's exit hook would retry the
 * synchronous flush for ever (sonic-boom sleeps and retries a failed write): once the log is closed or past the
 * deadline, the exit hook's flush is skipped. (`log.flush(cb)` alone could call back with the shutdown's last
 * lines still buffered: they were lost about one time in ten.)
 */
export function flushThenExit(log: Logger, code: number, dest?: LogDestination): void {
  const exit = (): void => {
    if (dest) dest.flushSync = () => undefined;
    process.exit(code);
  };
  setTimeout(exit, 1000);
  try {
    if (dest) {
      dest.once('close', exit);
      dest.end();
    } else log.flush(exit);
  } catch {
    exit();
  }
}

export function installLifecycle(
  gateway: RunningGateway,
  log: Logger,
  graceMs: number,
  configFile: { path: string; hash: string } | undefined,
  dest?: LogDestination,
  /** The command line's settings over the file (`--redis`): a reloaded file gets them too. */
  overrides: Partial<GatewayConfig> = {},
  /** What else a reloaded configuration changes (the log level), once the gateway took it. */
  applied?: (config: GatewayConfig) => void,
): void {
  // the grace period of the configuration in force when the signal comes
  let grace = graceMs;
  const watcher = configFile
    ? new ConfigWatch({
        ...configFile,
        apply: (c) => {
          const next = { ...c, ...overrides };
          gateway.reload(next);
          grace = next.shutdownGraceMs;
          applied?.(next);
        },
        log,
        metrics: gateway.metrics,
        state: gateway.configState,
      }).start()
    : undefined;
  let stopping = false;
  const stop = (signal: string): void => {
    // A repeated SIGTERM (a process group signalled while its parent, npm or an init, forwards the same signal)
    // must not kill the drain half-way: it is ignored. A second SIGINT (Ctrl-C twice) exits at once.
    if (stopping) {
      if (signal === 'SIGINT') flushThenExit(log, 130, dest);
      return;
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    watcher?.close();
    gateway.drain(grace).then(
      () => flushThenExit(log, 0, dest),
      (e: unknown) => {
        log.error({ err: (e as Error).message }, 'shutdown failed');
        flushThenExit(log, 1, dest);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (watcher) process.on('SIGHUP', () => void watcher.reload());
}
