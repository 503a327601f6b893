// What the upstream receives of the caller's credentials (route
// `upstream.credentials`): `forward` passes Authorization and the route's
// API key header on, `strip` removes them (the default when the gateway
// authenticates the caller itself, as Envoy's jwt_authn does), and a
// configured header replaces them with the route's own credential for the
// agent.
import type { RouteConfig } from '../config/types.js';
import type { HeaderGetter } from '../http/request.js';

/** The headers to send upstream, from those the gateway would forward. */
export function withUpstreamCredentials(
  route: RouteConfig,
  forwarded: Record<string, string>,
  caller: HeaderGetter,
): Record<string, string> {
  const policy = route.upstream.credentials;
  const apiKey = route.auth?.apiKey;
  const keyHeader = apiKey?.location === 'header' ? apiKey.name.toLowerCase() : undefined;
  if (policy.mode === 'forward') {
    if (!keyHeader || forwarded[keyHeader] !== undefined) return forwarded;
    const v = caller(keyHeader);
    return v === undefined ? forwarded : { ...forwarded, [keyHeader]: v };
  }
  const out = { ...forwarded };
  delete out.authorization;
  if (keyHeader) delete out[keyHeader];
  if (apiKey?.location === 'cookie') delete out.cookie;
  if (policy.mode === 'set') out[policy.header] = policy.value;
  return out;
}
