// Reads the YAML config once, validates it against the JSON Schema (ajv, compiled
// ahead of time into src/gen) and turns it into the typed GatewayConfig. Every
// problem is reported with file, line, column and field path, and loading fails
// as a whole.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { LineCounter, parseDocument, isNode, type Document } from 'yaml';
import { validate as precompiled } from '../gen/config-validator.js';
import { listenerProblems, semanticProblems, trustedProxyProblems } from './checks.js';
import { listenerTlsProblems } from './tls-files.js';
import { collapseOneOf } from './schema-errors.js';
import { endpointsFromRaw, impliesTls, stateFromRaw } from './upstream.js';
import type { RawAuth, RawCard, RawConfig, RawListenerTls, RawRoute } from './raw.js';
import {
  DEFAULT_LIMITS,
  DEFAULTS,
  MAX_TIMER_MS,
  type CardConfig,
  type GatewayConfig,
  type ListenerTls,
  type RouteAuth,
  type RouteConfig,
  type TenantPolicy,
  type UpstreamCredentials,
  type UpstreamTls,
} from './types.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

/** ajv's validator for CONFIG_SCHEMA (schema.ts), compiled ahead of time (scripts/config-validator.ts). */
const validate = precompiled as ValidateFunction<RawConfig>;

export function fieldPath(instancePath: string): string {
  const parts = instancePath.split('/').slice(1);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '') || '(top level)';
}

export function position(doc: Document, lc: LineCounter, instancePath: string): string {
  const keys = instancePath
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  for (let n = keys.length; n >= 0; n--) {
    const node = keys.length === 0 ? doc.contents : doc.getIn(keys.slice(0, n), true);
    if (isNode(node) && node.range) {
      const { line, col } = lc.linePos(node.range[0]);
      return `${line}:${col}`;
    }
  }
  return '1:1';
}

function describe(e: ErrorObject): string {
  if (e.keyword === 'additionalProperties') return `unknown field "${String(e.params.additionalProperty)}"`;
  if (e.keyword === 'required') return `missing required field "${String(e.params.missingProperty)}"`;
  if (e.keyword === 'enum')
    return `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  if (e.keyword === 'maximum' && e.params.limit === MAX_TIMER_MS)
    return `must be <= ${MAX_TIMER_MS} (24.8 days in ms: Node.js fires a longer timer at once)`;
  return e.message ?? 'is invalid';
}

function normalizePrefix(p: string | undefined): string {
  const s = (p ?? '/').replace(/\/+$/, '');
  return s === '' ? '' : s;
}

function tenantPolicy(t: unknown): TenantPolicy {
  if (t === 'clear') return { mode: 'clear' };
  if (t && typeof t === 'object' && 'set' in t) return { mode: 'set', value: String((t as { set: string }).set) };
  return { mode: 'keep' };
}

function cardFromRaw(c: RawCard, baseDir: string): CardConfig {
  const file = (f: string | undefined): string | undefined => (f ? resolve(baseDir, f) : undefined);
  return {
    file: file(c.file),
    url: c.url,
    publicHttpUrl: c.publicHttpUrl?.replace(/\/+$/, ''),
    publicGrpcAddress: c.publicGrpcAddress,
    bindings: c.bindings ?? [],
    overrides: c.overrides ?? {},
    maxAgeSeconds: c.maxAgeSeconds ?? DEFAULTS.cardMaxAgeSeconds,
    signatures: c.signatures ?? 'drop',
    signingKey: c.signingKey
      ? { file: file(c.signingKey.file)!, alg: c.signingKey.alg, kid: c.signingKey.kid, jku: c.signingKey.jku }
      : undefined,
    verifyJwksFile: file(c.verifyJwksFile),
  };
}

function upstreamTls(r: RawRoute['upstream'], url: string, baseDir: string): UpstreamTls | undefined {
  const t = r.tls ?? (impliesTls(url) ? {} : undefined);
  if (!t) return undefined;
  const file = (f: string | undefined): string | undefined => (f ? resolve(baseDir, f) : undefined);
  return { ca: file(t.ca), cert: file(t.cert), key: file(t.key), servername: t.servername };
}

function readSecretFile(f: string): string {
  try {
    return readFileSync(f, 'utf8').trim();
  } catch {
    return '';
  }
}

function upstreamCredentials(
  c: RawRoute['upstream']['credentials'],
  authenticated: boolean,
  baseDir: string,
): UpstreamCredentials {
  if (c === 'forward' || c === 'strip') return { mode: c };
  if (c === undefined) return { mode: authenticated ? 'strip' : 'forward' };
  const value =
    c.value ??
    (c.valueEnv !== undefined ? process.env[c.valueEnv] : undefined) ??
    (c.valueFile !== undefined ? readSecretFile(resolve(baseDir, c.valueFile)) : '');
  return { mode: 'set', header: c.header.toLowerCase(), value };
}

function routeAuth(a: RawAuth | undefined, baseDir: string): RouteAuth | undefined {
  if (!a) return undefined;
  return {
    apiKey: a.apiKey
      ? {
          location: a.apiKey.in ?? 'header',
          name: a.apiKey.name,
          keys: a.apiKey.keys.map((k) => ({ id: k.id, key: k.key ?? process.env[k.keyEnv ?? ''] ?? '' })),
        }
      : undefined,
    jwt: a.jwt
      ? {
          jwksUrl: a.jwt.jwksUrl,
          jwksFile: a.jwt.jwksFile ? resolve(baseDir, a.jwt.jwksFile) : undefined,
          issuer: a.jwt.issuer,
          audience: a.jwt.audience,
          clockSkewSeconds: a.jwt.clockSkewSeconds ?? 30,
          requireExpiration: a.jwt.requireExpiration ?? true,
          algorithms: a.jwt.algorithms,
        }
      : undefined,
    mtls: a.mtls ?? false,
    advertise: a.advertise ?? true,
  };
}

/** `baseDir` resolves relative files (card, keys) against the config file's folder. */
export function routeFromRaw(r: RawRoute, baseDir = process.cwd()): RouteConfig {
  const endpoints = endpointsFromRaw(r.upstream);
  return {
    name: r.name,
    pathPrefix: normalizePrefix(r.match?.pathPrefix),
    hosts: (r.match?.hosts ?? []).map((h) => h.toLowerCase()),
    tenant: r.match?.tenant,
    upstream: {
      ...endpoints,
      tls: upstreamTls(r.upstream, endpoints.url, baseDir),
      credentials: upstreamCredentials(r.upstream.credentials, r.auth !== undefined, baseDir),
      binding: r.upstream.binding ?? 'auto',
      version: r.upstream.version ?? '1.0',
      tenant: tenantPolicy(r.upstream.tenant),
      allowedHosts: (r.upstream.allowedHosts ?? []).map((h) => h.toLowerCase()),
      allowPlaintextInterfaces: r.upstream.allowPlaintextInterfaces ?? false,
    },
    card: cardFromRaw(r.card ?? {}, baseDir),
    timeoutMs: r.timeoutMs ?? DEFAULTS.timeoutMs,
    streamIdleTimeoutMs: r.streamIdleTimeoutMs ?? DEFAULTS.streamIdleTimeoutMs,
    sseKeepAliveMs: r.sseKeepAliveMs ?? DEFAULTS.sseKeepAliveMs,
    maxSseEventBytes: r.maxSseEventBytes ?? DEFAULTS.maxSseEventBytes,
    maxResponseBytes: r.maxResponseBytes ?? DEFAULTS.maxResponseBytes,
    maxBodyBytes: r.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    maxStringLength: r.maxStringLength ?? DEFAULTS.maxStringLength,
    forwardHeaders: (r.forwardHeaders ?? []).map((h) => h.toLowerCase()),
    passThrough: r.passThrough ?? false,
    versions: r.versions ?? ['1.0', '0.3'],
    cors: r.cors
      ? {
          allowOrigins: r.cors.allowOrigins,
          allowCredentials: r.cors.allowCredentials ?? false,
          allowHeaders: (r.cors.allowHeaders ?? []).map((h) => h.toLowerCase()),
          exposeHeaders: (r.cors.exposeHeaders ?? []).map((h) => h.toLowerCase()),
          maxAgeSeconds: r.cors.maxAgeSeconds ?? 600,
        }
      : undefined,
    ssrfGuard: r.ssrfGuard ?? true,
    rateLimit: r.rateLimit
      ? {
          requestsPerSecond: r.rateLimit.requestsPerSecond,
          burst: r.rateLimit.burst ?? Math.max(1, Math.ceil(r.rateLimit.requestsPerSecond)),
          perCaller: r.rateLimit.perCaller ?? false,
        }
      : undefined,
    maxConcurrentStreams: r.maxConcurrentStreams,
    auth: routeAuth(r.auth, baseDir),
  };
}

function listenerTls(t: RawListenerTls | undefined, baseDir: string): ListenerTls | undefined {
  if (!t) return undefined;
  return {
    cert: resolve(baseDir, t.cert),
    key: resolve(baseDir, t.key),
    clientCa: t.clientCa ? resolve(baseDir, t.clientCa) : undefined,
    requireClientCert: t.requireClientCert ?? t.clientCa !== undefined,
  };
}

/** Parses and validates YAML text; `source` names the file in messages. */
export function parseConfig(text: string, source: string, baseDir = process.cwd()): GatewayConfig {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => {
        const { line, col } = lc.linePos(e.pos[0]);
        return `${source}:${line}:${col}: YAML syntax: ${e.message.split('\n')[0]}`;
      }),
    );
  }
  const raw = doc.toJS() as unknown;
  if (!validate(raw)) {
    throw new ConfigError(
      collapseOneOf(validate.errors ?? []).map(
        (e) => `${source}:${position(doc, lc, e.instancePath)}: ${fieldPath(e.instancePath)}: ${describe(e)}`,
      ),
    );
  }
  const cfg = raw as unknown as RawConfig;
  const routes = cfg.routes.map((r) => routeFromRaw(r, baseDir));
  const tls = listenerTls(cfg.listen?.tls, baseDir);
  const semantic = semanticProblems(routes, cfg.routes, tls);
  semantic.push(...listenerTlsProblems(tls, cfg.listen?.tls));
  const host = cfg.listen?.host ?? DEFAULTS.host;
  semantic.push(
    ...listenerProblems({
      host,
      httpPort: cfg.listen?.httpPort ?? DEFAULTS.httpPort,
      grpcPort: cfg.listen?.grpcPort ?? DEFAULTS.grpcPort,
      admin: cfg.admin ? { host: cfg.admin.host ?? host, port: cfg.admin.port } : undefined,
    }),
  );
  semantic.push(...trustedProxyProblems(cfg.trustedProxies ?? []));
  if (semantic.length > 0) {
    throw new ConfigError(
      semantic.map((p) => `${source}:${position(doc, lc, p.path)}: ${fieldPath(p.path)}: ${p.message}`),
    );
  }
  return {
    source,
    host: cfg.listen?.host ?? DEFAULTS.host,
    httpPort: cfg.listen?.httpPort ?? DEFAULTS.httpPort,
    grpcPort: cfg.listen?.grpcPort ?? DEFAULTS.grpcPort,
    tls,
    publicHttpUrl: cfg.public?.httpUrl?.replace(/\/+$/, ''),
    publicGrpcAddress: cfg.public?.grpcAddress,
    logLevel: cfg.log?.level ?? DEFAULTS.logLevel,
    trustedProxies: cfg.trustedProxies ?? [],
    admin: cfg.admin
      ? {
          host: cfg.admin.host ?? cfg.listen?.host ?? DEFAULTS.host,
          port: cfg.admin.port,
          allowedHosts: (cfg.admin.allowedHosts ?? []).map((h) => h.toLowerCase()),
        }
      : undefined,
    grpcReflection: cfg.grpcReflection ?? true,
    shutdownGraceMs: cfg.shutdownGraceMs ?? DEFAULTS.shutdownGraceMs,
    limits: { ...DEFAULT_LIMITS, ...cfg.limits },
    state: stateFromRaw(cfg.state),
    tracing: cfg.tracing
      ? {
          otlpEndpoint: cfg.tracing.otlpEndpoint,
          protocol: cfg.tracing.protocol ?? 'http/json',
          headers: cfg.tracing.headers ?? {},
          serviceName: cfg.tracing.serviceName ?? 'a2a-gateway',
          sampleRatio: cfg.tracing.sampleRatio ?? 1,
          flushIntervalMs: cfg.tracing.flushIntervalMs ?? 1000,
        }
      : undefined,
    routes,
  };
}

export function loadConfigFile(path: string): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError([`${path}: cannot read: ${(e as Error).message}`]);
  }
  return parseConfig(text, path, dirname(resolve(path)));
}
