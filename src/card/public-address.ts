// Where callers reach a route, for the URLs in served cards (spec §8.3.1):
// the route's configured public URLs, else the gateway's public base plus the
// route prefix, else the request — whose X-Forwarded-Proto/-Host/-Prefix and
// RFC 7239 Forwarded headers are believed only from trusted proxies. A
// forwarded prefix that already ends with the route prefix is not doubled.
// An address built from the request is marked unvouched unless its host is
// one the operator named (a trusted proxy's forwarded host, the route's
// match.hosts, a configured public address, the listen host): a signed card
// may not name it (card-service.ts).
import { BlockList, isIP } from 'node:net';
import type { RouteConfig } from '../config/types.js';
import { A2AError } from '../errors/a2a-error.js';
import { isAuthority } from '../routing/canonical.js';
import type { RequestView } from '../http/request.js';

export interface PublicAddresses {
  /** The route's HTTP base URL: JSON-RPC endpoint and REST base. */
  http: string;
  grpc: string;
  /** Those of `http` and `grpc` built from a request host that the operator did not configure or vouch for. */
  unvouched?: string[];
}

export interface GatewayAddresses {
  publicHttpUrl: string | undefined;
  publicGrpcAddress: string | undefined;
  httpPort: number;
  grpcPort: number;
  /** The HTTP listener serves TLS (https:// when no forwarded proto says otherwise). */
  tls?: boolean;
  /** The listeners' host and the admin port (for telling the gateway's own addresses from an agent's). */
  listenHost?: string;
  adminPort?: number;
}

export function trustList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const e of entries) {
    const [addr = '', bits] = e.split('/');
    const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    if (bits !== undefined) list.addSubnet(addr, Number(bits), type);
    else list.addAddress(addr, type);
  }
  return list;
}

function isTrusted(list: BlockList, address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  return list.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
}

/** RFC 7239: the first (client-most) element's proto and host. */
function forwarded(value: string | undefined): { proto?: string; host?: string } {
  const first = (value ?? '').split(',')[0] ?? '';
  const out: { proto?: string; host?: string } = {};
  for (const pair of first.split(';')) {
    const [k, v] = pair.split('=');
    const val = (v ?? '').trim().replace(/^"(.*)"$/, '$1');
    if (k?.trim().toLowerCase() === 'proto') out.proto = val.toLowerCase();
    if (k?.trim().toLowerCase() === 'host') out.host = val;
  }
  return out;
}

function firstValue(v: string | undefined): string | undefined {
  const s = v?.split(',')[0]?.trim();
  return s ? s : undefined;
}

export function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return colon >= 0 ? host.slice(0, colon) : host;
}

function joinPrefix(forwardedPrefix: string, routePrefix: string): string {
  // a prefix is path characters only (RFC 3986 pchar and "/"); anything else is not believed
  const fp = /^[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(forwardedPrefix) ? forwardedPrefix.replace(/\/+$/, '') : '';
  if (fp && fp.startsWith('/') && routePrefix && fp.endsWith(routePrefix)) return fp;
  return `${fp.startsWith('/') ? fp : ''}${routePrefix}`;
}

/** The request headers a served card is built from, for `Vary` (none when the route's public URLs are configured). */
export function cardVaries(gw: GatewayAddresses, trusted: BlockList, route: RouteConfig): string[] {
  const http = route.card.publicHttpUrl ?? gw.publicHttpUrl;
  const grpc = route.card.publicGrpcAddress ?? gw.publicGrpcAddress;
  if (http !== undefined && grpc !== undefined) return [];
  const forwardedBy =
    trusted.rules.length > 0 ? ['X-Forwarded-Proto', 'X-Forwarded-Host', 'X-Forwarded-Prefix', 'Forwarded'] : [];
  return ['Host', ...forwardedBy];
}

const WILDCARDS = new Set(['0.0.0.0', '::', '']);
const bare = (h: string): string => h.replace(/^\[(.*)\]$/, '$1').toLowerCase();

/** Host name and explicit port of a URL, "host:port" or "grpc(s)://host:port". */
function nameAndPort(address: string): { name: string; port: number | undefined } {
  const authority = address.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split(/[/?#]/)[0] ?? '';
  const name = hostName(authority);
  const port = authority.slice(name.length + 1);
  return { name: bare(name), port: port ? Number(port) : undefined };
}

/**
 * Whether the operator named this request host (host[:port]): one of the route's
 * `match.hosts`, the host of a configured public address or the listen host,
 * with no port, the port of the listener the request came to, or the port a
 * public address gives that host. A forwarded host from a trusted proxy is
 * vouched for by that proxy, as for every card URL.
 */
function vouched(gw: GatewayAddresses, route: RouteConfig, host: string, grpc: boolean): boolean {
  const { name, port } = nameAndPort(host);
  const published = [gw.publicHttpUrl, gw.publicGrpcAddress, route.card.publicHttpUrl, route.card.publicGrpcAddress]
    .filter((a): a is string => a !== undefined)
    .map(nameAndPort);
  const listen = gw.listenHost !== undefined && !WILDCARDS.has(bare(gw.listenHost)) ? [bare(gw.listenHost)] : [];
  const names = new Set([...route.hosts.map(bare), ...published.map((a) => a.name), ...listen]);
  if (!names.has(name)) return false;
  const listener = grpc ? gw.grpcPort : gw.httpPort;
  return port === undefined || port === listener || published.some((a) => a.name === name && a.port === port);
}

/** A host written into a card URL must be an authority (host[:port]): anything else is refused. */
function checkedHost(host: string): string {
  if (!isAuthority(host)) throw A2AError.of('INVALID_REQUEST', 'the request names a host that is not a host[:port]');
  return host;
}

export function publicAddresses(
  gw: GatewayAddresses,
  trusted: BlockList,
  route: RouteConfig,
  req: RequestView,
): PublicAddresses {
  let proto = gw.tls ? 'https' : 'http';
  let host = req.host ?? 'localhost';
  let prefix = route.pathPrefix;
  let forwardedHost: string | undefined;
  if (isTrusted(trusted, req.remoteAddress)) {
    const fwd = forwarded(req.header('forwarded'));
    const p = firstValue(req.header('x-forwarded-proto'))?.toLowerCase() ?? fwd.proto ?? proto;
    proto = p === 'https' || p === 'http' ? p : proto;
    forwardedHost = firstValue(req.header('x-forwarded-host')) ?? fwd.host;
    host = forwardedHost ?? host;
    prefix = joinPrefix(firstValue(req.header('x-forwarded-prefix')) ?? '', route.pathPrefix);
  }
  host = checkedHost(host);
  const httpHost = req.grpc ? `${hostName(host)}:${gw.httpPort}` : host;
  const http =
    route.card.publicHttpUrl ??
    (gw.publicHttpUrl ? `${gw.publicHttpUrl}${route.pathPrefix}` : `${proto}://${httpHost}${prefix}`);
  const grpc =
    route.card.publicGrpcAddress ?? gw.publicGrpcAddress ?? (req.grpc ? host : `${hostName(host)}:${gw.grpcPort}`);
  if (forwardedHost !== undefined || vouched(gw, route, host, req.grpc === true)) return { http, grpc };
  const fromRequest = [
    ...(route.card.publicHttpUrl === undefined && gw.publicHttpUrl === undefined ? [http] : []),
    ...(route.card.publicGrpcAddress === undefined && gw.publicGrpcAddress === undefined ? [grpc] : []),
  ];
  return fromRequest.length > 0 ? { http, grpc, unvouched: fromRequest } : { http, grpc };
}
