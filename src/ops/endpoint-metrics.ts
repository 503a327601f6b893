// Prometheus metrics per endpoint of a route (issue 14), on the gateway's
// registry: its status (one series per status, 1 for the current one), the
// calls in flight to it, and its outlier ejections. Labels are the route's
// and the endpoint's configured names only (never a URL).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { EndpointObserver, EndpointStatus } from '../upstream/endpoints.js';

const STATUSES: readonly EndpointStatus[] = ['healthy', 'unhealthy', 'ejected'];

export class EndpointMetrics implements EndpointObserver {
  private readonly statusGauge: Gauge<'route' | 'endpoint' | 'status'>;
  private readonly activeGauge: Gauge<'route' | 'endpoint'>;
  private readonly ejections: Counter<'route' | 'endpoint'>;

  constructor(registry: Registry) {
    this.statusGauge = new Gauge({
      name: 'a2a_gateway_endpoint_status',
      help: "An endpoint's status (healthy, unhealthy by active checks, ejected as an outlier): 1 for the current one",
      labelNames: ['route', 'endpoint', 'status'],
      registers: [registry],
    });
    this.activeGauge = new Gauge({
      name: 'a2a_gateway_endpoint_active_requests',
      help: 'Calls in flight to an endpoint (streams until they end)',
      labelNames: ['route', 'endpoint'],
      registers: [registry],
    });
    this.ejections = new Counter({
      name: 'a2a_gateway_endpoint_ejections_total',
      help: 'Outlier ejections of an endpoint (upstream.outlierDetection)',
      labelNames: ['route', 'endpoint'],
      registers: [registry],
    });
  }

  status(route: string, endpoint: string, status: EndpointStatus): void {
    for (const s of STATUSES) this.statusGauge.set({ route, endpoint, status: s }, s === status ? 1 : 0);
  }

  active(route: string, endpoint: string, n: number): void {
    this.activeGauge.set({ route, endpoint }, n);
  }

  ejected(route: string, endpoint: string): void {
    this.ejections.inc({ route, endpoint });
  }

  removed(route: string, endpoint: string): void {
    for (const status of STATUSES) this.statusGauge.remove({ route, endpoint, status });
    this.activeGauge.remove({ route, endpoint });
    this.ejections.remove({ route, endpoint });
  }
}
