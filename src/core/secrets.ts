// Secrets never leave in an error message or a log line (issue: Authorization,
// API keys, cookies and push-notification `authentication.credentials`
// redacted everywhere): on the error path only, the dispatcher collects the
// call's secrets — the caller's Authorization value and token, its cookies,
// the route's API key as presented, every AuthenticationInfo.credentials and
// push config `token` in the request (§13.2: "SHOULD be treated as secrets"),
// the password and credential query parameters of its URLs (a webhook's
// `?sig=`) — and replaces them in the error's message and details (an
// upstream may echo what it was sent). Log lines are built from the redacted
// error; pino also redacts credential-named keys (server/gateway.ts).
import { cookies, presentedApiKey } from '../auth/authenticator.js';
import type { RequestView } from '../http/request.js';
import type { RouteConfig } from '../config/types.js';
import { A2AError } from '../errors/a2a-error.js';
import { queryCredentials } from '../errors/addresses.js';
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
      else if (k === 'token' && typeof v === 'string')
        out.push(v); // TaskPushNotificationConfig.token
      else if (k === 'url' && typeof v === 'string') urlSecrets(v, out);
      else credentialsIn(v, out);
    }
  }
}

/** A URL's password and credential query parameters (a webhook's `?sig=`, a presigned file URL's signature). */
function urlSecrets(url: string, out: string[]): void {
  if (!url.includes('@') && !url.includes('?')) return;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return;
  }
  if (u.password) {
    out.push(u.password);
    try {
      out.push(decodeURIComponent(u.password));
    } catch {
      // a malformed escape: the password as written is the secret
    }
  }
  out.push(...queryCredentials(u));
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
  out.push(...routeSecrets(route));
  if (env) credentialsIn(env.request.value, out);
  return [...new Set(out.filter((s) => s.length >= MIN_SECRET))].sort((a, b) => b.length - a.length);
}

const NO_SECRETS: readonly string[] = [];
const ownSecrets = new WeakMap<RouteConfig, readonly string[]>();

/**
 * The route's own credential for the agent (an upstream may echo it back), whole and without its scheme: once per
 * route configuration, as a pass-through answer asks for it on every call.
 */
export function routeSecrets(route: RouteConfig): readonly string[] {
  const own = route.upstream.credentials;
  if (own.mode !== 'set') return NO_SECRETS;
  let s = ownSecrets.get(route);
  if (!s) {
    s = [own.value, own.value.replace(/^\S+\s+/, '')].filter((v) => v.length >= MIN_SECRET);
    ownSecrets.set(route, s);
  }
  return s;
}

export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/**
 * The error with every secret replaced, in its message and its details. A relayed gRPC status (pass-through) loses
 * only `routeOwn` (the route's own credential, which the caller must never see): the caller's own values there are
 * its to see, and masking them in binary metadata would corrupt what merely contains them.
 */
export function redactError(err: A2AError, secrets: readonly string[], routeOwn: readonly string[] = []): A2AError {
  if (secrets.length === 0) return err;
  const message = redactText(err.message, secrets);
  const details = JSON.stringify(err.details);
  const clean = redactText(
    details,
    secrets.map((s) => JSON.stringify(s).slice(1, -1)),
  );
  const internal = err.internal === undefined ? undefined : redactText(err.internal, secrets);
  const relayed = redactRelayed(err.relayed, routeOwn);
  if (message === err.message && clean === details && internal === err.internal && relayed === err.relayed) return err;
  const redacted = new A2AError(err.errorName, message, JSON.parse(clean) as JsonObject[], { cause: err.cause });
  redacted.relayed = relayed;
  redacted.internal = internal;
  return redacted;
}

/** grpc-js Metadata as far as redaction needs it. */
interface MetadataLike {
  clone(): MetadataLike;
  getMap(): Record<string, unknown>;
  get(key: string): unknown[];
  remove(key: string): void;
  add(key: string, value: unknown): void;
}

const isMetadata = (m: unknown): m is MetadataLike =>
  typeof m === 'object' && m !== null && typeof (m as MetadataLike).getMap === 'function';

/** `bytes` with each secret's bytes masked by as many "*" (a binary value keeps its length, so its framing holds). */
export function maskBytes(bytes: Buffer, secrets: readonly string[]): Buffer {
  let out = bytes;
  for (const s of secrets) {
    const b = Buffer.from(s);
    for (let at = out.indexOf(b); at >= 0; at = out.indexOf(b, at + b.length)) {
      if (out === bytes) out = Buffer.from(bytes);
      out.fill(0x2a, at, at + b.length);
    }
  }
  return out;
}

/**
 * A pass-through's relayed gRPC status (bindings/grpc/relay.ts: its message and trailing metadata as the agent sent
 * them) with the call's secrets out: the route's own credential for the agent, which an agent may echo, must never
 * reach the caller. Text is redacted as elsewhere, binary values masked in place; the rest goes as it came.
 */
function redactRelayed(relayed: unknown, secrets: readonly string[]): unknown {
  if (typeof relayed !== 'object' || relayed === null) return relayed;
  const r = relayed as { details?: unknown; metadata?: unknown };
  const details = typeof r.details === 'string' ? redactText(r.details, secrets) : r.details;
  let metadata = r.metadata;
  if (isMetadata(metadata)) {
    let copy: MetadataLike | undefined;
    for (const key of Object.keys(metadata.getMap())) {
      const values = metadata.get(key);
      const clean = values.map((v) =>
        typeof v === 'string' ? redactText(v, secrets) : Buffer.isBuffer(v) ? maskBytes(v, secrets) : v,
      );
      if (clean.every((v, i) => v === values[i])) continue;
      copy ??= metadata.clone();
      copy.remove(key);
      for (const v of clean) copy.add(key, v);
    }
    metadata = copy ?? metadata;
  }
  if (details === r.details && metadata === r.metadata) return relayed;
  return { ...r, details, metadata };
}
