// Authentication at the gateway (spec §7.4, §3.3.2): a route's `auth` names
// the schemes it accepts — an API key (header, query or cookie, as the A2A
// APIKeySecurityScheme describes), a bearer JWT (jwt-verifier.ts) or a client
// certificate verified by the listener (mTLS) — and any one of them
// suffices. A call without valid credentials is UNAUTHENTICATED in the
// caller's binding, with the challenges for `WWW-Authenticate` in the
// ErrorInfo metadata. Keys are compared as SHA-256 digests in constant time;
// no credential ever appears in a message.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestView } from '../http/request.js';
import type { ApiKeyLocation, RouteAuth, RouteConfig } from '../config/types.js';
import { A2AError } from '../errors/a2a-error.js';
import { loadJose } from '../util/jose.js';
import { JwtVerifier, TokenRefused } from './jwt-verifier.js';

/** Who the caller is, once authenticated. */
export interface Principal {
  scheme: 'apiKey' | 'jwt' | 'mtls';
  id: string;
}

export const WWW_AUTHENTICATE_KEY = 'wwwAuthenticate';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** The name=value pairs of a Cookie header (RFC 6265 §4.2.1), values URI-decoded where they can be. */
export function cookies(header: string | undefined): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const raw = part.slice(eq + 1).trim();
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // keep the raw value
    }
    out.push([part.slice(0, eq).trim(), value]);
  }
  return out;
}

/** Where the route's API key is read from, in the caller's request. */
export function presentedApiKey(view: RequestView, location: ApiKeyLocation, name: string): string | undefined {
  if (location === 'header') return view.header(name.toLowerCase());
  if (location === 'query') return view.query?.(name);
  return cookies(view.header('cookie')).find(([n]) => n === name)?.[1];
}

const quoted = (s: string): string => `"${s.replace(/["\\]/g, '')}"`;

class RouteAuthenticator {
  private readonly keys: Array<{ id: string; digest: Buffer }>;
  private readonly jwt: JwtVerifier | undefined;

  constructor(
    private readonly auth: RouteAuth,
    private readonly realm: string,
    jwt: JwtVerifier | undefined,
  ) {
    this.keys = (auth.apiKey?.keys ?? []).map((k) => ({ id: k.id, digest: digest(k.key) }));
    this.jwt = jwt;
  }

  async authenticate(view: RequestView): Promise<Principal> {
    const problems: string[] = [];
    let bearerError: string | undefined;
    if (this.auth.mtls) {
      const cert = view.peerCertificate?.();
      if (cert) return { scheme: 'mtls', id: cert.subject };
      problems.push('no verified client certificate');
    }
    const apiKey = this.auth.apiKey;
    if (apiKey) {
      const presented = presentedApiKey(view, apiKey.location, apiKey.name);
      if (presented !== undefined) {
        const d = digest(presented);
        // compare against every key, so the time taken does not say which one nearly matched
        const match = this.keys.reduce<string | undefined>(
          (found, k) => (timingSafeEqual(k.digest, d) ? k.id : found),
          undefined,
        );
        if (match !== undefined) return { scheme: 'apiKey', id: match };
        problems.push('the API key is not valid');
      } else {
        problems.push(`no API key in ${apiKey.location} "${apiKey.name}"`);
      }
    }
    if (this.jwt) {
      const m = /^Bearer\s+([^\s,]+)\s*$/i.exec(view.header('authorization') ?? '');
      if (m) {
        try {
          return { scheme: 'jwt', id: (await this.jwt.verify(m[1]!)).subject };
        } catch (e) {
          bearerError = e instanceof TokenRefused ? e.message : 'the token cannot be verified';
          problems.push(bearerError);
        }
      } else {
        problems.push('no bearer token');
      }
    }
    throw A2AError.of('UNAUTHENTICATED', `authentication required: ${problems.join('; ')}`, {
      metadata: { [WWW_AUTHENTICATE_KEY]: this.challenges(bearerError) },
    });
  }

  /** RFC 7235 challenges, one per accepted scheme (RFC 6750 error attributes for a refused token). */
  private challenges(bearerError: string | undefined): string {
    const realm = `realm=${quoted(this.realm)}`;
    const out: string[] = [];
    if (this.auth.jwt)
      out.push(
        `Bearer ${realm}${bearerError ? `, error="invalid_token", error_description=${quoted(bearerError)}` : ''}`,
      );
    if (this.auth.apiKey)
      out.push(`ApiKey ${realm}, in=${quoted(this.auth.apiKey.location)}, name=${quoted(this.auth.apiKey.name)}`);
    if (this.auth.mtls) out.push(`ClientCertificate ${realm}`);
    return out.join(', ');
  }
}

/** One authenticator per route configuration (a reload brings new ones: keys and key sets are re-read). */
export class Authenticator {
  private readonly byRoute = new WeakMap<RouteAuth, RouteAuthenticator>();

  /** The caller's principal, undefined for a route without `auth`; throws UNAUTHENTICATED. */
  async authenticate(route: RouteConfig, view: RequestView): Promise<Principal | undefined> {
    const auth = route.auth;
    if (!auth) return undefined;
    let a = this.byRoute.get(auth);
    if (!a) {
      // jose is imported by the first call of the first route that takes JWTs (not awaited once `a` exists)
      const jwt = auth.jwt ? new JwtVerifier(auth.jwt, await loadJose()) : undefined;
      a = this.byRoute.get(auth) ?? new RouteAuthenticator(auth, route.name, jwt);
      this.byRoute.set(auth, a);
    }
    return a.authenticate(view);
  }
}
