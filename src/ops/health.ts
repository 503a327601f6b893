// Health and readiness: liveness (`GET /healthz`), readiness (`GET /readyz`:
// config loaded, not draining, every route's upstream card loaded or not
// needed, and for a route with several endpoints at least one of them
// available; each such route's endpoints with their status, by name, never
// by URL; the routes that are not ready, with why, as JSON), and the same
// state in the standard gRPC health service (grpc.health.v1.Health): "" for
// the gateway, "lf.a2a.v1.A2AService", and "a2a-gateway.route.<name>" per route.
import type * as grpc from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import type { CardService } from '../card/card-service.js';
import type { RouteTable } from '../routing/generation.js';
import { withoutAddresses } from '../errors/addresses.js';
import type { EndpointReport, Endpoints } from '../upstream/endpoints.js';
import { A2AService } from '../gen/a2a_pb.js';

const A2A_SERVICE = A2AService.typeName;

export interface Readiness {
  ready: boolean;
  draining: boolean;
  routes: Array<{ name: string; ready: boolean; reason?: string; endpoints?: EndpointReport[] }>;
}

export class Health {
  draining = false;
  private readonly grpcHealth = new HealthImplementation({ '': 'SERVING', [A2A_SERVICE]: 'SERVING' });
  private timer: NodeJS.Timeout | undefined;
  private known = new Set<string>();

  constructor(
    private readonly table: RouteTable,
    private readonly cards: CardService,
    private readonly endpoints?: Endpoints,
  ) {}

  async readiness(): Promise<Readiness> {
    const routes = await Promise.all(
      this.table.config.routes.map(async (r) => {
        const status = await this.cards.status(r);
        // readiness may be public (no admin listener): reasons without the upstreams' addresses
        const card = status.reason ? { ...status, reason: withoutAddresses(status.reason) } : status;
        if (!this.endpoints || r.upstream.endpoints.length < 2) return { name: r.name, ...card };
        const endpoints = this.endpoints.report(r);
        const none = endpoints.every((e) => e.status !== 'healthy');
        const ready = card.ready && !none;
        const reason = card.reason ?? (none ? 'no endpoint available' : undefined);
        return { name: r.name, ready, ...(ready || !reason ? {} : { reason }), endpoints };
      }),
    );
    return { ready: !this.draining && routes.every((r) => r.ready), draining: this.draining, routes };
  }

  addTo(server: grpc.Server): void {
    this.grpcHealth.addToServer(server);
  }

  /** Keeps the gRPC health statuses in step with readiness. */
  async update(): Promise<void> {
    const r = await this.readiness();
    const status = (ok: boolean): ServingStatus => (ok ? 'SERVING' : 'NOT_SERVING');
    this.grpcHealth.setStatus('', status(!r.draining));
    this.grpcHealth.setStatus(A2A_SERVICE, status(r.ready));
    const names = new Set<string>();
    for (const route of r.routes) {
      names.add(route.name);
      this.grpcHealth.setStatus(`a2a-gateway.route.${route.name}`, status(route.ready && !r.draining));
    }
    for (const gone of this.known)
      if (!names.has(gone)) this.grpcHealth.setStatus(`a2a-gateway.route.${gone}`, 'NOT_SERVING');
    this.known = names;
  }

  start(intervalMs = 2000): void {
    void this.update();
    this.timer = setInterval(() => void this.update(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
