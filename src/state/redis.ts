// State shared by the gateway's replicas (issue 14), in Redis (`state.redis`,
// `--redis URL`): one ioredis connection per gateway that never queues a
// command while Redis is away (enableOfflineQueue off, a command timeout), so
// a Redis outage costs a call at most one failed round trip, never a hang.
// Each user keeps a process-local fallback: task affinity its own table, the
// rate limits fail open or closed (state.redis.rateLimitFailure), the card
// store its in-memory cards. The outage and the recovery are logged once each;
// ioredis reconnects by itself, and `onReconnect` hooks run when it has.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { StateConfig } from '../config/types.js';

/** Reconnect every 100 ms at first, backing off to 2 s while Redis stays away. */
const retryStrategy = (times: number): number => Math.min(100 * 2 ** Math.min(times, 5), 2_000);

export class SharedState {
  readonly client: Redis;
  readonly prefix: string;
  private down = false;
  private closing = false;
  private readonly reconnected: Array<() => void> = [];

  constructor(
    readonly config: StateConfig['redis'],
    private readonly log: Logger,
  ) {
    this.prefix = config.keyPrefix;
    this.client = new Redis(config.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: config.commandTimeoutMs,
      connectTimeout: Math.max(config.commandTimeoutMs, 1_000),
      retryStrategy,
      lazyConnect: false,
    });
    this.client.on('ready', () => {
      if (!this.down) return;
      this.down = false;
      this.log.info('redis reachable again: shared affinity, rate limits and cards are back in use');
      for (const hook of this.reconnected) hook();
    });
    this.client.on('error', (err: Error) => this.lost(err.message));
    this.client.on('close', () => this.lost('connection closed'));
  }

  private lost(why: string): void {
    if (this.down || this.closing) return;
    this.down = true;
    this.log.warn(
      { err: why },
      'redis unavailable: task affinity falls back to this process, rate limits fail per state.redis.rateLimitFailure',
    );
  }

  /** Whether commands can be sent now (they fail at once otherwise). */
  get ready(): boolean {
    return this.client.status === 'ready';
  }

  /** Runs `hook` every time the connection comes back after an outage. */
  onReconnect(hook: () => void): void {
    this.reconnected.push(hook);
  }

  /** Resolves when connected (or after `boundMs`): a gateway starts serving either way. */
  async connected(boundMs = 2_000): Promise<boolean> {
    if (this.ready) return true;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), boundMs);
      timer.unref();
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        resolve(ok);
      };
      const onReady = (): void => done(true);
      this.client.on('ready', onReady);
    });
  }

  key(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }

  close(): void {
    this.closing = true;
    this.client.disconnect();
  }
}
