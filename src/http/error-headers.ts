// HTTP headers an error carries on both HTTP bindings: `Retry-After` for a
// RetryInfo (rate limits, RFC 9110 §10.2.3) and `WWW-Authenticate` for an
// authentication failure (RFC 9110 §11.6.1, RFC 6750 §3), read from the
// error's details so that the core stays free of HTTP.
import { WWW_AUTHENTICATE_KEY } from '../auth/authenticator.js';
import { retryAfterSeconds } from '../core/limits.js';
import { ERROR_INFO_TYPE, type A2AError } from '../errors/a2a-error.js';

export function errorHeaders(err: A2AError): Record<string, string> {
  const out: Record<string, string> = {};
  const retry = retryAfterSeconds(err);
  if (retry !== undefined) out['retry-after'] = String(retry);
  if (err.errorName === 'UNAUTHENTICATED') {
    const info = err.details.find((d) => d['@type'] === ERROR_INFO_TYPE);
    const challenge = (info?.metadata as Record<string, unknown> | undefined)?.[WWW_AUTHENTICATE_KEY];
    if (typeof challenge === 'string' && challenge !== '') out['www-authenticate'] = challenge;
  }
  return out;
}
