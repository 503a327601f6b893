// Which route of a path prefix answers a request (http.ts serves it; a
// CORS preflight, answered by http/cors.ts, speaks for the same routes): the
// route whose card a card path names (spec §8.2: the well-known URI), every
// JSON-RPC route of the prefix (a JSON-RPC call names its tenant in its
// body), or the route of the tenant a REST path names, as the pipeline's
// route stage would pick them (stages/route.ts).
import { matchRestPath } from '../bindings/rest/paths.js';
import { matchV03RestPath } from '../bindings/rest/paths-v0_3.js';
import { LEGACY_CARD, WELL_KNOWN_CARD } from '../card/upstream-card.js';
import type { Binding, RouteConfig } from '../config/types.js';
import { isUrlSafeTenant, sameTenant } from '../routing/canonical.js';
import { exposes, tenantMatches } from '../routing/router.js';
import { isJsonRpcPath } from './http-edge.js';

export const cardPath = (p: string): boolean => p === WELL_KNOWN_CARD || p === LEGACY_CARD;

/**
 * The route whose card a GET of `below` (the path under the group's prefix) asks for, if it names one:
 * - `/.well-known/agent-card.json` (or `agent.json`): the prefix's own card, the first route bound to no tenant
 *   among the most specific ones (bound to the request's host, else to none); only when all of them are bound to a
 *   tenant, the first of those (config order);
 * - `/{tenant}/.well-known/agent-card.json` (the tenant path form of a2a.proto's REST rules, §11.3): the card of the
 *   route bound to that tenant. No REST rule (1.0 or 0.3) has `.well-known` as a segment, so it takes no call's path.
 */
export function cardRoute(group: readonly RouteConfig[], below: string): RouteConfig | undefined {
  const first = group[0];
  if (!first) return undefined;
  if (cardPath(below)) {
    const hostBound = first.hosts.length > 0;
    return group.find((r) => r.tenant === undefined && r.hosts.length > 0 === hostBound) ?? first;
  }
  const slash = below.indexOf('/', 1);
  if (slash < 0 || !cardPath(below.slice(slash))) return undefined;
  const tenant = below.slice(1, slash);
  return group.find((r) => r.tenant !== undefined && sameTenant(r.tenant, tenant));
}

/** The routes of `group` (one prefix's) a request of `method` to `below` (the path under the prefix) could reach. */
export function reachable(group: readonly RouteConfig[], method: string, below: string): RouteConfig[] {
  const carded = method === 'GET' ? cardRoute(group, below) : undefined;
  if (carded) return [carded];
  if (isJsonRpcPath(method, below)) return group.filter((r) => exposes(r, 'JSONRPC'));
  return restRoutes(group, method, below);
}

/**
 * The routes a REST request could reach: one per tenant its path may name — 1.0's `/{tenant}/…` form or none, and
 * none for a 0.3 path (`/v1/…`, which a 1.0 caller reads as tenant "v1"; a preflight does not tell them apart).
 * A path no operation matches reaches none.
 */
function restRoutes(group: readonly RouteConfig[], method: string, below: string): RouteConfig[] {
  const tenants = new Set<string>();
  try {
    const { match } = matchRestPath(method, below);
    if (match) tenants.add(match.params.tenant ?? '');
  } catch {
    // a malformed path segment: refused before any route
  }
  try {
    if (matchV03RestPath(method, below)) tenants.add('');
  } catch {
    // as above
  }
  const out = new Set<RouteConfig>();
  for (const tenant of tenants) {
    const route = tenant === '' || isUrlSafeTenant(tenant) ? servedBy(group, tenant, 'HTTP+JSON') : undefined;
    if (route) out.add(route);
  }
  return [...out];
}

/** The route the pipeline's route stage picks for this tenant and binding. */
function servedBy(group: readonly RouteConfig[], tenant: string, binding: Binding): RouteConfig | undefined {
  return group.find((r) => tenantMatches(r, tenant) && exposes(r, binding));
}
