// Live traffic for the admin console, from the gateway's own prom-client
// registry (ops/metrics.ts; no Prometheus server needed): every interval the
// call counter and the duration histogram are read and turned into rates —
// calls/s, errors/s, mean and p95 latency over the interval — per route and
// per binding pair (inbound → upstream), keeping the last `keep` points of
// each series. Totals since start are read at request time.
import type { Registry } from 'prom-client';

interface Counts {
  calls: number;
  errors: number;
  seconds: number;
  observed: number;
  /** Cumulative histogram bucket counts by upper bound. */
  buckets: Map<number, number>;
}

export interface TrafficPoint {
  /** Unix milliseconds at the end of the interval. */
  t: number;
  rate: number;
  errorRate: number;
  /** Mean and p95 (the upper bound of its bucket) over the interval; null without calls. */
  latencyMs: number | null;
  p95Ms: number | null;
}

export interface TrafficTotals {
  calls: number;
  errors: number;
  meanLatencyMs: number | null;
}

export interface TrafficSeries {
  key: string;
  totals: TrafficTotals;
  points: TrafficPoint[];
}

type Snapshot = { routes: Map<string, Counts>; pairs: Map<string, Counts> };

const empty = (): Counts => ({ calls: 0, errors: 0, seconds: 0, observed: 0, buckets: new Map() });

function at(map: Map<string, Counts>, key: string): Counts {
  let c = map.get(key);
  if (!c) map.set(key, (c = empty()));
  return c;
}

/** The p95 of the calls in a delta of cumulative buckets: the first bound that holds 95 % of them. */
function p95(now: Counts, before: Counts | undefined, calls: number): number | null {
  if (calls === 0) return null;
  const bounds = [...now.buckets.keys()].sort((a, b) => a - b);
  for (const le of bounds) {
    const n = now.buckets.get(le)! - (before?.buckets.get(le) ?? 0);
    if (n >= 0.95 * calls) return Number.isFinite(le) ? le * 1000 : null;
  }
  return null;
}

export class TrafficSampler {
  private previous: Snapshot | undefined;
  private previousAt = 0;
  private readonly series = { routes: new Map<string, TrafficPoint[]>(), pairs: new Map<string, TrafficPoint[]>() };
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly registry: Registry,
    readonly intervalMs = 5000,
    private readonly keep = 60,
  ) {}

  start(): void {
    void this.sample();
    this.timer = setInterval(() => void this.sample(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Reads the registry now: calls and durations by route and by binding pair. */
  async snapshot(): Promise<Snapshot> {
    const out: Snapshot = { routes: new Map(), pairs: new Map() };
    const calls = await this.registry.getSingleMetric('a2a_gateway_calls_total')?.get();
    for (const v of calls?.values ?? []) {
      const l = v.labels;
      const err = l.outcome !== 'OK' ? v.value : 0;
      for (const c of [at(out.pairs, `${l.inbound} → ${l.upstream}`), at(out.routes, String(l.route))]) {
        c.calls += v.value;
        c.errors += err;
      }
    }
    const duration = await this.registry.getSingleMetric('a2a_gateway_call_duration_seconds')?.get();
    for (const v of duration?.values ?? []) {
      const l = v.labels;
      const name = (v as { metricName?: string }).metricName ?? '';
      for (const c of [at(out.pairs, `${l.inbound} → ${l.upstream}`), at(out.routes, String(l.route))]) {
        if (name.endsWith('_sum')) c.seconds += v.value;
        else if (name.endsWith('_count')) c.observed += v.value;
        else if (name.endsWith('_bucket')) {
          const le = l.le === '+Inf' ? Infinity : Number(l.le);
          c.buckets.set(le, (c.buckets.get(le) ?? 0) + v.value);
        }
      }
    }
    return out;
  }

  /** One point per series: what happened since the last sample. */
  async sample(): Promise<void> {
    const now = await this.snapshot();
    const t = Date.now();
    const before = this.previous;
    if (before) {
      const seconds = Math.max((t - this.previousAt) / 1000, 0.001);
      for (const kind of ['routes', 'pairs'] as const)
        for (const [key, c] of now[kind]) {
          const b = before[kind].get(key);
          const calls = c.calls - (b?.calls ?? 0);
          const observed = c.observed - (b?.observed ?? 0);
          const point: TrafficPoint = {
            t,
            rate: calls / seconds,
            errorRate: (c.errors - (b?.errors ?? 0)) / seconds,
            latencyMs: observed > 0 ? ((c.seconds - (b?.seconds ?? 0)) / observed) * 1000 : null,
            p95Ms: p95(c, b, observed),
          };
          const list = this.series[kind].get(key) ?? [];
          list.push(point);
          if (list.length > this.keep) list.shift();
          this.series[kind].set(key, list);
        }
    }
    this.previous = now;
    this.previousAt = t;
  }

  /** Totals since start (read now) and the sampled points, per route and per binding pair. */
  async view(): Promise<{ intervalSeconds: number; routes: TrafficSeries[]; pairs: TrafficSeries[] }> {
    const now = await this.snapshot();
    const list = (kind: 'routes' | 'pairs'): TrafficSeries[] =>
      [...now[kind]]
        .map(([key, c]) => ({
          key,
          totals: {
            calls: c.calls,
            errors: c.errors,
            meanLatencyMs: c.observed > 0 ? (c.seconds / c.observed) * 1000 : null,
          },
          points: this.series[kind].get(key) ?? [],
        }))
        .sort((a, b) => a.key.localeCompare(b.key));
    return { intervalSeconds: this.intervalMs / 1000, routes: list('routes'), pairs: list('pairs') };
  }
}
