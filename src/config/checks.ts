// Checks of a config beyond its JSON Schema (reported with file:line:col by
// load.ts): upstream URLs usable for their binding, unique route names,
// secrets given exactly once and present in the environment, and the TLS,
// key-set and signing files that must exist.
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import type { RawRoute } from './raw.js';
import type { ListenerTls, RouteConfig } from './types.js';

export interface Problem {
  path: string;
  message: string;
}

/** Checks beyond the schema: upstream URLs readable, names unique, secrets and files present. */
export function semanticProblems(
  routes: RouteConfig[],
  raws: RawRoute[],
  listenerTls: ListenerTls | undefined,
): Problem[] {
  const out: Problem[] = [];
  const names = new Set<string>();
  const fileMissing = (path: string, f: string | undefined): void => {
    if (f !== undefined && !existsSync(f)) out.push({ path, message: `file not found: ${relative(process.cwd(), f)}` });
  };
  routes.forEach((r, i) => {
    const raw = raws[i]!;
    const tls = r.upstream.tls;
    for (const k of ['ca', 'cert', 'key'] as const) fileMissing(`/routes/${i}/upstream/tls/${k}`, tls?.[k]);
    if (tls && (tls.cert === undefined) !== (tls.key === undefined))
      out.push({ path: `/routes/${i}/upstream/tls`, message: 'cert and key go together' });
    raw.auth?.apiKey?.keys.forEach((k, j) => {
      const path = `/routes/${i}/auth/apiKey/keys/${j}`;
      if ((k.key === undefined) === (k.keyEnv === undefined))
        out.push({ path, message: 'give exactly one of key and keyEnv' });
      else if (k.keyEnv !== undefined && !process.env[k.keyEnv])
        out.push({ path, message: `environment variable ${k.keyEnv} is not set` });
    });
    const auth = raw.auth;
    if (auth) {
      if (!auth.apiKey && !auth.jwt && !auth.mtls)
        out.push({ path: `/routes/${i}/auth`, message: 'configure at least one of apiKey, jwt, mtls' });
      if (auth.jwt && (auth.jwt.jwksUrl === undefined) === (auth.jwt.jwksFile === undefined))
        out.push({ path: `/routes/${i}/auth/jwt`, message: 'give exactly one of jwksUrl and jwksFile' });
      fileMissing(`/routes/${i}/auth/jwt/jwksFile`, r.auth?.jwt?.jwksFile);
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
    if (names.has(r.name)) out.push({ path: `/routes/${i}/name`, message: `duplicate route name "${r.name}"` });
    names.add(r.name);
    const url = r.upstream.url;
    const ok =
      r.upstream.binding === 'GRPC' ? /^(grpcs?:\/\/)?[^/\s]+:\d+\/?$/.test(url) : /^https?:\/\/[^\s]+$/.test(url);
    if (r.card.signatures === 'resign' && !r.card.signingKey) {
      out.push({ path: `/routes/${i}/card/signatures`, message: 'resign needs card.signingKey' });
    }
    for (const p of r.upstream.allowedHosts.concat(r.hosts))
      if (p.includes('/')) out.push({ path: `/routes/${i}`, message: `"${p}" is not a host name` });
    if (!ok) {
      const want =
        r.upstream.binding === 'GRPC'
          ? 'host:port, grpc://host:port or grpcs://host:port'
          : 'an http:// or https:// URL';
      out.push({ path: `/routes/${i}/upstream/url`, message: `must be ${want}` });
    }
  });
  return out;
}
