// The SSRF guard's URL screen (spec §13: file references MUST be validated to
// prevent SSRF; core/validate.ts applies it to file part and push-notification
// URLs): a URL must be http(s) and must not name a loopback,
// link-local, private, CGNAT or unspecified address (IPv4 or IPv6 literal, or
// a localhost name). Host names are not resolved here (a name that resolves to
// a private address is the agent's to refuse). On by default per route.
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  blocked.addSubnet(net, bits, 'ipv6');

/** Why this URL may not be fetched, or undefined when it may. */
export function unsafeUrl(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return `scheme ${u.protocol} is not allowed (http or https only)`;
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return 'points at loopback';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host)?.[1];
  const addr = mapped ?? host;
  const family = isIP(addr);
  if (family !== 0 && blocked.check(addr, family === 6 ? 'ipv6' : 'ipv4'))
    return 'points at a loopback, link-local or private address';
  return undefined;
}
