// The URL screen behind the SSRF guard (spec §13: URLs the gateway hands to
// agents MUST be validated to prevent SSRF): why a URL may not be fetched.
// Only http: and https:. The host is read as WHATWG `new URL()` reads it
// (so `2130706433`, `0x7f.1`, `127.1`, `%31%32%37.0.0.1` and full-width digits
// are all 127.0.0.1, and userinfo never hides the host), then refused when:
//  - an address in the IANA IPv4 or IPv6 Special-Purpose Address Registries
//    (RFC 6890), multicast, or IPv6 outside global unicast 2000::/3 — every
//    registry entry, including the few marked "globally reachable": those are
//    anycast service addresses (PCP, TURN, AMT, AS112…) whose nearest instance
//    is often inside the operator's own network, or identifiers (ORCHIDv2,
//    DETs), never a file server;
//  - an IPv6 form that embeds an IPv4 address (IPv4-mapped, NAT64 64:ff9b::/96,
//    6to4) whose IPv4 address is refused;
//  - a name for this host or the local network: localhost (RFC 6761 §6.3),
//    .local (mDNS, RFC 6762), home.arpa (RFC 8375), .internal (ICANN's private
//    use TLD), any single-label name, with or without final dots.
// Text that URL parsers read differently (whitespace, control characters, a
// backslash, an '@' inside the userinfo) is refused, since the agent fetches
// the raw text with its own parser. Names are not resolved here: a public name
// that resolves to a private address is the agent's to refuse when it fetches.
// `allow` lets an operator exempt addresses (its own file servers).
import { BlockList, isIPv4 } from 'node:net';

export interface UrlScreenOptions {
  /** Addresses let through although a range below holds them (an operator's own file servers). */
  allow?: BlockList;
}

interface Range {
  cidr: string;
  name: string;
  /** The IPv4 address this IPv6 range carries in the given address, screened instead of the range. */
  embeds?: (h: readonly number[]) => string;
}

// IANA IPv4 Special-Purpose Address Registry, every entry, plus multicast.
export const IPV4_RANGES: readonly Range[] = [
  { cidr: '0.0.0.0/8', name: '"this network"' }, // RFC 791 §3.2; 0.0.0.0/32 "this host", RFC 1122 §3.2.1.3
  { cidr: '10.0.0.0/8', name: 'private use' }, // RFC 1918
  { cidr: '100.64.0.0/10', name: 'shared address space (CGNAT)' }, // RFC 6598
  { cidr: '127.0.0.0/8', name: 'loopback' }, // RFC 1122 §3.2.1.3
  { cidr: '169.254.0.0/16', name: 'link local' }, // RFC 3927
  { cidr: '172.16.0.0/12', name: 'private use' }, // RFC 1918
  { cidr: '192.0.0.0/24', name: 'IETF protocol assignments' }, // RFC 6890 §2.1
  { cidr: '192.0.0.0/29', name: 'IPv4 service continuity prefix' }, // RFC 7335
  { cidr: '192.0.0.8/32', name: 'IPv4 dummy address' }, // RFC 7600
  { cidr: '192.0.0.9/32', name: 'port control protocol anycast' }, // RFC 7723 (globally reachable: anycast)
  { cidr: '192.0.0.10/32', name: 'TURN anycast' }, // RFC 8155 (globally reachable: anycast)
  { cidr: '192.0.0.170/31', name: 'NAT64/DNS64 discovery' }, // RFC 8880, RFC 7050 §2.2
  { cidr: '192.0.2.0/24', name: 'documentation (TEST-NET-1)' }, // RFC 5737
  { cidr: '192.31.196.0/24', name: 'AS112-v4' }, // RFC 7535 (globally reachable: anycast)
  { cidr: '192.52.193.0/24', name: 'AMT' }, // RFC 7450 (globally reachable: anycast)
  { cidr: '192.88.99.0/24', name: 'deprecated 6to4 relay anycast' }, // RFC 7526
  { cidr: '192.168.0.0/16', name: 'private use' }, // RFC 1918
  { cidr: '192.175.48.0/24', name: 'AS112 direct delegation' }, // RFC 7534 (globally reachable: anycast)
  { cidr: '198.18.0.0/15', name: 'benchmarking' }, // RFC 2544
  { cidr: '198.51.100.0/24', name: 'documentation (TEST-NET-2)' }, // RFC 5737
  { cidr: '203.0.113.0/24', name: 'documentation (TEST-NET-3)' }, // RFC 5737
  { cidr: '224.0.0.0/4', name: 'multicast' }, // RFC 5771 (IANA IPv4 Multicast Address Space)
  { cidr: '240.0.0.0/4', name: 'reserved' }, // RFC 1112 §4
  { cidr: '255.255.255.255/32', name: 'limited broadcast' }, // RFC 8190, RFC 919 §7
];

const v4 = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

// IANA IPv6 Special-Purpose Address Registry, every entry, plus the IPv6
// Address Space registry's non-unicast and deprecated blocks.
export const IPV6_RANGES: readonly Range[] = [
  { cidr: '::/128', name: 'unspecified' }, // RFC 4291
  { cidr: '::1/128', name: 'loopback' }, // RFC 4291
  { cidr: '::/96', name: 'deprecated IPv4-compatible' }, // RFC 4291 §2.5.5.1 (Address Space registry)
  { cidr: '::ffff:0:0/96', name: 'IPv4-mapped', embeds: (h) => v4(h[6]!, h[7]!) }, // RFC 4291
  { cidr: '64:ff9b::/96', name: 'NAT64 well-known prefix', embeds: (h) => v4(h[6]!, h[7]!) }, // RFC 6052
  // local use: the operator picks where the IPv4 address sits (RFC 6052 §2.2), so all of it is refused
  { cidr: '64:ff9b:1::/48', name: 'NAT64 local-use prefix' }, // RFC 8215
  { cidr: '100::/64', name: 'discard-only' }, // RFC 6666
  { cidr: '2001::/23', name: 'IETF protocol assignments' }, // RFC 2928
  { cidr: '2001::/32', name: 'Teredo' }, // RFC 4380, RFC 8190
  { cidr: '2001:1::1/128', name: 'port control protocol anycast' }, // RFC 7723 (globally reachable: anycast)
  { cidr: '2001:1::2/128', name: 'TURN anycast' }, // RFC 8155 (globally reachable: anycast)
  { cidr: '2001:1::3/128', name: 'DNS-SD service registration protocol anycast' }, // RFC 9665 (anycast)
  { cidr: '2001:2::/48', name: 'benchmarking' }, // RFC 5180, RFC Errata 1752
  { cidr: '2001:3::/32', name: 'AMT' }, // RFC 7450 (globally reachable: anycast)
  { cidr: '2001:4:112::/48', name: 'AS112-v6' }, // RFC 7535 (globally reachable: anycast)
  { cidr: '2001:10::/28', name: 'deprecated ORCHID' }, // RFC 4843
  { cidr: '2001:20::/28', name: 'ORCHIDv2' }, // RFC 7343 (identifiers, not locators)
  { cidr: '2001:30::/28', name: 'drone remote ID entity tags' }, // RFC 9374 (identifiers, not locators)
  { cidr: '2001:db8::/32', name: 'documentation' }, // RFC 3849
  { cidr: '2002::/16', name: '6to4', embeds: (h) => v4(h[1]!, h[2]!) }, // RFC 3056
  { cidr: '2620:4f:8000::/48', name: 'AS112 direct delegation' }, // RFC 7534 (globally reachable: anycast)
  { cidr: '3fff::/20', name: 'documentation' }, // RFC 9637
  { cidr: '5f00::/16', name: 'SRv6 segment identifiers' }, // RFC 9602
  { cidr: 'fc00::/7', name: 'unique local' }, // RFC 4193, RFC 8190
  { cidr: 'fe80::/10', name: 'link-local unicast' }, // RFC 4291
  { cidr: 'fec0::/10', name: 'deprecated site-local' }, // RFC 3879 (Address Space registry)
  { cidr: 'ff00::/8', name: 'multicast' }, // RFC 4291 §2.7
];

interface Compiled extends Range {
  list: BlockList;
  bits: number;
}

function compile(ranges: readonly Range[], family: 'ipv4' | 'ipv6'): Compiled[] {
  return ranges.map((r) => {
    const [net, bits] = r.cidr.split('/') as [string, string];
    const list = new BlockList();
    list.addSubnet(net, Number(bits), family);
    return { ...r, list, bits: Number(bits) };
  });
}

const V4 = compile(IPV4_RANGES, 'ipv4');
const V6 = compile(IPV6_RANGES, 'ipv6');
const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');

/** The most specific range holding the address. */
function rangeOf(addr: string, table: readonly Compiled[], family: 'ipv4' | 'ipv6'): Compiled | undefined {
  let best: Compiled | undefined;
  for (const r of table) if (r.list.check(addr, family) && (!best || r.bits > best.bits)) best = r;
  return best;
}

/** The eight 16-bit groups of an IPv6 address as WHATWG serializes it (hex groups, at most one "::"). */
function hextets(addr: string): number[] {
  const groups = (s: string): string[] => (s === '' ? [] : s.split(':'));
  const [head, tail] = addr.includes('::') ? addr.split('::') : [addr, undefined];
  const h = groups(head!);
  const t = tail === undefined ? [] : groups(tail);
  const zeros = tail === undefined ? [] : Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...zeros, ...t].map((x) => parseInt(x, 16));
}

const inRange = (addr: string, r: Compiled): string => `${addr} is in ${r.cidr} (${r.name})`;

/** The refused range holding this IPv4 address, unless the operator allows it. */
function v4Range(addr: string, allow: BlockList | undefined): Compiled | undefined {
  return allow?.check(addr, 'ipv4') ? undefined : rangeOf(addr, V4, 'ipv4');
}

function screenV6(addr: string, allow: BlockList | undefined): string | undefined {
  if (allow?.check(addr, 'ipv6')) return undefined;
  const r = rangeOf(addr, V6, 'ipv6');
  if (r?.embeds) {
    const inner = r.embeds(hextets(addr));
    const ir = v4Range(inner, allow);
    return ir && `${inRange(addr, r)} and carries ${inner}, in ${ir.cidr} (${ir.name})`;
  }
  if (r) return inRange(addr, r);
  if (!GLOBAL_UNICAST.check(addr, 'ipv6')) return `${addr} is outside global unicast 2000::/3 (reserved by the IETF)`;
  return undefined;
}

/** Names for this host or the local network (special-use and private-use domain names). */
const LOCAL_NAMES: ReadonlyArray<[suffix: string, what: string]> = [
  ['localhost', 'a loopback name'], // RFC 6761 §6.3
  ['local', 'a link-local (mDNS) name'], // RFC 6762
  ['home.arpa', 'a home network name'], // RFC 8375
  ['internal', 'a private-use name'], // reserved by ICANN for private use (2024); metadata.google.internal
];

function screenName(host: string): string | undefined {
  const name = host.replace(/\.+$/, '');
  for (const [suffix, what] of LOCAL_NAMES)
    if (name === suffix || name.endsWith(`.${suffix}`)) return `${host} is ${what}`;
  // no public host name is a single label (dotless domains are barred: ICANN SSAC SAC053, IAB 2013); one is
  // read through the resolver's search list, inside the operator's network (`metadata`, a Kubernetes service)
  if (!name.includes('.')) return `${host} is a single-label name (resolved inside the local network)`;
  return undefined;
}

/** Whether the text holds a C0 control character, a space, DEL or a backslash. */
function ambiguous(raw: string): boolean {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f || c === 0x5c) return true;
  }
  return false;
}

/** Why this URL may not be fetched, or undefined when it may. */
export function unsafeUrl(raw: string, opts: UrlScreenOptions = {}): string | undefined {
  // WHATWG drops tabs and newlines, trims spaces and reads '\' as '/': other parsers do not
  if (ambiguous(raw))
    return 'contains whitespace, a control character or a backslash (URL parsers read those differently)';
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return `scheme ${u.protocol} is not allowed (http or https only)`;
  // a second '@' in the authority: WHATWG takes the last as the end of the userinfo, some parsers the first
  if (u.username.includes('%40') || u.password.includes('%40'))
    return "the userinfo holds an '@' (URL parsers read the host differently)";
  const host = u.hostname;
  // WHATWG has already turned every IPv4 form into dotted decimal and every IPv6 one into bracketed hex groups
  if (host.startsWith('[')) return screenV6(host.slice(1, -1), opts.allow);
  if (isIPv4(host)) {
    const r = v4Range(host, opts.allow);
    return r && inRange(host, r);
  }
  return screenName(host);
}
