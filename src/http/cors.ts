// CORS for browser A2A clients (Fetch standard, "CORS protocol"; issue 15
// item 3): per route, the origins allowed to call it (or "*"), whether
// credentials (cookies, HTTP auth) may be sent, and how long a preflight
// answer may be cached. A preflight (OPTIONS with Origin and
// Access-Control-Request-Method) is answered 204 with the methods A2A uses
// and the headers it needs (A2A-Version, A2A-Extensions, Authorization,
// Content-Type, trace context, X-Request-Id, the route's forwarded headers
// and API key header); an actual request gets the allow/expose headers.
// Routes without `cors` allow no other origin. Rules live here rather than in
// @fastify/cors because the route is chosen inside one catch-all handler (by
// host, prefix and tenant) and a non-preflight OPTIONS gets an A2A error.
import type { RouteConfig } from '../config/types.js';

const A2A_METHODS = 'GET, POST, DELETE';
const A2A_REQUEST_HEADERS = [
  'a2a-version',
  'a2a-extensions',
  'x-a2a-extensions',
  'authorization',
  'content-type',
  'traceparent',
  'tracestate',
  'x-request-id',
];
const EXPOSED = ['x-request-id', 'retry-after', 'www-authenticate', 'a2a-version', 'a2a-extensions'];

/** The first route of the group whose CORS rules let this origin in. */
function allowing(routes: readonly RouteConfig[], origin: string): RouteConfig | undefined {
  const o = origin.toLowerCase();
  return routes.find((r) => r.cors?.allowOrigins.some((a) => a === '*' || a.toLowerCase() === o));
}

function allowOrigin(route: RouteConfig, origin: string): Record<string, string> {
  const cors = route.cors!;
  const wildcard = cors.allowOrigins.includes('*') && !cors.allowCredentials;
  return {
    'access-control-allow-origin': wildcard ? '*' : origin,
    ...(cors.allowCredentials ? { 'access-control-allow-credentials': 'true' } : {}),
    vary: 'Origin',
  };
}

/** Headers for an actual request from `origin` (undefined: no Origin, or not allowed — no CORS header then). */
export function corsHeaders(routes: readonly RouteConfig[], origin: string | undefined): Record<string, string> {
  if (!origin) return {};
  const route = allowing(routes, origin);
  if (!route) return routes.some((r) => r.cors) ? { vary: 'Origin' } : {};
  return {
    ...allowOrigin(route, origin),
    'access-control-expose-headers': [...EXPOSED, ...route.cors!.exposeHeaders].join(', '),
  };
}

/** The answer to a preflight, or undefined when the request is no preflight an allowed origin made. */
export function preflight(
  routes: readonly RouteConfig[],
  origin: string | undefined,
  requestMethod: string | undefined,
): { status: number; headers: Record<string, string> } | undefined {
  if (!origin || !requestMethod) return undefined;
  const route = allowing(routes, origin);
  if (!route || !A2A_METHODS.includes(requestMethod.toUpperCase())) return undefined;
  const apiKey = route.auth?.apiKey?.location === 'header' ? [route.auth.apiKey.name.toLowerCase()] : [];
  const headers = [
    ...new Set([...A2A_REQUEST_HEADERS, ...route.forwardHeaders, ...apiKey, ...route.cors!.allowHeaders]),
  ];
  return {
    status: 204,
    headers: {
      ...allowOrigin(route, origin),
      'access-control-allow-methods': A2A_METHODS,
      'access-control-allow-headers': headers.join(', '),
      'access-control-max-age': String(route.cors!.maxAgeSeconds),
    },
  };
}
