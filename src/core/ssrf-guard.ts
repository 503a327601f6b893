// The SSRF guard (spec §13: file references MUST be validated to prevent
// SSRF): a file part's `url` must be http(s) and must not name a loopback,
// link-local, private, CGNAT or unspecified address (IPv4 or IPv6 literal, or
// a localhost name). Host names are not resolved here (a name that resolves to
// a private address is the agent's to refuse). On by default per route.
import { BlockList, isIP } from 'node:net';
import protobuf from 'protobufjs';
import type { ProtoObject } from '../proto/protojson.js';
import type { FieldViolation } from '../proto/violations.js';

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

function walk(type: protobuf.Type, obj: ProtoObject, path: string, out: FieldViolation[]): void {
  if (type.fullName === '.lf.a2a.v1.Part' && typeof obj.url === 'string' && obj.url !== '') {
    const why = unsafeUrl(obj.url);
    if (why) out.push({ field: `${path}.url`, description: `file URL refused: ${why}` });
  }
  for (const f of type.fieldsArray) {
    const rt = f.resolvedType;
    const v = obj[f.name];
    if (!(rt instanceof protobuf.Type) || v == null || rt.fullName.startsWith('.google.')) continue;
    const at = path ? `${path}.${f.name}` : f.name;
    if (f.repeated && Array.isArray(v)) v.forEach((item, i) => walk(rt, item as ProtoObject, `${at}[${i}]`, out));
    else if (!f.repeated && !(f instanceof protobuf.MapField)) walk(rt, v as ProtoObject, at, out);
  }
}

/** Every file part URL of the request that the guard refuses. */
export function ssrfViolations(type: protobuf.Type, request: ProtoObject): FieldViolation[] {
  const out: FieldViolation[] = [];
  walk(type, request, '', out);
  return out;
}
