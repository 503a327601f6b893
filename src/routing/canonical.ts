// The one canonical form routing matches on (issue 12 item 10), so that no
// spelling of a path or tenant reaches a route other than the one its
// canonical form reaches: the request path with percent-encoded unreserved
// characters decoded and other escapes in upper case (RFC 3986 §6.2.2);
// path prefixes and tenants compared case-insensitively; tenants limited to
// URL-safe characters (they are REST path segments, spec §11.3); dot
// segments refused rather than resolved (RFC 3986 §5.2.4), also encoded, and
// also between the separators other readers of the path take for "/" (a
// WHATWG URL parser "\", a server that decodes first "%2F" and "%5C"); and
// the Host header checked as an authority (RFC 9110 §7.2).

const UNRESERVED = /[A-Za-z0-9._~-]/;

/** RFC 3986 §6.2.2.1–2: %41 → "A", %2e → ".", %2f stays "%2F"; malformed escapes are left as they are. */
export function canonicalPath(raw: string): string {
  if (!raw.includes('%')) return raw;
  return raw.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(c) ? c : escape.toUpperCase();
  });
}

/**
 * A path segment that is, or a server may take for, "." or ".." ("..;x" as Tomcat reads it), between separators
 * as any reader of the path may see them: "/", "\" (WHATWG URL parsers: "/a/..\b" is "/b"), and "%2F" or "%5C"
 * (servers that decode the path before resolving it). The canonical path has "%2E" as "." and escapes in upper case.
 */
const DOT_SEGMENT = /(?:^|[/\\]|%2F|%5C)\.{1,2}(?:;|[/\\]|%2F|%5C|$)/i;

/** Whether the canonical path has a dot segment (which the gateway refuses instead of resolving). */
export function hasDotSegment(canonical: string): boolean {
  return DOT_SEGMENT.test(canonical);
}

/** The form prefixes are compared in: canonical, lower case, without a trailing "/". */
export function prefixKey(prefix: string): string {
  return canonicalPath(prefix).toLowerCase().replace(/\/+$/, '');
}

const URL_SAFE_TENANT = /^[A-Za-z0-9._~-]{1,256}$/;

/** A tenant the gateway routes: RFC 3986 unreserved characters only, not a dot segment. */
export function isUrlSafeTenant(tenant: string): boolean {
  return URL_SAFE_TENANT.test(tenant) && tenant !== '.' && tenant !== '..';
}

export function sameTenant(a: string, b: string): boolean {
  return a === b || a.toLowerCase() === b.toLowerCase();
}

/** host [":" port]: a DNS name or IPv4 address, or an IPv6 literal in brackets; the port 0–65535. */
const AUTHORITY =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_-]{1,63})*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::(\d{1,5}))?$/;

/** Whether a Host header (or :authority, or X-Forwarded-Host) is an authority the gateway may write into a URL. */
export function isAuthority(host: string): boolean {
  if (host.length > 261) return false;
  const m = AUTHORITY.exec(host);
  return m !== null && (m[1] === undefined || Number(m[1]) <= 65535);
}
