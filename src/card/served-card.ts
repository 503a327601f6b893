// The Agent Card the gateway serves for a route (spec §8.2, §8.3.1): the
// upstream's card with `supportedInterfaces` replaced by the gateway's own
// interfaces for the route — one per exposed binding, in the route's order
// (default: the upstream's own binding order, then the rest), each with
// protocolVersion "1.0" and the route's tenant when it is reached by tenant,
// then the same bindings at "0.3" where 0.3 callers can reach the route
// (bridge §2) — the security the gateway enforces (auth/security-schemes.ts),
// and the route's overrides applied. No field of the upstream's that names
// where to call it (0.3 `url`, `preferredTransport`, `additionalInterfaces`)
// survives: callers reach the agent only through the gateway. Signatures are
// handled by the caller.
import { advertisedSecurity } from '../auth/security-schemes.js';
import type { Binding, RouteConfig } from '../config/types.js';
import { BINDINGS } from '../config/types.js';
import type { Json, JsonObject } from '../proto/json.js';
import { speaksV03 } from '../core/service-params.js';
import type { RequestView } from '../http/request.js';
import { grpcReachable } from '../routing/router.js';
import type { PublicAddresses } from './public-address.js';

/** Bindings in the order the served card lists them. */
export function bindingOrder(card: JsonObject, route: RouteConfig): Binding[] {
  if (route.card.bindings.length > 0) return route.card.bindings;
  const own = (Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [])
    .map((i) => (i && typeof i === 'object' && !Array.isArray(i) ? (i.protocolBinding as Binding) : undefined))
    .filter((b): b is Binding => b !== undefined && BINDINGS.includes(b));
  const configured = route.upstream.binding === 'auto' ? [] : [route.upstream.binding];
  return [...new Set([...own, ...configured, ...BINDINGS])];
}

/** 0.3 callers address no tenant: they reach a route bound to none, when the route lets them. */
export function reachableByV03(route: RouteConfig): boolean {
  return route.tenant === undefined && route.versions.includes('0.3');
}

/** Whether this caller is served the route's card in 0.3's shape: it speaks 0.3 (§3.6.2) and can reach the route. */
export function wantsV03Card(route: RouteConfig, view: RequestView): boolean {
  return speaksV03(view.header, view.query?.('A2A-Version')) && reachableByV03(route);
}

export function gatewayInterfaces(route: RouteConfig, at: PublicAddresses, order: Binding[]): JsonObject[] {
  const tenant: JsonObject = route.tenant !== undefined ? { tenant: route.tenant } : {};
  const bindings = order.filter((b) => b !== 'GRPC' || grpcReachable(route));
  const v1 = route.versions.includes('1.0')
    ? bindings.map((b) => ({
        url: b === 'GRPC' ? at.grpc : at.http,
        protocolBinding: b,
        ...tenant,
        protocolVersion: '1.0',
      }))
    : [];
  const v03 = reachableByV03(route)
    ? bindings.map((b) => ({ url: b === 'GRPC' ? at.grpc : at.http, protocolBinding: b, protocolVersion: '0.3' }))
    : [];
  return [...v1, ...v03];
}

/** Fields of a 0.3-era card that say where (and how) to call the agent: never served as they came. */
const V03_LOCATION_FIELDS = ['url', 'preferredTransport', 'additionalInterfaces', 'protocolVersion'];

/** The rewritten card (1.0 shape), without signatures (they no longer match it). */
export function rewriteCard(upstreamCard: JsonObject, route: RouteConfig, at: PublicAddresses): JsonObject {
  const { signatures: _stale, ...card } = upstreamCard;
  for (const f of V03_LOCATION_FIELDS) delete card[f];
  const supportedInterfaces: Json = gatewayInterfaces(route, at, bindingOrder(upstreamCard, route));
  const security = route.auth?.advertise ? advertisedSecurity(route.auth) : {};
  return { ...card, ...security, ...(route.card.overrides as JsonObject), supportedInterfaces };
}
