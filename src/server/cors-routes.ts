// The routes a CORS preflight speaks for (http/cors.ts answers it): the
// routes the request it announces could be served by, as the pipeline's
// route stage would pick them (stages/route.ts) — a card's route, every
// JSON-RPC route of the prefix (a JSON-RPC call names its tenant in its
// body), or the route of the tenant a REST path names.
import { matchRestPath } from '../bindings/rest/paths.js';
import { matchV03RestPath } from '../bindings/rest/paths-v0_3.js';
import { LEGACY_CARD, WELL_KNOWN_CARD } from '../card/upstream-card.js';
import type { Binding, RouteConfig } from '../config/types.js';
import { isUrlSafeTenant } from '../routing/canonical.js';
import { exposes, tenantMatches } from '../routing/router.js';
import { isJsonRpcPath } from './http-edge.js';

export const cardPath = (p: string): boolean => p === WELL_KNOWN_CARD || p === LEGACY_CARD;

/** The routes of `group` (one prefix's) a request of `method` to `below` (the path under the prefix) could reach. */
export function reachable(group: readonly RouteConfig[], method: string, below: string): RouteConfig[] {
  if (method === 'GET' && cardPath(below)) return group.slice(0, 1);
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
