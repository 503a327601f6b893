// A configuration generation: the routes in force (a Router over them) and the
// upstream connections they use (UpstreamRegistry). Every call takes the
// current generation when it arrives and keeps it to the end; a reload makes
// a new generation and retires the previous one, whose connections close when
// its last call has ended (Envoy drains a cluster's pools the same way).
import type { GatewayConfig } from '../config/types.js';
import type { UpstreamRegistry } from '../upstream/registry.js';
import { Router } from './router.js';

export class Generation {
  readonly router: Router;

  constructor(
    readonly config: GatewayConfig,
    readonly upstreams: UpstreamRegistry,
    /** 1 for the configuration the gateway started with, +1 per reload. */
    readonly number: number,
  ) {
    this.router = new Router(config.routes);
  }
}

/** The generation in force; swapped as a whole on reload. */
export class RouteTable {
  private current: Generation;
  /** Retired generations whose calls have not all ended yet. */
  private readonly retiring = new Set<UpstreamRegistry>();

  constructor(
    config: GatewayConfig,
    private readonly makeUpstreams: (config: GatewayConfig) => UpstreamRegistry,
  ) {
    this.current = new Generation(config, makeUpstreams(config), 1);
  }

  get generation(): Generation {
    return this.current;
  }

  get router(): Router {
    return this.current.router;
  }

  get config(): GatewayConfig {
    return this.current.config;
  }

  /** New calls take the new routes and connections; calls in flight finish on theirs, which then close. */
  swap(config: GatewayConfig): void {
    const previous = this.current;
    this.current = new Generation(config, this.makeUpstreams(config), previous.number + 1);
    this.retiring.add(previous.upstreams);
    void previous.upstreams.retire().then(() => this.retiring.delete(previous.upstreams));
  }

  /** Every generation's connections closed now (the gateway is closing). */
  async close(): Promise<void> {
    await Promise.all([this.current.upstreams.close(), ...[...this.retiring].map((u) => u.close())]);
  }
}
