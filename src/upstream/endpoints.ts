// A route's endpoints (issue 14), the model of an Envoy cluster's hosts: each
// endpoint's state — calls in flight, the active health checks' verdict, the
// passive outlier ejection (failures in a row eject it for the base time
// times the number of its ejections, up to a maximum; at most
// maxEjectionPercent of the route's endpoints at once, at least one), its
// circuit breaker (circuit-breaker.ts) — kept per route name and URL so a
// reload does not forget it; and per route configuration the set the
// balancer picks from (the available endpoints, those whose breaker would
// take the call first; all of them, Envoy's panic mode, when none is
// available). Each endpoint is reached as a copy of the route whose upstream
// is that endpoint alone (its card, its interfaces, its pools). An endpoint a
// reload removed leaves the metrics for good (its calls finish).
import type { Logger } from 'pino';
import { MAX_TIMER_MS, type CircuitBreakerConfig, type HealthCheckConfig, type RouteConfig } from '../config/types.js';
import { withoutAddresses } from '../errors/addresses.js';
import { leastRequest, roundRobin, type Balanced } from './balancer.js';
import { CircuitBreaker } from './circuit-breaker.js';
import type { AbortLike } from '../util/call-signal.js';

export type EndpointStatus = 'healthy' | 'unhealthy' | 'ejected';

/** One endpoint as readiness and the admin side see it (its name, never its URL). */
export interface EndpointReport {
  name: string;
  status: EndpointStatus;
  activeRequests: number;
  ejections: number;
  reason?: string;
}

/** What the directory tells the metrics. */
export interface EndpointObserver {
  status(route: string, endpoint: string, status: EndpointStatus): void;
  ejected(route: string, endpoint: string): void;
  active(route: string, endpoint: string, n: number): void;
  /** The endpoint is gone from the config: its series go too. */
  removed(route: string, endpoint: string): void;
}

const copies = new WeakMap<RouteConfig, RouteConfig[]>();

/** The route as each endpoint is reached: the route itself when it has one endpoint. */
export function endpointRoutes(route: RouteConfig): RouteConfig[] {
  if (route.upstream.endpoints.length <= 1) return [route];
  let list = copies.get(route);
  if (!list) {
    list = route.upstream.endpoints.map((e) => ({
      ...route,
      upstream: { ...route.upstream, url: e.url, endpoints: [e] },
    }));
    copies.set(route, list);
  }
  return list;
}

export class Endpoint {
  healthy = true;
  checkFails = 0;
  checkPasses = 0;
  failures = 0;
  ejections = 0;
  ejectedUntil = 0;
  reason: string | undefined;
  private readonly breaker: CircuitBreaker;

  constructor(
    readonly routeName: string,
    readonly name: string,
    readonly url: string,
    private observer: EndpointObserver | undefined,
  ) {
    this.breaker = new CircuitBreaker(name, (n) => this.observer?.active(routeName, name, n));
  }

  /** Calls in flight to the endpoint now. */
  get active(): number {
    return this.breaker.active;
  }

  /** Tells the metrics the endpoint's status (and that it was just ejected). */
  tell(ejected = false): void {
    if (ejected) this.observer?.ejected(this.routeName, this.name);
    this.observer?.status(this.routeName, this.name, this.status);
  }

  /** A reload removed (or renamed) it: its series go, and nothing more of it (calls ending, late checks) comes. */
  remove(): void {
    this.observer?.removed(this.routeName, this.name);
    this.observer = undefined;
  }

  get ejected(): boolean {
    return this.ejectedUntil > Date.now();
  }

  get available(): boolean {
    return this.healthy && !this.ejected;
  }

  get status(): EndpointStatus {
    return !this.healthy ? 'unhealthy' : this.ejected ? 'ejected' : 'healthy';
  }

  /** Forgets the active checks' verdict (they were turned off). */
  clearChecks(): void {
    this.healthy = true;
    this.checkFails = 0;
    this.checkPasses = 0;
    this.tell();
  }

  /** The circuit breaker: a connection slot now, or after waiting for one (circuit-breaker.ts); else overloaded. */
  admit(cb: CircuitBreakerConfig, signal: AbortLike, timeoutMs?: number, since?: bigint): Promise<() => void> {
    return this.breaker.admit(cb, signal, timeoutMs, since);
  }

  /** A call would be admitted now, or may wait for a slot. */
  canAdmit(cb: CircuitBreakerConfig): boolean {
    return this.breaker.canAdmit(cb);
  }
}

/** An endpoint in one route configuration: its weight there and its round-robin state. */
export class Member implements Balanced {
  current = 0;
  constructor(
    readonly endpoint: Endpoint,
    /** The route with this endpoint as its only upstream. */
    readonly route: RouteConfig,
    readonly weight: number,
  ) {}
  get active(): number {
    return this.endpoint.active;
  }
}

export class EndpointSet {
  private readonly picked: Member[] = [];
  constructor(
    readonly route: RouteConfig,
    readonly members: readonly Member[],
  ) {}

  byUrl(url: string | undefined): Member | undefined {
    return url === undefined ? undefined : this.members.find((m) => m.endpoint.url === url);
  }

  /** Some endpoint is available (none: panic mode, calls go to all of them). */
  anyAvailable(): boolean {
    for (const m of this.members) if (m.endpoint.available) return true;
    return false;
  }

  /**
   * The next endpoint for a new call, leaving out `except`; undefined when there is no other. It is picked from the
   * available endpoints whose circuit breaker would take the call, else from the available ones (each then refuses it,
   * UPSTREAM_OVERLOADED), and when none is available from all of them (panic mode), those that would take it first.
   */
  pick(except?: Member): Member | undefined {
    const cb = this.route.upstream.circuitBreaker;
    const from = this.picked;
    // (one array per set, refilled on each pick: picking allocates nothing)
    from.length = 0;
    for (const m of this.members) if (m !== except && m.endpoint.available && m.endpoint.canAdmit(cb)) from.push(m);
    if (from.length === 0) for (const m of this.members) if (m !== except && m.endpoint.available) from.push(m);
    if (from.length === 0) for (const m of this.members) if (m !== except && m.endpoint.canAdmit(cb)) from.push(m);
    if (from.length === 0) for (const m of this.members) if (m !== except) from.push(m);
    if (from.length === 0) return undefined;
    const m = this.route.upstream.loadBalancing === 'round-robin' ? roundRobin(from) : leastRequest(from);
    from.length = 0;
    return m;
  }
}

/** One endpoint per route and URL (its name may change on reload). */
const endpointKey = (route: string, url: string): string => `${route}\u0000${url}`;

export class Endpoints {
  private readonly byKey = new Map<string, Endpoint>();
  private readonly sets = new WeakMap<RouteConfig, EndpointSet>();

  constructor(
    private readonly log: Logger,
    private readonly observer?: EndpointObserver,
  ) {}

  private endpoint(route: string, name: string, url: string): Endpoint {
    const key = endpointKey(route, url);
    let e = this.byKey.get(key);
    if (!e || e.name !== name) {
      // a renamed endpoint's series go with its old name
      e?.remove();
      e = new Endpoint(route, name, url, this.observer);
      this.byKey.set(key, e);
      this.observer?.status(route, name, 'healthy');
    }
    return e;
  }

  of(route: RouteConfig): EndpointSet {
    let set = this.sets.get(route);
    if (!set) {
      const routes = endpointRoutes(route);
      const members = route.upstream.endpoints.map((e, i) => {
        const endpoint = this.endpoint(route.name, e.name, e.url);
        // a config without active checks (a reload may have turned them off): no verdict of theirs stays
        if (!route.upstream.healthCheck && !endpoint.healthy) endpoint.clearChecks();
        return new Member(endpoint, routes[i]!, e.weight);
      });
      set = new EndpointSet(route, members);
      this.sets.set(route, set);
    }
    return set;
  }

  /** After a reload: forget the endpoints no route lists any more. */
  retain(routes: readonly RouteConfig[]): void {
    const keep = new Set(routes.flatMap((r) => r.upstream.endpoints.map((e) => endpointKey(r.name, e.url))));
    for (const [key, e] of this.byKey) {
      if (keep.has(key)) continue;
      this.byKey.delete(key);
      e.remove();
    }
  }

  /** The endpoints of a route, for readiness and the admin side. */
  report(route: RouteConfig): EndpointReport[] {
    return this.of(route).members.map(({ endpoint: e }) => ({
      name: e.name,
      status: e.status,
      activeRequests: e.active,
      ejections: e.ejections,
      ...(e.status !== 'healthy' && e.reason ? { reason: e.reason } : {}),
    }));
  }

  succeeded(m: Member): void {
    const e = m.endpoint;
    e.failures = 0;
    // a healthy stretch as long as the base ejection time takes one ejection off the multiplier
    const od = m.route.upstream.outlierDetection;
    if (e.ejections > 0 && !e.ejected && Date.now() > e.ejectedUntil + od.baseEjectionMs) {
      e.ejections--;
      e.ejectedUntil = Date.now();
    }
  }

  /** A call failed on the endpoint without an answer (refused, reset, timed out, unavailable). */
  failed(set: EndpointSet, m: Member, why: string): void {
    const e = m.endpoint;
    e.failures++;
    // readiness and the console show the reason: without the upstream's address (the log has it whole)
    e.reason = withoutAddresses(why);
    const od = set.route.upstream.outlierDetection;
    if (set.members.length < 2 || e.failures < od.consecutiveFailures || e.ejected) return;
    const ejected = set.members.filter((x) => x.endpoint.ejected).length;
    if (ejected >= Math.max(1, Math.floor((set.members.length * od.maxEjectionPercent) / 100))) return;
    e.ejections++;
    const ms = Math.min(od.baseEjectionMs * e.ejections, od.maxEjectionMs);
    e.ejectedUntil = Date.now() + ms;
    e.failures = 0;
    e.tell(true);
    this.log.warn(
      { route: e.routeName, endpoint: e.name, ejectedForMs: ms, err: why },
      'endpoint ejected after failures in a row (upstream.outlierDetection)',
    );
    // (maxEjectionMs may be the longest a timer holds: one more would fire at once)
    const back = setTimeout(() => e.tell(), Math.min(ms + 1, MAX_TIMER_MS));
    back.unref();
  }

  /** An active health check's result. */
  checked(m: Member, hc: HealthCheckConfig, ok: boolean, why?: string): void {
    const e = m.endpoint;
    if (ok) {
      e.checkFails = 0;
      e.checkPasses++;
      // Envoy's default: a passing active check also ends an ejection
      if (e.ejected) e.ejectedUntil = Date.now();
      if (!e.healthy && e.checkPasses >= hc.healthyThreshold) {
        e.healthy = true;
        e.failures = 0;
        this.log.info({ route: e.routeName, endpoint: e.name }, 'endpoint healthy again');
      }
    } else {
      e.checkPasses = 0;
      e.checkFails++;
      e.reason = why === undefined ? undefined : withoutAddresses(why);
      if (e.healthy && e.checkFails >= hc.unhealthyThreshold) {
        e.healthy = false;
        this.log.warn({ route: e.routeName, endpoint: e.name, err: why }, 'endpoint failed its health checks');
      }
    }
    e.tell();
  }
}
