// Bearer JWTs (RFC 6750, RFC 7519) verified with jose against the route's key
// set — a JWKS URL (fetched and cached by jose, refetched for an unknown
// `kid`) or a JWKS file (read when the route is loaded) — checking the
// signature, `iss`, `aud`, `exp`/`nbf` with the configured clock skew, and
// the allowed algorithms.
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { RouteAuth } from '../config/types.js';

export type JwtConfig = NonNullable<RouteAuth['jwt']>;

/** Why a token was refused, for the caller (RFC 6750 error_description) — never the token itself. */
export class TokenRefused extends Error {
  constructor(
    message: string,
    readonly keySetUnavailable = false,
  ) {
    super(message);
  }
}

export class JwtVerifier {
  private readonly keys: JWTVerifyGetKey;

  constructor(private readonly config: JwtConfig) {
    this.keys = config.jwksFile
      ? createLocalJWKSet(JSON.parse(readFileSync(config.jwksFile, 'utf8')) as Parameters<typeof createLocalJWKSet>[0])
      : createRemoteJWKSet(new URL(config.jwksUrl!), {
          timeoutDuration: 5000,
          cooldownDuration: 30_000,
          cacheMaxAge: 600_000,
        });
  }

  /** The token's subject (`sub`, else `client_id`, else "jwt"); throws TokenRefused. */
  async verify(token: string): Promise<{ subject: string; claims: Record<string, unknown> }> {
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        ...(this.config.issuer ? { issuer: this.config.issuer } : {}),
        ...(this.config.audience ? { audience: this.config.audience } : {}),
        ...(this.config.algorithms ? { algorithms: this.config.algorithms } : {}),
        clockTolerance: this.config.clockSkewSeconds,
      });
      const subject =
        typeof payload.sub === 'string'
          ? payload.sub
          : typeof payload.client_id === 'string'
            ? payload.client_id
            : 'jwt';
      return { subject, claims: payload };
    } catch (e) {
      throw refusal(e);
    }
  }
}

function refusal(e: unknown): TokenRefused {
  if (e instanceof errors.JWTExpired) return new TokenRefused('the token has expired');
  if (e instanceof errors.JWTClaimValidationFailed)
    return new TokenRefused(`the token's "${e.claim}" claim is not accepted`);
  if (e instanceof errors.JWKSNoMatchingKey) return new TokenRefused('no key of the key set matches the token');
  if (e instanceof errors.JWSSignatureVerificationFailed)
    return new TokenRefused('the token signature does not verify');
  if (e instanceof errors.JOSEAlgNotAllowed) return new TokenRefused("the token's algorithm is not allowed");
  if (e instanceof errors.JWKSTimeout || e instanceof errors.JWKSInvalid)
    return new TokenRefused('the key set is unavailable; the token cannot be verified now', true);
  if (e instanceof errors.JOSEError) return new TokenRefused('the token is malformed');
  // fetch failures of a remote key set
  return new TokenRefused('the key set is unavailable; the token cannot be verified now', true);
}
