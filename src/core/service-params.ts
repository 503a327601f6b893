// Service parameters (spec §3.2.6, §3.6): reads A2A-Version and
// A2A-Extensions from a case-insensitive header/metadata lookup, checks the
// version (Major.Minor, patch ignored, empty = 0.3), and picks the headers
// that are forwarded upstream (Authorization, W3C trace context, allow-list),
// refusing values with CR/LF/NUL or over MAX_HEADER_VALUE_BYTES.
import { A2AError } from '../errors/a2a-error.js';
import type { HeaderGetter } from '../http/request.js';

export const SUPPORTED_MAJOR = 1;
export const UPSTREAM_VERSION = '1.0';
/** Longest header value the gateway reads or forwards (HTTP/1.1 allows 16 KiB for all headers together). */
export const MAX_HEADER_VALUE_BYTES = 8192;
const CONTROL = /[\r\n\0]/;

/** A header value the gateway will not read or pass on: CR, LF or NUL inside (header injection), or too long. */
function checkedValue(name: string, v: string | undefined): string | undefined {
  if (v === undefined) return v;
  if (CONTROL.test(v))
    throw A2AError.of('INVALID_REQUEST', `header ${name} contains a control character (CR, LF or NUL)`);
  if (Buffer.byteLength(v) > MAX_HEADER_VALUE_BYTES)
    throw A2AError.of('INVALID_REQUEST', `header ${name} exceeds ${MAX_HEADER_VALUE_BYTES} bytes`);
  return v;
}

/** The versions a caller may speak (a route may allow fewer: `versions`), for VersionNotSupported's metadata. */
const SUPPORTED: readonly string[] = ['1.0', '0.3'];

/** VersionNotSupported naming what the gateway — or, `on` a route, that route — speaks. */
export function versionNotSupported(
  version: string,
  detail = '',
  on?: { route: string; versions: readonly string[] },
): A2AError {
  const versions = on?.versions ?? SUPPORTED;
  const v1 = versions.includes('1.0') ? `${SUPPORTED_MAJOR}.x` : undefined;
  const v03 = versions.includes('0.3') ? 'through its bridge, 0.3' : undefined;
  const speaks = v1 && v03 ? `${v1} and, ${v03}` : `only ${v1 ?? v03}`;
  const who = on ? `route "${on.route}"` : 'this gateway';
  return A2AError.of(
    'VERSION_NOT_SUPPORTED',
    `A2A version ${version} is not supported${detail}; ${who} speaks ${speaks}`,
    {
      metadata: { requestedVersion: version, supportedVersions: versions.join(', ') },
    },
  );
}

/** "1.0.2" → "1.0"; "" or absent → "0.3" (§3.6.2); 1.x and 0.3 are spoken. Throws VersionNotSupported. */
export function negotiateVersion(raw: string | undefined): string {
  const value = (raw ?? '').trim();
  const version = value === '' ? '0.3' : value;
  const m = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(version);
  const spoken = m && (Number(m[1]) === SUPPORTED_MAJOR || (m[1] === '0' && m[2] === '3'));
  if (!spoken) throw versionNotSupported(version);
  return `${m[1]}.${m[2]}`;
}

export function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** The caller's A2A-Extensions (§3.2.6; X-A2A-Extensions from a 0.3 caller), checked. */
export function extensionsOf(header: HeaderGetter, version: '1.0' | '0.3' = '1.0'): string[] {
  const name = version === '0.3' && header('a2a-extensions') === undefined ? 'x-a2a-extensions' : 'a2a-extensions';
  return splitList(checkedValue(name, header(name)));
}

/** Whether the caller speaks A2A 0.3 by its A2A-Version (header, else query): absent, empty or 0.x (§3.6.2). */
export function speaksV03(header: HeaderGetter, queryVersion: string | null | undefined): boolean {
  const v = (header('a2a-version') ?? queryVersion ?? '').trim();
  return v === '' || v.startsWith('0.');
}

/** The caller's A2A-Version: the header, else the A2A-Version query parameter (§3.6.1), negotiated. */
export function versionOf(header: HeaderGetter, queryVersion: string | undefined): string {
  return negotiateVersion(checkedValue('a2a-version', header('a2a-version')) ?? queryVersion);
}

/**
 * The headers forwarded upstream (§3.2.6): Authorization, the route's
 * allow-list, tracestate when the caller's traceparent is kept, Via, and the
 * call's traceparent; values with CR/LF/NUL or over the size limit refused.
 */
export function forwardedHeaders(
  header: HeaderGetter,
  allowList: readonly string[],
  traceparent: string,
  keepTracestate: boolean,
): Record<string, string> {
  const out: Record<string, string> = {};
  const auth = checkedValue('authorization', header('authorization'));
  if (auth !== undefined) out.authorization = auth;
  for (const name of allowList) {
    const v = checkedValue(name, header(name));
    if (v !== undefined) out[name] = v;
  }
  if (keepTracestate) {
    const ts = checkedValue('tracestate', header('tracestate'));
    if (ts !== undefined) out.tracestate = ts;
  }
  // the caller's Via, which the upstreamPolicy stage passes on with the gateway's hop added (RFC 9110 §7.6.3)
  const via = checkedValue('via', header('via'));
  if (via !== undefined) out.via = via;
  out.traceparent = traceparent;
  return out;
}

/**
 * Headers/metadata to send upstream for these parameters (§9.2, §10.2, §11.2).
 * `sp.version` is the upstream's: the pipeline sets it from the chosen
 * interface (UPSTREAM_VERSION for a configured binding).
 */
export function upstreamHeaders(sp: {
  version: string;
  extensions: readonly string[];
  forwardedHeaders: Record<string, string>;
}): Record<string, string> {
  const h: Record<string, string> = { ...sp.forwardedHeaders, 'a2a-version': sp.version };
  // a 0.3 agent reads X-A2A-Extensions (bridge §8); a 1.3 dual-stack one takes A2A-Version: 0.3 as its 0.3 switch
  if (sp.extensions.length > 0)
    h[sp.version === '0.3' ? 'x-a2a-extensions' : 'a2a-extensions'] = sp.extensions.join(',');
  return h;
}
