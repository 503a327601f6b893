// Checks of a config beyond its JSON Schema (reported with file:line:col by
// load.ts): upstream URLs usable for their binding, unique route names,
// secrets given exactly once and present in the environment (API keys from
// the environment as long as inline ones), the TLS files usable
// (tls-files.ts), the key-set, card and signing files that must exist, path
// prefixes without dot or empty segments, no route shadowed by an earlier one
// (prefixes and tenants compared as the router compares them), rate limits
// whose bucket fills within 100 years
// (the token bucket counts whole microseconds in doubles), no two listeners on
// one port, trusted proxies that are IP addresses or CIDRs, and card
// overrides that read as the AgentCard fields they replace (checks-card.ts).
import { isIP } from 'node:net';
import { overrideProblems } from './checks-card.js';
import { prefixKey, sameTenant } from '../routing/canonical.js';
import type { RawRoute } from './raw.js';
import { BINDINGS, type Binding, type ListenerTls, type RouteConfig } from './types.js';
import { pemFileProblem } from '../tls/pem.js';
import { upstreamTlsProblems } from './tls-files.js';
import { impliesTls } from './upstream.js';

export interface Problem {
  path: string;
  message: string;
}

/** The shortest API key accepted, inline (the schema's minLength) or from the environment. */
const MIN_KEY_LENGTH = 8;

/** The longest time an empty rate-limit bucket may take to fill (burst / requestsPerSecond), in seconds. */
const MAX_BUCKET_FILL_S = 100 * 365 * 86_400;

/** A prefix with `.`/`..` segments (plain or percent-encoded) or `//` would be matched on a path no client sends. */
function prefixProblem(prefix: string | undefined): string | undefined {
  if (prefix === undefined) return undefined;
  if (prefix.includes('//')) return `"${prefix}" has an empty segment (//)`;
  const segments = prefix.split('/').map((s) => s.replace(/%2e/gi, '.'));
  if (segments.some((s) => s === '.' || s === '..')) return `"${prefix}" has a dot segment (. or ..)`;
  return undefined;
}

const exposed = (r: RouteConfig): readonly Binding[] => (r.card.bindings.length > 0 ? r.card.bindings : BINDINGS);

/**
 * card.bindings of GRPC alone on a route gRPC cannot reach (it has no path: only a host, a tenant or the root reach
 * a route): no call of any binding ever matches it, and its card would name no interface.
 */
function grpcOnlyUnreachable(r: RouteConfig, i: number): Problem[] {
  const grpcOnly = r.card.bindings.length > 0 && r.card.bindings.every((b) => b === 'GRPC');
  if (!grpcOnly || r.tenant !== undefined || r.hosts.length > 0 || r.pathPrefix === '') return [];
  const message =
    'never matches: card.bindings allows only GRPC, and gRPC has no path: a route with a path prefix needs match.hosts or match.tenant for it';
  return [{ path: `/routes/${i}/card/bindings`, message }];
}

/**
 * Router order is specificity, then config order: `a` takes every call `b` could match, on every binding. Prefixes
 * and tenants compare as the router compares them (routing/canonical.ts: case-insensitively).
 */
function shadows(a: RouteConfig, b: RouteConfig): boolean {
  if (prefixKey(a.pathPrefix) !== prefixKey(b.pathPrefix)) return false;
  if ((a.tenant === undefined) !== (b.tenant === undefined)) return false;
  if (a.tenant !== undefined && !sameTenant(a.tenant, b.tenant!)) return false;
  if (!exposed(b).every((x) => exposed(a).includes(x))) return false;
  if (b.hosts.length === 0) return a.hosts.length === 0;
  return a.hosts.length > 0 && b.hosts.every((h) => a.hosts.includes(h));
}

export interface Listeners {
  host: string;
  httpPort: number;
  grpcPort: number;
  admin: { host: string; port: number } | undefined;
}

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '']);

/** Two listeners on one port of one address (port 0 = any free port never collides). */
export function listenerProblems(l: Listeners): Problem[] {
  const all = [
    { path: '/listen/httpPort', name: 'listen.httpPort', host: l.host, port: l.httpPort },
    { path: '/listen/grpcPort', name: 'listen.grpcPort', host: l.host, port: l.grpcPort },
    ...(l.admin ? [{ path: '/admin/port', name: 'admin.port', host: l.admin.host, port: l.admin.port }] : []),
  ];
  const out: Problem[] = [];
  all.forEach((b, i) => {
    const a = all
      .slice(0, i)
      .find((a) => a.port === b.port && (a.host === b.host || WILDCARDS.has(a.host) || WILDCARDS.has(b.host)));
    if (a && b.port !== 0)
      out.push({ path: b.path, message: `port ${b.port} is also ${a.name}: each listener needs its own port` });
  });
  return out;
}

/** `trustedProxies` entries node:net's BlockList takes: an IP address, or a CIDR with its prefix length in range. */
export function trustedProxyProblems(entries: readonly string[]): Problem[] {
  const out: Problem[] = [];
  entries.forEach((entry, i) => {
    const [addr = '', bits, ...more] = entry.split('/');
    const family = isIP(addr);
    const most = family === 6 ? 128 : 32;
    const path = `/trustedProxies/${i}`;
    if (family === 0)
      out.push({ path, message: `"${entry}" is not an IP address or CIDR (host names are not resolved)` });
    else if (more.length > 0 || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= most)))
      out.push({ path, message: `"${entry}" is not a CIDR: an IPv${family} prefix length is 0 to ${most}` });
  });
  return out;
}

/** Checks beyond the schema: upstream URLs readable, names unique, secrets and files present. */
export function semanticProblems(
  routes: RouteConfig[],
  raws: RawRoute[],
  listenerTls: ListenerTls | undefined,
): Problem[] {
  const out: Problem[] = [];
  const names = new Set<string>();
  // a file the route names must be one the gateway can read (the words of tls-files.ts's checks)
  const fileProblem = (path: string, f: string | undefined): void => {
    const message = f === undefined ? undefined : pemFileProblem(f);
    if (message) out.push({ path, message });
  };
  routes.forEach((r, i) => {
    const raw = raws[i]!;
    const tls = r.upstream.tls;
    out.push(...upstreamTlsProblems(tls, i));
    if (tls && (tls.cert === undefined) !== (tls.key === undefined))
      out.push({ path: `/routes/${i}/upstream/tls`, message: 'cert and key go together' });
    raw.auth?.apiKey?.keys.forEach((k, j) => {
      const path = `/routes/${i}/auth/apiKey/keys/${j}`;
      if ((k.key === undefined) === (k.keyEnv === undefined))
        out.push({ path, message: 'give exactly one of key and keyEnv' });
      else if (k.keyEnv !== undefined && !process.env[k.keyEnv])
        out.push({ path, message: `environment variable ${k.keyEnv} is not set` });
      else if (k.keyEnv !== undefined && process.env[k.keyEnv]!.length < MIN_KEY_LENGTH)
        out.push({
          path,
          message: `environment variable ${k.keyEnv} holds a key shorter than ${MIN_KEY_LENGTH} characters`,
        });
    });
    const auth = raw.auth;
    if (auth) {
      if (!auth.apiKey && !auth.jwt && !auth.mtls)
        out.push({ path: `/routes/${i}/auth`, message: 'configure at least one of apiKey, jwt, mtls' });
      if (auth.jwt && (auth.jwt.jwksUrl === undefined) === (auth.jwt.jwksFile === undefined))
        out.push({ path: `/routes/${i}/auth/jwt`, message: 'give exactly one of jwksUrl and jwksFile' });
      fileProblem(`/routes/${i}/auth/jwt/jwksFile`, r.auth?.jwt?.jwksFile);
      if (auth.mtls && !listenerTls?.clientCa)
        out.push({ path: `/routes/${i}/auth/mtls`, message: 'mtls needs listen.tls.clientCa' });
    }
    const cred = raw.upstream.credentials;
    if (cred && typeof cred === 'object') {
      const given = [cred.value, cred.valueEnv, cred.valueFile].filter((v) => v !== undefined).length;
      if (given !== 1)
        out.push({
          path: `/routes/${i}/upstream/credentials`,
          message: 'give exactly one of value, valueEnv and valueFile',
        });
      else if (cred.valueEnv !== undefined && !process.env[cred.valueEnv])
        out.push({
          path: `/routes/${i}/upstream/credentials`,
          message: `environment variable ${cred.valueEnv} is not set`,
        });
      else if (
        cred.valueFile !== undefined &&
        r.upstream.credentials.mode === 'set' &&
        r.upstream.credentials.value === ''
      )
        out.push({ path: `/routes/${i}/upstream/credentials`, message: `cannot read ${cred.valueFile}` });
    }
    const prefix = prefixProblem(raw.match?.pathPrefix);
    if (prefix) out.push({ path: `/routes/${i}/match/pathPrefix`, message: prefix });
    if (r.cors?.allowCredentials && r.cors.allowOrigins.includes('*'))
      out.push({
        path: `/routes/${i}/cors`,
        message: 'allowCredentials needs the origins named: browsers refuse credentials with a wildcard origin',
      });
    const earlier = routes.slice(0, i).find((a) => shadows(a, r));
    if (earlier && !prefix)
      out.push({
        path: `/routes/${i}/match`,
        message: `never matches: route "${earlier.name}" comes first with the same path prefix "${r.pathPrefix || '/'}", tenant, hosts and bindings`,
      });
    if (names.has(r.name)) out.push({ path: `/routes/${i}/name`, message: `duplicate route name "${r.name}"` });
    names.add(r.name);
    if (r.rateLimit && r.rateLimit.burst / r.rateLimit.requestsPerSecond > MAX_BUCKET_FILL_S)
      out.push({
        path: `/routes/${i}/rateLimit`,
        message: 'burst / requestsPerSecond, the time an empty bucket takes to fill, is over 100 years',
      });
    if (r.card.signatures === 'resign' && !r.card.signingKey) {
      out.push({ path: `/routes/${i}/card/signatures`, message: 'resign needs card.signingKey' });
    }
    fileProblem(`/routes/${i}/card/file`, r.card.file);
    fileProblem(`/routes/${i}/card/signingKey/file`, r.card.signingKey?.file);
    fileProblem(`/routes/${i}/card/verifyJwksFile`, r.card.verifyJwksFile);
    for (const p of r.upstream.allowedHosts.concat(r.hosts))
      if (p.includes('/')) out.push({ path: `/routes/${i}`, message: `"${p}" is not a host name` });
    out.push(...endpointProblems(r, raw, i));
    out.push(...grpcOnlyUnreachable(r, i));
    out.push(...overrideProblems(r, i));
  });
  return out;
}

function urlProblem(r: RouteConfig, url: string): string | undefined {
  const grpc = r.upstream.binding === 'GRPC';
  const ok = grpc ? /^(grpcs?:\/\/)?[^/\s]+:\d+\/?$/.test(url) : /^https?:\/\/[^\s]+$/.test(url);
  if (ok) return undefined;
  return `must be ${grpc ? 'host:port, grpc://host:port or grpcs://host:port' : 'an http:// or https:// URL'}`;
}

/** `url` or `endpoints` (exactly one), each endpoint usable, one TLS mode, unique names, policies that add up. */
function endpointProblems(r: RouteConfig, raw: RawRoute, i: number): Problem[] {
  const out: Problem[] = [];
  const at = `/routes/${i}/upstream`;
  const u = r.upstream;
  if ((raw.upstream.url === undefined) === (raw.upstream.endpoints === undefined)) {
    out.push({ path: at, message: 'give exactly one of url and endpoints' });
    return out;
  }
  const o = u.outlierDetection;
  if (o.maxEjectionMs < o.baseEjectionMs)
    out.push({ path: `${at}/outlierDetection`, message: 'maxEjectionMs is shorter than baseEjectionMs' });
  const hc = u.healthCheck;
  if (hc && hc.timeoutMs > hc.intervalMs)
    out.push({ path: `${at}/healthCheck`, message: 'timeoutMs is longer than intervalMs' });
  if (raw.upstream.url !== undefined) {
    const bad = urlProblem(r, u.url);
    if (bad) out.push({ path: `${at}/url`, message: bad });
    return out;
  }
  const names = new Set<string>();
  const urls = new Set<string>();
  u.endpoints.forEach((e, j) => {
    const bad = urlProblem(r, e.url);
    if (bad) out.push({ path: `${at}/endpoints/${j}/url`, message: bad });
    else if (impliesTls(e.url) !== impliesTls(u.url))
      out.push({ path: `${at}/endpoints/${j}/url`, message: 'every endpoint of a route uses TLS, or none does' });
    if (urls.has(e.url)) out.push({ path: `${at}/endpoints/${j}/url`, message: `"${e.url}" is listed twice` });
    if (names.has(e.name))
      out.push({ path: `${at}/endpoints/${j}/name`, message: `duplicate endpoint name "${e.name}"` });
    urls.add(e.url);
    names.add(e.name);
  });
  if (u.endpoints.length > 1 && r.passThrough && !u.sharedTaskStore)
    out.push({
      path: `${at}/endpoints`,
      message:
        'a pass-through route forwards calls unread, so it cannot keep a task on its endpoint: several endpoints need upstream.sharedTaskStore: true',
    });
  return out;
}
