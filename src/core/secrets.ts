// Secrets never leave in an error message or a log line (issue: Authorization,
// API keys, cookies and push-notification `authentication.credentials`
// redacted everywhere): on the error path only, the dispatcher collects the
// call's secrets — the caller's Authorization value and token, its cookies,
// the route's API key as presented, every AuthenticationInfo.credentials in
// the request — and replaces them in the error's message and details (an
// upstream may echo what it was sent). Log lines are built from the redacted
// error; pino also redacts credential-named keys (server/gateway.ts).
import { cookies, presentedApiKey } from '../auth/authenticator.js';
import type { RequestView } from '../http/request.js';
import type { RouteConfig } from '../config/types.js';
import { A2AError } from '../errors/a2a-error.js';
import type { JsonObject } from '../proto/json.js';
import type { Envelope } from './envelope.js';

export const REDACTED = '[REDACTED]';
/** Shorter values are not treated as secrets (they would redact ordinary words). */
const MIN_SECRET = 6;

function credentialsIn(value: unknown, out: string[]): void {
  if (Array.isArray(value)) {
    for (const v of value) credentialsIn(v, out);
  } else if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'authentication' && v && typeof v === 'object' && typeof (v as JsonObject).credentials === 'string')
        out.push((v as JsonObject).credentials as string);
      else credentialsIn(v, out);
    }
  }
}

export function secretsOf(env: Envelope | undefined, route: RouteConfig, view: RequestView): string[] {
  const out: string[] = [];
  const auth = view.header('authorization');
  if (auth) out.push(auth, auth.replace(/^\S+\s+/, ''));
  for (const [, value] of cookies(view.header('cookie'))) out.push(value);
  const key = route.auth?.apiKey;
  if (key) {
    const v = presentedApiKey(view, key.location, key.name);
    if (v) out.push(v);
  }
  // the route's own credential for the agent: an upstream may echo it back
  const own = route.upstream.credentials;
  if (own.mode === 'set') out.push(own.value, own.value.replace(/^\S+\s+/, ''));
  if (env) credentialsIn(env.request.value, out);
  return [...new Set(out.filter((s) => s.length >= MIN_SECRET))].sort((a, b) => b.length - a.length);
}

export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/** The error with every secret replaced, in its message and its details. */
export function redactError(err: A2AError, secrets: readonly string[]): A2AError {
  if (secrets.length === 0) return err;
  const message = redactText(err.message, secrets);
  const details = JSON.stringify(err.details);
  const clean = redactText(
    details,
    secrets.map((s) => JSON.stringify(s).slice(1, -1)),
  );
  const internal = err.internal === undefined ? undefined : redactText(err.internal, secrets);
  if (message === err.message && clean === details && internal === err.internal) return err;
  const redacted = new A2AError(err.errorName, message, JSON.parse(clean) as JsonObject[], { cause: err.cause });
  redacted.relayed = err.relayed;
  redacted.internal = internal;
  return redacted;
}
