// Health and readiness: liveness (`GET /healthz`), readiness (`GET /readyz`:
// config loaded, not draining, every route's upstream card loaded or not
// needed, and for a route with several endpoints at least one of them
// available; each such route's endpoints with their status, by name, never
// by URL; the routes that are not ready, with why, as JSON), and the same
// state in the standard gRPC health service (grpc.health.v1.Health): "" for
// the gateway, "lf.a2a.v1.A2AService", and "a2a-gateway.route.<name>" per route.
// grpc-health-check (with its proto loader) is loaded on the first gRPC health
// call; until then the statuses are kept here, and handed to it then.
import { createRequire } from 'node:module';
import type * as grpc from '@grpc/grpc-js';
import type * as GrpcHealthCheck from 'grpc-health-check';
import type { HealthImplementation, ServingStatus } from 'grpc-health-check';
import { addLazyService, captureServices, type ServiceShape } from '../util/lazy-grpc-service.js';
import type { CardService } from '../card/card-service.js';
import type { RouteTable } from '../routing/generation.js';
import { withoutAddresses } from '../errors/addresses.js';
import type { EndpointReport, Endpoints } from '../upstream/endpoints.js';
import { A2AService } from '../gen/a2a_pb.js';

const A2A_SERVICE = A2AService.typeName;

/** grpc.health.v1.Health as grpc-health-check registers it (a unit test holds the two equal). */
export const HEALTH_SERVICE: ServiceShape = {
  Check: { path: '/grpc.health.v1.Health/Check', requestStream: false, responseStream: false },
  Watch: { path: '/grpc.health.v1.Health/Watch', requestStream: false, responseStream: true },
  List: { path: '/grpc.health.v1.Health/List', requestStream: false, responseStream: false },
};

export interface Readiness {
  ready: boolean;
  draining: boolean;
  routes: Array<{ name: string; ready: boolean; reason?: string; endpoints?: EndpointReport[] }>;
}

export class Health {
  draining = false;
  /** The gRPC health statuses by service name; grpc-health-check's implementation once a gRPC health call came. */
  private readonly statuses = new Map<string, ServingStatus>([
    ['', 'SERVING'],
    [A2A_SERVICE, 'SERVING'],
  ]);
  private grpcHealth: HealthImplementation | undefined;
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
    addLazyService(server, HEALTH_SERVICE, () => {
      const lib = createRequire(import.meta.url)('grpc-health-check') as typeof GrpcHealthCheck;
      const implementation = new lib.HealthImplementation(Object.fromEntries(this.statuses));
      this.grpcHealth = implementation;
      return captureServices((s) => implementation.addToServer(s));
    });
  }

  private setStatus(service: string, status: ServingStatus): void {
    this.statuses.set(service, status);
    this.grpcHealth?.setStatus(service, status);
  }

  /** Keeps the gRPC health statuses in step with readiness. */
  async update(): Promise<void> {
    const r = await this.readiness();
    const status = (ok: boolean): ServingStatus => (ok ? 'SERVING' : 'NOT_SERVING');
    this.setStatus('', status(!r.draining));
    this.setStatus(A2A_SERVICE, status(r.ready));
    const names = new Set<string>();
    for (const route of r.routes) {
      names.add(route.name);
      this.setStatus(`a2a-gateway.route.${route.name}`, status(route.ready && !r.draining));
    }
    for (const gone of this.known) if (!names.has(gone)) this.setStatus(`a2a-gateway.route.${gone}`, 'NOT_SERVING');
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
