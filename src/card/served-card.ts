// The Agent Card the gateway serves for a route (spec §8.2, §8.3.1): the
// upstream's card with `supportedInterfaces` replaced by the gateway's own
// interfaces for that route, so a client reaches the agent through the
// gateway over any binding. Order: the upstream's own binding order, then the
// rest. (Caching headers, signatures and the extended card: issue 4.)
import type { Binding, RouteConfig } from '../config/types.js';
import { BINDINGS } from '../config/types.js';
import type { Json, JsonObject } from '../proto/protojson.js';

/** Where the gateway is reachable: configured public addresses, else the bound gRPC port. */
export interface PublicAddresses {
  publicHttpUrl: string | undefined;
  publicGrpcAddress: string | undefined;
  grpcPort: number;
}

export interface CardRequest {
  /** The Host header the caller used ("gw.example:8080"). */
  host: string;
}

function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return colon >= 0 ? host.slice(0, colon) : host;
}

/** Bindings in the order the served card lists them. */
export function bindingOrder(card: JsonObject, upstreamBinding: Binding | 'auto'): Binding[] {
  const own = (Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [])
    .map((i) => (i && typeof i === 'object' && !Array.isArray(i) ? (i.protocolBinding as Binding) : undefined))
    .filter((b): b is Binding => b !== undefined && BINDINGS.includes(b));
  const first = upstreamBinding === 'auto' ? [] : [upstreamBinding];
  return [...new Set([...own, ...first, ...BINDINGS])];
}

/** gRPC has no path: only routes it can reach (tenant, host, or root) advertise it. */
export function grpcReachable(route: RouteConfig): boolean {
  return route.tenant !== undefined || route.hosts.length > 0 || route.pathPrefix === '';
}

export function gatewayInterfaces(config: PublicAddresses, route: RouteConfig, req: CardRequest, order: Binding[]): JsonObject[] {
  const httpBase = `${config.publicHttpUrl ?? `http://${req.host}`}${route.pathPrefix}`;
  const grpcUrl = config.publicGrpcAddress ?? `${hostName(req.host)}:${config.grpcPort}`;
  const tenant: JsonObject = route.tenant !== undefined ? { tenant: route.tenant } : {};
  return order
    .filter((b) => b !== 'GRPC' || grpcReachable(route))
    .map((b) => ({ url: b === 'GRPC' ? grpcUrl : httpBase, protocolBinding: b, ...tenant, protocolVersion: '1.0' }));
}

export function servedCard(upstreamCard: JsonObject, config: PublicAddresses, route: RouteConfig, req: CardRequest): JsonObject {
  const order = bindingOrder(upstreamCard, route.upstream.binding);
  const supportedInterfaces: Json = gatewayInterfaces(config, route, req, order);
  return { ...upstreamCard, supportedInterfaces };
}
