// Errors answered to callers name no internal address (issue 12 item 18): a
// socket error's or grpc-js's text ("connect ECONNREFUSED 10.0.3.7:9000",
// "Name resolution failed for target dns:billing.internal:50051", a card URL)
// is answered with its addresses replaced, and logged whole
// (A2AError.internal). A URL's credentials — its user:password part, and the
// query parameters named for one (ioredis reads ?password=) — are never
// logged either.

const HIDDEN = '<upstream>';

const PATTERNS: RegExp[] = [
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s,;)'"]*[^\s,;)'":.]/gi, // URLs
  /\[[0-9a-f:.%]+\](?::\d+)?/gi, // [IPv6]:port
  /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b/g, // IPv4[:port]
  /(?<![\w:])[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,8}(?![\w:])/gi, // bare IPv6 (with a port)
  // host:port; not an OpenSSL code ("error:1E08010C:DECODER routines"): a port ends at no letter or digit
  /(?<![\w.-])[a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)*\.?:\d{1,5}(?![\w:.])/gi,
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

/**
 * Query parameters named for a credential, anywhere in the name: a password (ioredis takes `?password=` and
 * `?sentinelPassword=`), a secret (`secretKey`), a token, a key (`api_key`, `access_key`), a signature (`sig`,
 * Azure SAS), `auth`, a credential. A user name is no secret: it stays, as in a URL's userinfo. Masking a harmless
 * parameter whose name holds one of these words costs a console reader a value, never a secret.
 */
const CREDENTIAL_WORD = /pass|pwd|secret|token|auth|cred/;
/** A key or a signature as a word of the name (`access_key`, `apikey`, `x-amz-signature`, `sig`), not `monkey`. */
const KEY_OR_SIGNATURE = /(?:^|[-_.]|api|access|private)key|(?:^|[-_.])sig(?:nature)?(?:$|[-_.])/;

function namesCredential(name: string): boolean {
  const lower = name.toLowerCase();
  return CREDENTIAL_WORD.test(lower) || KEY_OR_SIGNATURE.test(lower) || /[a-z]Key/.test(name);
}

const paramName = (pair: string): string => [...new URLSearchParams(pair).keys()][0] ?? '';

function maskedPair(pair: string, mask: string): string {
  const eq = pair.indexOf('=');
  return eq >= 0 && namesCredential(paramName(pair)) ? `${pair.slice(0, eq)}=${mask}` : pair;
}

/** A URL's query ("?a=b&…", as written) with the values of its credential parameters replaced by `mask`. */
export function maskedQuery(search: string, mask: string): string {
  if (search.length < 2) return search;
  const pairs = search.slice(1).split('&');
  return `?${pairs.map((p) => maskedPair(p, mask)).join('&')}`;
}

/** The values of a URL's credential query parameters, as written and decoded. */
export function queryCredentials(u: URL): string[] {
  const out: string[] = [];
  for (const p of u.search.slice(1).split('&')) {
    const eq = p.indexOf('=');
    if (eq < 0 || !namesCredential(paramName(p))) continue;
    out.push(p.slice(eq + 1), ...new URLSearchParams(p).values());
  }
  return out;
}

/**
 * A URL as logs and the console may show it: without a user:password part (undici sends none; it is still a
 * secret), the values of its credential query parameters masked.
 */
export function withoutCredentials(url: string): string {
  if (!url.includes('@') && !url.includes('?')) return url;
  try {
    const u = new URL(url);
    const search = maskedQuery(u.search, '[REDACTED]');
    if (!u.username && !u.password && search === u.search) return url;
    u.username = '';
    u.password = '';
    u.search = search;
    return u.href;
  } catch {
    return url;
  }
}
