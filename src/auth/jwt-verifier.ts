// Bearer JWTs (RFC 6750, RFC 7519) verified with jose against the route's key
// set — a JWKS URL (fetched and cached by jose, refetched for an unknown
// `kid`) or a JWKS file (read when the route is loaded) — checking the
// signature, `iss`, `aud`, `exp`/`nbf` with the configured clock skew (a
// token without `exp` refused unless requireExpiration is false), and the
// allowed algorithms. The caller's identity is the token's `sub`; a token
// without one is its client at its issuer, else that token alone (subjectOf).
// The jose module is handed over by the authenticator, which loads it with the
// first call of a route that takes JWTs (util/jose.ts).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { RouteAuth } from '../config/types.js';
import type { JoseModule } from '../util/jose.js';

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

  /** `jose`: the loaded jose module (util/jose.ts). */
  constructor(
    private readonly config: JwtConfig,
    private readonly jose: JoseModule,
  ) {
    this.keys = config.jwksFile
      ? jose.createLocalJWKSet(
          JSON.parse(readFileSync(config.jwksFile, 'utf8')) as Parameters<JoseModule['createLocalJWKSet']>[0],
        )
      : jose.createRemoteJWKSet(new URL(config.jwksUrl!), {
          timeoutDuration: 5000,
          cooldownDuration: 30_000,
          cacheMaxAge: 600_000,
        });
  }

  /** The verified token's subject (subjectOf) and claims; throws TokenRefused. */
  async verify(token: string): Promise<{ subject: string; claims: Record<string, unknown> }> {
    try {
      const { payload } = await this.jose.jwtVerify(token, this.keys, {
        ...(this.config.issuer ? { issuer: this.config.issuer } : {}),
        ...(this.config.audience ? { audience: this.config.audience } : {}),
        ...(this.config.algorithms ? { algorithms: this.config.algorithms } : {}),
        clockTolerance: this.config.clockSkewSeconds,
        ...(this.config.requireExpiration ? { requiredClaims: ['exp'] } : {}),
      });
      return { subject: subjectOf(payload, token), claims: payload };
    } catch (e) {
      throw refusal(e, this.jose.errors);
    }
  }
}

const claim = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Who a verified token speaks for: its `sub` (RFC 7519 §4.1.2); without one,
 * the client it was issued to — `client_id` (RFC 9068 §2.2), else `azp`
 * (OpenID Connect Core §2) — at its issuer, as "client:<id>@<iss>"; without
 * that, this token alone, as "token:<SHA-256 of its signature, 132 bits>".
 * The prefixes keep the three apart (a client does not share a rate-limit
 * bucket with a `sub` equal to its id); the hash keeps the signature out of
 * logs and metrics.
 */
function subjectOf(payload: JWTPayload, token: string): string {
  const sub = claim(payload.sub);
  if (sub) return sub;
  const client = claim(payload.client_id) ?? claim(payload.azp);
  const iss = claim(payload.iss);
  if (client) return iss ? `client:${client}@${iss}` : `client:${client}`;
  const signature = token.slice(token.lastIndexOf('.') + 1);
  return `token:${createHash('sha256').update(signature).digest('base64url').slice(0, 22)}`;
}

function refusal(e: unknown, errors: JoseModule['errors']): TokenRefused {
  if (e instanceof errors.JWTExpired) return new TokenRefused('the token has expired');
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.reason === 'missing') return new TokenRefused(`the token has no "${e.claim}" claim`);
    return new TokenRefused(`the token's "${e.claim}" claim is not accepted`);
  }
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
