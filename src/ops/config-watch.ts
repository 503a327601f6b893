// Reloading the config file when it changes, the way it changes in practice:
// edited in place, replaced atomically (`mv`, `sed -i`, editors' write-and-
// rename) or swapped by Kubernetes, whose ConfigMap volume renames a `..data`
// symlink to a new timestamped folder. fs.watch on the file itself follows
// the inode it started on and goes deaf after the first replace, so this
// watches the file's folder (and its real folder, re-resolved after every
// change), debounces, and reloads when the file's bytes hash differently.
// A file that does not load (its card signing keys imported too) is logged
// with every problem and the previous config stays in force. Outcomes, the
// last good load and the active file's hash are exported as metrics
// (a2a_gateway_config_*).
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, watch, type FSWatcher } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Logger } from 'pino';
import { ConfigError, parseConfig } from '../config/load.js';
import { checkSigningKeys } from '../config/signing-keys.js';
import type { GatewayConfig } from '../config/types.js';
import type { ConfigState } from './config-state.js';
import type { Metrics } from './metrics.js';

/** SHA-256 of the file's bytes, first 12 hex digits: enough to tell replicas' configs apart. */
export function configHash(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 12);
}

/** Reads, hashes and validates the file once (the hash is of exactly the bytes loaded), its signing keys imported. */
export async function readConfig(path: string): Promise<{ config: GatewayConfig; hash: string }> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new ConfigError([`${path}: cannot read: ${(e as Error).message}`]);
  }
  const text = bytes.toString('utf8');
  const config = parseConfig(text, path, dirname(resolve(path)));
  await checkSigningKeys(config, text);
  return { config, hash: configHash(bytes) };
}

export interface ConfigWatchOptions {
  path: string;
  /** The hash of the config in force at start. */
  hash: string;
  /** Puts a validated config in force; throwing counts as a rejected reload. */
  apply: (config: GatewayConfig) => void;
  log: Logger;
  metrics?: Metrics;
  /** The hash and last reload outcome, for the admin console. */
  state?: ConfigState;
  /** Changes closer together than this are one reload (default 200 ms). */
  debounceMs?: number;
}

export class ConfigWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private timer: NodeJS.Timeout | undefined;
  /** The hash of the last bytes tried (applied or rejected): the same bytes are not tried twice. */
  private lastSeen: string;
  private closed = false;
  /** Counts the checks: one that finishes after a newer one started applies nothing (its keys took a while). */
  private turn = 0;

  constructor(private readonly o: ConfigWatchOptions) {
    this.lastSeen = o.hash;
    o.metrics?.configApplied(o.hash);
    o.state?.applied(o.hash, 'start');
  }

  /** Starts watching; without this only `reload()` (SIGHUP) reloads. */
  start(): this {
    this.rewatch();
    return this;
  }

  /** SIGHUP: read and apply the file even if its bytes did not change (secrets from the environment, certificates). */
  reload(): Promise<boolean> {
    return this.check(true);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  /** The folders to watch: the configured path's and its real file's (they differ behind symlinks). */
  private folders(): Set<string> {
    const path = resolve(this.o.path);
    const out = new Set([dirname(path)]);
    try {
      out.add(dirname(realpathSync(path)));
    } catch {
      // missing for now: the configured folder's events will tell when it is back
    }
    return out;
  }

  private rewatch(): void {
    if (this.closed) return;
    const want = this.folders();
    for (const [dir, w] of this.watchers)
      if (!want.has(dir)) {
        w.close();
        this.watchers.delete(dir);
      }
    for (const dir of want) {
      if (this.watchers.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: false }, () => this.schedule());
        w.on('error', () => {
          // the folder went away (an old ConfigMap generation): forget it, look again
          w.close();
          if (this.watchers.get(dir) === w) this.watchers.delete(dir);
          this.schedule();
        });
        this.watchers.set(dir, w);
      } catch (e) {
        this.o.log.warn({ dir, err: (e as Error).message }, 'cannot watch the config folder; SIGHUP still reloads');
      }
    }
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.check(false), this.o.debounceMs ?? 200);
    this.timer.unref();
  }

  private async check(force: boolean): Promise<boolean> {
    // closed when the gateway drains: a SIGHUP or a timer then must not swap in routes (and health checks) it would
    // only start to stop
    if (this.closed) return false;
    this.rewatch();
    const turn = ++this.turn;
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.o.path);
    } catch (e) {
      if (!force && this.lastSeen === 'unreadable') return false;
      this.lastSeen = 'unreadable';
      return this.reject([`${this.o.path}: cannot read: ${(e as Error).message}`], undefined, force);
    }
    const hash = configHash(bytes);
    if (!force && hash === this.lastSeen) return false;
    this.lastSeen = hash;
    try {
      const text = bytes.toString('utf8');
      const config: GatewayConfig = parseConfig(text, this.o.path, dirname(resolve(this.o.path)));
      await checkSigningKeys(config, text);
      // the gateway began to drain, or a newer change came, while the keys were read
      if (this.closed || turn !== this.turn) return false;
      this.o.apply(config);
    } catch (e) {
      if (this.closed || turn !== this.turn) return false;
      return this.reject(e instanceof ConfigError ? e.problems : [(e as Error).message], hash, force);
    }
    this.o.metrics?.configReload('success');
    this.o.metrics?.configApplied(hash);
    this.o.state?.applied(hash, force ? 'SIGHUP' : 'file change');
    this.o.log.info({ hash, trigger: force ? 'SIGHUP' : 'file change' }, 'configuration file applied');
    return true;
  }

  private reject(problems: string[], hash: string | undefined, force: boolean): false {
    this.o.metrics?.configReload('rejected');
    this.o.state?.rejected(problems, hash, force ? 'SIGHUP' : 'file change');
    this.o.log.error(
      { problems, hash },
      'configuration NOT reloaded: the file is invalid; the previous configuration stays in force',
    );
    return false;
  }
}
