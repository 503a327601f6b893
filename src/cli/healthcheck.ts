// The image's HEALTHCHECK: GET /healthz where the config says the gateway
// listens — the admin listener when `admin:` is configured, else the public
// HTTP port (https when listen.tls is set; the certificate is not checked on
// this loopback self-probe) — and exit 0 when it answers 200. The config is
// A2A_GATEWAY_CONFIG's file, read as YAML only (no validation, no servers'
// modules: this runs every few seconds). A wildcard listen address is probed
// on loopback. A2A_GATEWAY_HEALTH_URL overrides all of it (needed when
// command-line flags, not the file, move the listener).
import { readFileSync } from 'node:fs';
import { Agent, fetch } from 'undici';
import { parse } from 'yaml';
import { loopbackHost } from '../util/loopback.js';

interface Listeners {
  listen?: { host?: string; httpPort?: number; tls?: unknown };
  admin?: { host?: string; port?: number };
}

/** The probed host, bracketed when it is an IPv6 address (a URL's form). */
function loopback(host: string | undefined): string {
  const h = loopbackHost(host);
  return h.includes(':') ? `[${h}]` : h;
}

function healthUrl(env: NodeJS.ProcessEnv): string {
  if (env.A2A_GATEWAY_HEALTH_URL) return env.A2A_GATEWAY_HEALTH_URL;
  let c: Listeners = {};
  try {
    if (env.A2A_GATEWAY_CONFIG) c = (parse(readFileSync(env.A2A_GATEWAY_CONFIG, 'utf8')) as Listeners) ?? {};
  } catch {
    // unreadable: probe the defaults; the gateway itself refuses to start on a bad file
  }
  if (c.admin?.port !== undefined) return `http://${loopback(c.admin.host ?? c.listen?.host)}:${c.admin.port}/healthz`;
  const scheme = c.listen?.tls ? 'https' : 'http';
  return `${scheme}://${loopback(c.listen?.host)}:${c.listen?.httpPort ?? 8080}/healthz`;
}

const url = healthUrl(process.env);
const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
fetch(url, { dispatcher, signal: AbortSignal.timeout(2500) }).then(
  (r) => process.exit(r.ok ? 0 : 1),
  () => process.exit(1),
);
