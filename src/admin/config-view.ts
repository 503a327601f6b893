// The active configuration as the admin console shows it: the typed form
// (defaults filled in) with every secret masked — API keys, the credential a
// route sets towards its agent, the tracing exporter's headers, passwords in
// URLs (endpoints and Redis included), in their userinfo or a query parameter
// (ioredis reads `?password=`) — and then any remaining occurrence of those
// values anywhere in the text (a key pasted into a URL's query) replaced as
// well (core/secrets.ts).
import type { GatewayConfig, RouteConfig } from '../config/types.js';
import { REDACTED, redactText } from '../core/secrets.js';
import { maskedQuery, queryCredentials } from '../errors/addresses.js';

/**
 * A URL with its userinfo password and the values of its credential query parameters (password, token, API key;
 * errors/addresses.ts) masked; a URL that does not parse is returned as is.
 */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    const search = maskedQuery(u.search, REDACTED);
    if (!u.password && search === u.search) return url;
    if (u.password) u.password = 'REDACTED';
    u.search = search;
    return u.toString();
  } catch {
    return url;
  }
}

/** The credentials a URL holds: its userinfo password and credential query parameters, as written and decoded. */
function urlSecrets(url: string | undefined): string[] {
  // not every one is a URL (a gRPC host:port)
  if (!url || !URL.canParse(url)) return [];
  const u = new URL(url);
  const out = queryCredentials(u);
  if (!u.password) return out;
  out.push(u.password);
  try {
    out.push(decodeURIComponent(u.password));
  } catch {
    // a password with a stray % is masked as written
  }
  return out;
}

/** Every secret value the configuration holds. */
function secretsIn(config: GatewayConfig): string[] {
  const out: string[] = [];
  const urls: Array<string | undefined> = [config.state?.redis.url, config.tracing?.otlpEndpoint];
  for (const r of config.routes) {
    for (const k of r.auth?.apiKey?.keys ?? []) out.push(k.key);
    const c = r.upstream.credentials;
    if (c.mode === 'set') out.push(c.value, c.value.replace(/^\S+\s+/, ''));
    urls.push(r.upstream.url, ...r.upstream.endpoints.map((e) => e.url), r.card.url, r.auth?.jwt?.jwksUrl);
  }
  for (const url of urls) out.push(...urlSecrets(url));
  for (const v of Object.values(config.tracing?.headers ?? {})) out.push(v);
  // short values would mask ordinary words; the longest first so no part of one is left
  return [...new Set(out.filter((s) => s.length >= 4))].sort((a, b) => b.length - a.length);
}

function maskRoute(r: RouteConfig): RouteConfig {
  const c = r.upstream.credentials;
  return {
    ...r,
    upstream: {
      ...r.upstream,
      url: maskUrl(r.upstream.url),
      endpoints: r.upstream.endpoints.map((e) => ({ ...e, url: maskUrl(e.url) })),
      credentials: c.mode === 'set' ? { ...c, value: REDACTED } : c,
    },
    card: { ...r.card, url: r.card.url === undefined ? undefined : maskUrl(r.card.url) },
    auth: r.auth && {
      ...r.auth,
      apiKey: r.auth.apiKey && { ...r.auth.apiKey, keys: r.auth.apiKey.keys.map((k) => ({ id: k.id, key: REDACTED })) },
      jwt: r.auth.jwt && { ...r.auth.jwt, jwksUrl: r.auth.jwt.jwksUrl && maskUrl(r.auth.jwt.jwksUrl) },
    },
  };
}

/** The configuration as JSON with no secret in it. */
export function maskedConfig(config: GatewayConfig): unknown {
  const masked: GatewayConfig = {
    ...config,
    tracing: config.tracing && {
      ...config.tracing,
      otlpEndpoint: maskUrl(config.tracing.otlpEndpoint),
      headers: Object.fromEntries(Object.keys(config.tracing.headers).map((k) => [k, REDACTED])),
    },
    state: config.state && { redis: { ...config.state.redis, url: maskUrl(config.state.redis.url) } },
    routes: config.routes.map(maskRoute),
  };
  return scrubStrings(JSON.parse(JSON.stringify(masked)) as unknown, secretsIn(config));
}

/** Every string in a JSON value (keys included) with the secrets replaced. */
function scrubStrings(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (Array.isArray(value)) return value.map((v) => scrubStrings(v, secrets));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [redactText(k, secrets), scrubStrings(v, secrets)]),
    );
  return value;
}

/** Any configured secret in `text` replaced (for text the console shows that came from elsewhere). */
export function withoutSecrets(text: string, config: GatewayConfig): string {
  return redactText(text, secretsIn(config));
}
