// Where a route's upstream Agent Card comes from (spec §8.2): a configured
// file or URL, or the agent's well-known URI for HTTP upstreams and `auto`;
// a gRPC agent without either gets a minimal card. For `auto` routes, the
// interfaces the gateway may use, in the card's order (§8.3.2): a binding and
// major version it speaks, on the upstream's own host or an allowed one — a
// card cannot send the gateway to any other host (no SSRF through cards).
import type { Binding, RouteConfig } from '../config/types.js';
import { BINDINGS } from '../config/types.js';
import type { JsonObject } from '../proto/json.js';
import { hostName } from './public-address.js';

export const WELL_KNOWN_CARD = '/.well-known/agent-card.json';
/** The 0.2/0.3-era well-known path, still asked for by older clients. */
export const LEGACY_CARD = '/.well-known/agent.json';

export interface ResolvedUpstream {
  binding: Binding;
  url: string;
  /** Tenant named by the chosen card interface ("" when none). */
  tenant: string;
  /** Major.Minor sent upstream as A2A-Version. */
  version: string;
}

/** The URL the card is fetched from, or undefined (a file, or a gRPC agent with none). */
export function cardSourceUrl(route: RouteConfig): string | undefined {
  if (route.card.file) return undefined;
  if (route.card.url) return route.card.url;
  const { url, binding } = route.upstream;
  if (binding === 'GRPC') return undefined;
  if (url.endsWith('.json')) return url;
  return binding === 'auto'
    ? `${url.replace(/\/+$/, '')}${WELL_KNOWN_CARD}`
    : `${new URL(url).origin}${WELL_KNOWN_CARD}`;
}

/** The card served for an upstream that publishes none (a gRPC agent without `card:`). */
export function minimalCard(route: RouteConfig): JsonObject {
  return {
    name: route.name,
    description: `A2A agent served through a2a-gateway route "${route.name}"`,
    version: '1.0.0',
    supportedInterfaces: [],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

/** The names of this machine's loopback interface compare as one host ("localhost" in, "127.0.0.1" in the card). */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function sameHost(h: string): string {
  const host = h.toLowerCase();
  return LOOPBACK.has(host) ? 'localhost' : host;
}

function urlHost(binding: Binding, url: string): string {
  if (binding === 'GRPC') return sameHost(hostName(url.replace(/^grpcs?:\/\//, '').replace(/\/.*$/, '')));
  try {
    return sameHost(new URL(url).hostname);
  } catch {
    return '';
  }
}

/** The hosts a route's card may point the gateway at. */
function allowedHosts(route: RouteConfig): Set<string> {
  const own = /^[a-z]+:\/\//i.test(route.upstream.url)
    ? new URL(route.upstream.url).hostname
    : hostName(route.upstream.url);
  return new Set([own, ...route.upstream.allowedHosts].map(sameHost));
}

export interface InterfaceChoice {
  usable: ResolvedUpstream[];
  /** Why interfaces were passed over (logged; the route is not ready when none is usable). */
  skipped: string[];
}

/**
 * §8.3.2: the interfaces whose binding and version the gateway speaks — 1.x,
 * and 0.3 through the bridge — 1.x ones first (bridge §1: prefer 1.x when a
 * card lists both), each group in the card's order.
 */
export function chooseInterfaces(card: JsonObject, route: RouteConfig): InterfaceChoice {
  const list = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [];
  const hosts = allowedHosts(route);
  const out: InterfaceChoice = { usable: [], skipped: [] };
  for (const i of list) {
    if (!i || typeof i !== 'object' || Array.isArray(i) || typeof i.url !== 'string') continue;
    const binding = i.protocolBinding as Binding;
    const m = /^(\d+)\.(\d+)/.exec(String(i.protocolVersion ?? ''));
    if (!BINDINGS.includes(binding)) {
      out.skipped.push(`${String(i.protocolBinding)} at ${i.url}: binding not spoken`);
    } else if (!m || !(m[1] === '1' || (m[1] === '0' && m[2] === '3'))) {
      out.skipped.push(`${binding} at ${i.url}: protocol version ${String(i.protocolVersion)} not spoken (1.x, 0.3)`);
    } else if (!hosts.has(urlHost(binding, i.url))) {
      out.skipped.push(`${binding} at ${i.url}: host not allowed for this route (upstream.allowedHosts)`);
    } else {
      out.usable.push({
        binding,
        url: i.url,
        tenant: typeof i.tenant === 'string' ? i.tenant : '',
        version: `${m[1]}.${m[2]}`,
      });
    }
  }
  out.usable.sort((a, b) => Number(b.version !== '0.3') - Number(a.version !== '0.3'));
  return out;
}
