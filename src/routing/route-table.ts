// The routes in force, swapped as a whole on reload: every call reads the
// table once when it starts, so calls in flight finish on the routes they
// began with while new calls take the new ones.
import type { GatewayConfig } from '../config/types.js';
import { Router } from './router.js';

export class RouteTable {
  private current: { config: GatewayConfig; router: Router };

  constructor(config: GatewayConfig) {
    this.current = { config, router: new Router(config.routes) };
  }

  get router(): Router {
    return this.current.router;
  }

  get config(): GatewayConfig {
    return this.current.config;
  }

  swap(config: GatewayConfig): void {
    this.current = { config, router: new Router(config.routes) };
  }
}
