// Whether an address is the gateway itself (issue 12 item 5: a card interface
// naming the gateway turned one call into thousands): one of its listener
// ports on a local address (loopback, a wildcard, the listen host, an address
// of this machine), or the public addresses it serves under. The hop header
// (pipeline `Via`) catches what this cannot see, such as a loop through a
// load balancer or another replica.
import { networkInterfaces } from 'node:os';
import type { RouteConfig } from '../config/types.js';
import type { GatewayAddresses } from './public-address.js';
import { hostName } from './public-address.js';

const bare = (h: string): string => h.replace(/^\[(.*)\]$/, '$1').toLowerCase();

function localAddresses(): Set<string> {
  const out = new Set(['localhost', 'localhost.', '0.0.0.0', '::', '::1']);
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) out.add(bare(a.address));
  return out;
}

function isLocal(host: string, listenHost: string | undefined, local: Set<string>): boolean {
  const h = bare(host);
  return (
    h.startsWith('127.') ||
    h.startsWith('::ffff:127.') ||
    local.has(h) ||
    (listenHost !== undefined && h === bare(listenHost))
  );
}

/** host:port of a URL or "host:port" (default ports by scheme). */
function authority(url: string): { host: string; port: number } | undefined {
  const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?([^/?#]+)/i.exec(url);
  if (!m) return undefined;
  const scheme = (m[1] ?? '').toLowerCase();
  const host = hostName(m[2]!);
  const given = m[2]!.slice(host.length + 1);
  const port = given ? Number(given) : scheme === 'https' || scheme === 'grpcs' ? 443 : scheme === 'http' ? 80 : 0;
  return { host: bare(host), port };
}

/** The check for one route: its card's interfaces may not name these. */
export function selfCheck(gw: GatewayAddresses, route: RouteConfig): (host: string, port: number) => boolean {
  const ports = new Set([gw.httpPort, gw.grpcPort, ...(gw.adminPort !== undefined ? [gw.adminPort] : [])]);
  const published = [gw.publicHttpUrl, gw.publicGrpcAddress, route.card.publicHttpUrl, route.card.publicGrpcAddress]
    .filter((u): u is string => u !== undefined)
    .map(authority)
    .filter((a) => a !== undefined);
  let local: Set<string> | undefined;
  return (host, port) => {
    const h = bare(host);
    if (published.some((a) => a.host === h && a.port === port)) return true;
    if (!ports.has(port)) return false;
    local ??= localAddresses();
    return isLocal(h, gw.listenHost, local);
  };
}
