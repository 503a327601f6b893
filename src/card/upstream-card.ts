// Where a route's upstream Agent Card comes from (spec §8.2): a configured
// file or URL, or the agent's well-known URI for HTTP upstreams and `auto`;
// a gRPC agent without either gets a minimal card. For `auto` routes, the
// interfaces the gateway may use, in the card's order (§8.3.2): a binding and
// major version it speaks, on the upstream's own host or an allowed one
// (`upstream.allowedHosts`: "host" for any port, "host:port" for one) — a card
// cannot send the gateway to any other host (no SSRF through cards) — never
// from a TLS upstream to plain HTTP (no downgrade, unless
// `upstream.allowPlaintextInterfaces`), and never to the gateway's own
// listeners (no loop).
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
  return binding === 'GRPC' ? undefined : wellKnownCardUrl(url, binding);
}

/** An HTTP agent's card: the URL itself when it names a .json, else the base URL's (auto) or its origin's well-known card. */
export function wellKnownCardUrl(url: string, binding: RouteConfig['upstream']['binding']): string {
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

/** An interface URL's host (lower case, IPv6 in brackets) and port; undefined when it cannot be read. */
export function hostAndPort(binding: Binding, url: string): { host: string; port: number } | undefined {
  try {
    if (binding === 'GRPC') {
      const authority = url.replace(/^grpcs?:\/\//i, '').replace(/\/.*$/, '');
      const host = hostName(authority).toLowerCase();
      const port = Number(authority.slice(host.length + 1));
      return host && Number.isInteger(port) && port > 0 ? { host, port } : undefined;
    }
    const u = new URL(url);
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : u.protocol === 'http:' ? 80 : 0;
    return u.hostname && port > 0 ? { host: u.hostname.toLowerCase(), port } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the route's upstream is reached over TLS (an https/grpcs URL or a `tls:` block). */
function upstreamIsTls(route: RouteConfig): boolean {
  return route.upstream.tls !== undefined;
}

/** Whether the gateway would dial this interface over TLS (gRPC interfaces take the route's TLS settings). */
function dialsTls(binding: Binding, url: string, route: RouteConfig): boolean {
  return binding === 'GRPC' ? upstreamIsTls(route) : /^https:\/\//i.test(url);
}

/** The names of this machine's loopback interface compare as one host ("localhost" in, "127.0.0.1" in the card). */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function sameHost(h: string): string {
  const host = h.toLowerCase();
  return LOOPBACK.has(host) ? 'localhost' : host;
}

/**
 * Whether the route's card may point the gateway at host:port: the upstream's
 * own host (any port), the upstream's own loopback address under another
 * loopback name ("localhost" in the config, "127.0.0.1" in the card) on its
 * own port, or an allowed host (any port) or host:port.
 */
function allowed(route: RouteConfig, host: string, port: number): boolean {
  const u = /^[a-z]+:\/\//i.test(route.upstream.url) ? new URL(route.upstream.url) : undefined;
  const own = (u ? u.hostname : hostName(route.upstream.url)).toLowerCase();
  if (host === own) return true;
  const ownPort = u
    ? Number(u.port || (u.protocol === 'https:' ? 443 : 80))
    : Number(route.upstream.url.split(':').pop());
  if (sameHost(host) === sameHost(own) && LOOPBACK.has(host) && port === ownPort) return true;
  return route.upstream.allowedHosts.some((a) => a === host || a === `${host}:${port}`);
}

/** Whether an address is one of the gateway's own listeners (an interface there would loop). */
export type SelfCheck = (host: string, port: number) => boolean;

export interface InterfaceChoice {
  usable: ResolvedUpstream[];
  /** Why interfaces were passed over (logged; the route is not ready when none is usable). */
  skipped: string[];
}

/**
 * §8.3.2: the interfaces whose binding and version the gateway speaks — 1.x,
 * and 0.3 through the bridge — 1.x ones first (bridge §1: prefer 1.x when a
 * card lists both), each group in the card's order; never one on another
 * host (or host:port), a plain-HTTP downgrade from a TLS upstream, or the
 * gateway itself.
 */
export function chooseInterfaces(
  card: JsonObject,
  route: RouteConfig,
  isSelf: SelfCheck = () => false,
): InterfaceChoice {
  const list = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [];
  const out: InterfaceChoice = { usable: [], skipped: [] };
  for (const i of list) {
    if (!i || typeof i !== 'object' || Array.isArray(i) || typeof i.url !== 'string') continue;
    const binding = i.protocolBinding as Binding;
    const m = /^(\d+)\.(\d+)/.exec(String(i.protocolVersion ?? ''));
    if (!BINDINGS.includes(binding)) {
      out.skipped.push(`${String(i.protocolBinding)} at ${i.url}: binding not spoken`);
      continue;
    }
    if (!m || !(m[1] === '1' || (m[1] === '0' && m[2] === '3'))) {
      out.skipped.push(`${binding} at ${i.url}: protocol version ${String(i.protocolVersion)} not spoken (1.x, 0.3)`);
      continue;
    }
    const at = hostAndPort(binding, i.url);
    if (!at) {
      out.skipped.push(`${binding} at ${i.url}: not a URL the gateway can call`);
    } else if (!allowed(route, at.host, at.port)) {
      out.skipped.push(`${binding} at ${i.url}: host not allowed for this route (upstream.allowedHosts)`);
    } else if (upstreamIsTls(route) && !dialsTls(binding, i.url, route) && !route.upstream.allowPlaintextInterfaces) {
      out.skipped.push(
        `${binding} at ${i.url}: plain HTTP from a TLS upstream is a downgrade (upstream.allowPlaintextInterfaces)`,
      );
    } else if (isSelf(at.host, at.port)) {
      out.skipped.push(`${binding} at ${i.url}: names this gateway's own listener (a loop)`);
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
