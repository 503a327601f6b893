// The TLS files a config names, checked at load (start, `a2a-gateway check`,
// every reload) so that a file the gateway could not read is a config
// problem naming its field: listen.tls.cert/key and routes[].upstream.tls
// ca/cert/key readable files, listen.tls.clientCa readable and holding a
// certificate (a bundle with none would let the gateway start and refuse
// every client), requireClientCert only with a clientCa. What the other
// files hold is checked when they are used: a listener's certificate and key
// when read (tls/listener-certificates.ts: at a reload, a pair caught half-way
// through a renewal keeps the old certificates and the rest of the reload
// applies), an upstream's when its connections are made (the TLS failure is
// UPSTREAM_UNAVAILABLE with its reason).
import { pemFileProblem } from '../tls/pem.js';
import type { Problem } from './checks.js';
import type { RawListenerTls } from './raw.js';
import type { ListenerTls, UpstreamTls } from './types.js';

/** listen.tls: its files (paths resolved) and the raw block (what was written). */
export function listenerTlsProblems(tls: ListenerTls | undefined, raw: RawListenerTls | undefined): Problem[] {
  if (!tls) return [];
  const out: Problem[] = [];
  const check = (field: 'cert' | 'key' | 'clientCa', certificates = false): void => {
    const file = tls[field];
    const message = file === undefined ? undefined : pemFileProblem(file, certificates);
    if (message) out.push({ path: `/listen/tls/${field}`, message });
  };
  check('cert');
  check('key');
  check('clientCa', true);
  if (raw?.requireClientCert === true && tls.clientCa === undefined)
    out.push({
      path: '/listen/tls/requireClientCert',
      message: 'needs clientCa (the CA that verifies client certificates)',
    });
  return out;
}

/** routes[i].upstream.tls: each file readable (their contents are checked when a connection pool is made). */
export function upstreamTlsProblems(tls: UpstreamTls | undefined, i: number): Problem[] {
  if (!tls) return [];
  const out: Problem[] = [];
  for (const field of ['ca', 'cert', 'key'] as const) {
    const file = tls[field];
    const message = file === undefined ? undefined : pemFileProblem(file);
    if (message) out.push({ path: `/routes/${i}/upstream/tls/${field}`, message });
  }
  return out;
}
