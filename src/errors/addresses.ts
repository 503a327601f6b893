// Errors answered to callers name no internal address (issue 12 item 18): a
// socket error's or grpc-js's text ("connect ECONNREFUSED 10.0.3.7:9000",
// "Name resolution failed for target dns:billing.internal:50051", a card URL)
// is answered with its addresses replaced, and logged whole
// (A2AError.internal). A URL's user:password part is never logged either.

const HIDDEN = '<upstream>';

const PATTERNS: RegExp[] = [
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s,;)'"]*[^\s,;)'":.]/gi, // URLs
  /\[[0-9a-f:.%]+\](?::\d+)?/gi, // [IPv6]:port
  /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b/g, // IPv4[:port]
  /(?<![\w:])[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,8}(?![\w:])/gi, // bare IPv6 (with a port)
  /(?<![\w.-])[a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)*\.?:\d{1,5}(?![\d:.])/gi, // host:port
  /\b(ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)\s+\S+/g, // getaddrinfo ENOTFOUND host
  /\b(Host|IP|hostname): [^\s,;]+/g, // TLS altname mismatch texts
];

/** The text with network addresses (URLs, IP addresses, host:port) replaced by "<upstream>". */
export function withoutAddresses(text: string): string {
  let out = text;
  for (const p of PATTERNS)
    out = out.replace(p, (m: string, name?: string) =>
      typeof name === 'string' && m.startsWith(name)
        ? `${name}${m[name.length] === ':' ? ': ' : ' '}${HIDDEN}`
        : HIDDEN,
    );
  return out;
}

/** A URL as logs and the console may show it: without a user:password part (undici sends none; it is still a secret). */
export function withoutUserinfo(url: string): string {
  if (!url.includes('@')) return url;
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return url;
  }
}
