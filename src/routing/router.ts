// Route selection (issue: routes by tenant, HTTP path prefix and Host /
// :authority). Candidates are ordered most specific first: host-bound
// routes, then longer path prefixes, then tenant-bound routes. Prefixes and
// tenants are matched in one canonical form (canonical.ts): the canonical
// path, prefixes and tenants compared case-insensitively.
import type { Binding, RouteConfig } from '../config/types.js';
import { prefixKey, sameTenant } from './canonical.js';

export interface PrefixMatch {
  route: RouteConfig;
  /** The request path below the route's prefix, starting with "/" (or ""). */
  rest: string;
  /** The prefix as compared (routes with the same key share a path). */
  prefix: string;
}

function hostOf(hostHeader: string | undefined): string {
  const h = (hostHeader ?? '').toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon >= 0 ? h.slice(0, colon) : h;
}

function specificity(r: RouteConfig): number {
  return (r.hosts.length > 0 ? 1_000_000 : 0) + r.pathPrefix.length * 2 + (r.tenant !== undefined ? 1 : 0);
}

export class Router {
  private readonly ordered: RouteConfig[];
  private readonly prefixes: Map<RouteConfig, string>;

  constructor(routes: readonly RouteConfig[]) {
    this.ordered = [...routes].sort((a, b) => specificity(b) - specificity(a));
    this.prefixes = new Map(routes.map((r) => [r, prefixKey(r.pathPrefix)]));
  }

  get routes(): readonly RouteConfig[] {
    return this.ordered;
  }

  private hostMatches(r: RouteConfig, host: string): boolean {
    return r.hosts.length === 0 || r.hosts.includes(host);
  }

  /** A route bound to this host, for its card at the host's root well-known URI: one bound to no tenant first. */
  hostRoute(hostHeader: string | undefined): RouteConfig | undefined {
    const host = hostOf(hostHeader);
    const bound = (r: RouteConfig): boolean => r.hosts.includes(host);
    return this.ordered.find((r) => bound(r) && r.tenant === undefined) ?? this.ordered.find(bound);
  }

  /** HTTP: routes whose host and path prefix match the canonical path (canonical.ts), most specific first. */
  httpCandidates(hostHeader: string | undefined, path: string): PrefixMatch[] {
    const host = hostOf(hostHeader);
    const lower = path.toLowerCase();
    const out: PrefixMatch[] = [];
    for (const r of this.ordered) {
      if (!this.hostMatches(r, host)) continue;
      const prefix = this.prefixes.get(r)!;
      if (lower === prefix || lower.startsWith(`${prefix}/`))
        out.push({ route: r, rest: path.slice(prefix.length), prefix });
    }
    return out;
  }

  /** gRPC carries no path: the routes its :authority reaches (by host, by tenant, or at the root), most specific first. */
  grpcCandidates(authority: string | undefined): RouteConfig[] {
    const host = hostOf(authority);
    return this.ordered.filter((r) => this.hostMatches(r, host) && grpcReachable(r));
  }
}

export function tenantMatches(r: RouteConfig, tenant: string): boolean {
  return r.tenant === undefined || sameTenant(r.tenant, tenant);
}

/** Whether the route serves callers of this binding (`card.bindings` restricts them). */
export function exposes(route: RouteConfig, binding: Binding): boolean {
  return route.card.bindings.length === 0 || route.card.bindings.includes(binding);
}

/** gRPC has no path: only routes it can reach (by tenant, host, or at the root) serve it. */
export function grpcReachable(route: RouteConfig): boolean {
  return route.tenant !== undefined || route.hosts.length > 0 || route.pathPrefix === '';
}
