// Prometheus metrics (prom-client), one registry per gateway: calls by route,
// method, inbound and upstream binding and outcome (OK or the error reason);
// latency histograms, total and upstream part; active streams and stream
// events; upstream connection errors; card refreshes; process metrics (only
// for a gateway with an admin listener, the one place /metrics is served:
// their event-loop-delay histogram and GC observer cost memory and a timer
// every 10 ms that nothing would read). Label values come from config and the
// catalogue only (no task ids, no raw paths).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

type CallChildren = {
  calls: ReturnType<Counter<string>['labels']>;
  duration: ReturnType<Histogram<string>['labels']>;
  upstreamErrors: ReturnType<Counter<string>['labels']> | undefined;
};

export class Metrics {
  readonly registry = new Registry();
  private readonly calls = new Counter({
    name: 'a2a_gateway_calls_total',
    help: "Calls by route, method, inbound and upstream binding, outcome, and the caller's and upstream's A2A version",
    labelNames: ['route', 'method', 'inbound', 'upstream', 'outcome', 'version', 'upstream_version'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'a2a_gateway_call_duration_seconds',
    help: 'Total call duration (streams: until the stream ends)',
    labelNames: ['route', 'method', 'inbound', 'upstream'] as const,
    buckets: BUCKETS,
    registers: [this.registry],
  });
  private readonly upstreamDuration = new Histogram({
    name: 'a2a_gateway_upstream_duration_seconds',
    help: 'Time spent waiting on the upstream for unary calls',
    labelNames: ['route', 'method', 'upstream'] as const,
    buckets: BUCKETS,
    registers: [this.registry],
  });
  private readonly activeStreams = new Gauge({
    name: 'a2a_gateway_active_streams',
    help: 'Streams open now',
    labelNames: ['route', 'inbound'] as const,
    registers: [this.registry],
  });
  private readonly streamEvents = new Counter({
    name: 'a2a_gateway_stream_events_total',
    help: "Stream events relayed (a pass-through SSE stream's added when it ends, counted from its bytes)",
    labelNames: ['route', 'inbound'] as const,
    registers: [this.registry],
  });
  private readonly upstreamErrors = new Counter({
    name: 'a2a_gateway_upstream_errors_total',
    help: 'Upstream connection failures and timeouts',
    labelNames: ['route', 'reason'] as const,
    registers: [this.registry],
  });
  private readonly cardRefreshes = new Counter({
    name: 'a2a_gateway_card_refreshes_total',
    help: 'Upstream agent card fetches by outcome (updated, not_modified, failed)',
    labelNames: ['route', 'outcome'] as const,
    registers: [this.registry],
  });

  /** `processMetrics`: prom-client's default metrics (process, heap, event loop, GC) too. */
  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'a2a_gateway_' });
  }

  /**
   * A call's label children by their values: its label objects are built once per label set (prom-client still
   * hashes the labels on each inc and observe, children or not).
   */
  private readonly children = new Map<string, CallChildren>();

  /**
   * One call's count and duration. Label values come from the route table and the catalogues only; the
   * versions are the caller's wire form (1.0 or 0.3, never the raw header) and the upstream interface's.
   */
  call(
    route: string,
    method: string,
    inbound: string,
    upstream: string,
    outcome: string,
    seconds: number,
    version = '-',
    upstreamVersion = '-',
  ): void {
    const key = `${route}\u0000${method}\u0000${inbound}\u0000${upstream}\u0000${outcome}\u0000${version}\u0000${upstreamVersion}`;
    let c = this.children.get(key);
    if (!c) {
      const unavailable = outcome === 'UPSTREAM_UNAVAILABLE' || outcome === 'UPSTREAM_TIMEOUT';
      c = {
        calls: this.calls.labels(route, method, inbound, upstream, outcome, version, upstreamVersion),
        duration: this.duration.labels(route, method, inbound, upstream),
        upstreamErrors: unavailable ? this.upstreamErrors.labels(route, outcome) : undefined,
      };
      this.children.set(key, c);
    }
    c.calls.inc();
    c.duration.observe(seconds);
    c.upstreamErrors?.inc();
  }

  /** The upstream-duration children by their label values (built once per label set, as the call's). */
  private readonly upstreamChildren = new Map<string, ReturnType<Histogram<string>['labels']>>();

  upstreamTime(route: string, method: string, upstream: string, seconds: number): void {
    const key = `${route}\u0000${method}\u0000${upstream}`;
    let c = this.upstreamChildren.get(key);
    if (!c) {
      c = this.upstreamDuration.labels(route, method, upstream);
      this.upstreamChildren.set(key, c);
    }
    c.observe(seconds);
  }

  streamOpened(route: string, inbound: string): void {
    this.activeStreams.inc({ route, inbound });
  }

  streamClosed(route: string, inbound: string): void {
    this.activeStreams.dec({ route, inbound });
  }

  streamEvent(route: string, inbound: string, n = 1): void {
    this.streamEvents.inc({ route, inbound }, n);
  }

  cardRefresh(route: string, outcome: 'updated' | 'not_modified' | 'failed'): void {
    this.cardRefreshes.inc({ route, outcome });
  }

  // --- Config reloads (src/ops/config-watch.ts) ---
  private readonly configReloads = (() => {
    const c = new Counter({
      name: 'a2a_gateway_config_reload_total',
      help: 'Config file reloads by outcome (success, rejected: the previous config stays in force)',
      labelNames: ['outcome'] as const,
      registers: [this.registry],
    });
    for (const outcome of ['success', 'rejected']) c.inc({ outcome }, 0); // both series exist from the start
    return c;
  })();
  private readonly configLoadedAt = new Gauge({
    name: 'a2a_gateway_config_last_reload_success_timestamp_seconds',
    help: 'When the config in force was loaded (unix seconds; at start, then at each successful reload)',
    registers: [this.registry],
  });
  private readonly configInfo = new Gauge({
    name: 'a2a_gateway_config_info',
    help: 'The config file in force: hash = the first 12 hex digits of the SHA-256 of its bytes',
    labelNames: ['hash'] as const,
    registers: [this.registry],
  });

  configReload(outcome: 'success' | 'rejected'): void {
    this.configReloads.inc({ outcome });
  }

  configApplied(hash: string): void {
    this.configLoadedAt.set(Date.now() / 1000);
    this.configInfo.reset();
    this.configInfo.set({ hash }, 1);
  }
  // --- end of config reloads ---

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
