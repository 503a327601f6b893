// One route as the admin console describes it (page and /admin/api/routes):
// its match, upstream binding and endpoints with health, the bindings a
// caller may use, limits, authentication mode and the card it serves — never
// a secret: API keys appear by id, a set upstream credential by its header
// name, URLs with their password masked.
import type { Binding, RouteConfig } from '../config/types.js';
import { BINDINGS } from '../config/types.js';
import type { CardService } from '../card/card-service.js';
import { hostName } from '../card/public-address.js';
import type { RequestView } from '../http/request.js';
import { exposes, grpcReachable } from '../routing/router.js';
import type { EndpointHealth, EndpointStatus } from './endpoint-health.js';

export interface RouteView {
  name: string;
  match: { hosts: string[]; pathPrefix: string; tenant: string | null };
  upstream: { binding: string; version: string; credentials: string; tenant: string; passThrough: boolean };
  endpoints: EndpointStatus[];
  /** The bindings callers may use on this route (and so the console's try-it). */
  bindings: Binding[];
  versions: string[];
  limits: Record<string, number | string | null>;
  auth: { modes: string[]; apiKey?: { location: string; name: string; keyIds: string[] }; jwt?: JsonRecord };
  card: { ready: boolean; reason?: string; served?: unknown; error?: string };
}

type JsonRecord = Record<string, string | number | null>;

/** The bindings a caller can reach the route over (gRPC needs a host, tenant or root route). */
export function callerBindings(route: RouteConfig): Binding[] {
  return BINDINGS.filter((b) => exposes(route, b) && (b !== 'GRPC' || grpcReachable(route)));
}

function credentialsOf(route: RouteConfig): string {
  const c = route.upstream.credentials;
  return c.mode === 'set' ? `set (header ${c.header})` : c.mode;
}

function tenantOf(route: RouteConfig): string {
  const t = route.upstream.tenant;
  return t.mode === 'set' ? `set "${t.value}"` : t.mode;
}

function authOf(route: RouteConfig): RouteView['auth'] {
  const a = route.auth;
  if (!a) return { modes: ['none (the agent authenticates)'] };
  const modes: string[] = [];
  const out: RouteView['auth'] = { modes };
  if (a.apiKey) {
    modes.push('apiKey');
    out.apiKey = { location: a.apiKey.location, name: a.apiKey.name, keyIds: a.apiKey.keys.map((k) => k.id) };
  }
  if (a.jwt) {
    modes.push('jwt');
    out.jwt = {
      issuer: a.jwt.issuer ?? null,
      audience: a.jwt.audience ?? null,
      jwks: a.jwt.jwksUrl ? 'url' : a.jwt.jwksFile ? 'file' : null,
    };
  }
  if (a.mtls) modes.push('mtls');
  return out;
}

function limitsOf(route: RouteConfig): RouteView['limits'] {
  const rl = route.rateLimit;
  return {
    timeoutMs: route.timeoutMs,
    streamIdleTimeoutMs: route.streamIdleTimeoutMs,
    maxBodyBytes: route.maxBodyBytes,
    maxResponseBytes: route.maxResponseBytes,
    maxSseEventBytes: route.maxSseEventBytes,
    maxStringLength: route.maxStringLength,
    maxConcurrentStreams: route.maxConcurrentStreams ?? null,
    rateLimit: rl ? `${rl.requestsPerSecond}/s, burst ${rl.burst}${rl.perCaller ? ', per caller' : ''}` : null,
  };
}

/**
 * The Host a caller sends for `name` on the listener at `listenerHost` (host[:port] of its URL): the listener's port,
 * none when its URL has none (port 80 of http://, 443 of https://), as callers leave a scheme's default port out.
 */
export function hostOnListener(name: string, listenerHost: string): string {
  return `${name}${listenerHost.slice(hostName(listenerHost).length)}`;
}

/** The view a caller on the route's first host (or the listener's address) gets of its card. */
function cardView(route: RouteConfig, listenerHost: string): RequestView {
  const host = route.hosts[0] ? hostOnListener(route.hosts[0], listenerHost) : listenerHost;
  return {
    host,
    remoteAddress: '127.0.0.1',
    header: (name) => (name === 'a2a-version' ? '1.0' : name === 'host' ? host : undefined),
  };
}

export async function routeView(
  route: RouteConfig,
  cards: CardService,
  health: EndpointHealth,
  listenerHost: string,
): Promise<RouteView> {
  const status = await cards.status(route);
  const card: RouteView['card'] = { ready: status.ready, ...(status.reason ? { reason: status.reason } : {}) };
  if (status.ready) {
    try {
      card.served = JSON.parse((await cards.servedCard(route, cardView(route, listenerHost))).body) as unknown;
    } catch (e) {
      card.error = (e as Error).message;
    }
  }
  return {
    name: route.name,
    match: { hosts: route.hosts, pathPrefix: route.pathPrefix || '/', tenant: route.tenant ?? null },
    upstream: {
      binding: route.upstream.binding,
      version: route.upstream.version,
      credentials: credentialsOf(route),
      tenant: tenantOf(route),
      passThrough: route.passThrough,
    },
    endpoints: health.endpoints(route),
    bindings: callerBindings(route),
    versions: route.versions,
    limits: limitsOf(route),
    auth: authOf(route),
    card,
  };
}
