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
// Routes at one prefix differ by tenant, which the pipeline reads only when
// it picks the route: an actual answer's headers come from the route(s) that
// served it, never from another of the prefix; a preflight speaks for every
// route its request could reach (server/cors-routes.ts: the tenant of a REST
// path picks one; a JSON-RPC call names it in its body) and allows only what
// all of them allow.
import type { RouteConfig, RouteCors } from '../config/types.js';

const A2A_METHODS = ['GET', 'POST', 'DELETE'];
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

/** The CORS rules of the routes when every one of them lets this origin in (undefined: one does not, or none given). */
function allowing(routes: readonly RouteConfig[], origin: string): RouteCors[] | undefined {
  const o = origin.toLowerCase();
  const rules = routes.map((r) => r.cors);
  const admits = (c: RouteCors | undefined): c is RouteCors =>
    c !== undefined && c.allowOrigins.some((a) => a === '*' || a.toLowerCase() === o);
  return rules.length > 0 && rules.every(admits) ? (rules as RouteCors[]) : undefined;
}

/** The names on every list (case-insensitive), in the first list's order. */
function shared(lists: ReadonlyArray<readonly string[]>): string[] {
  const [first = [], ...others] = lists;
  return first.filter((h) => others.every((l) => l.some((x) => x.toLowerCase() === h.toLowerCase())));
}

function allowOrigin(rules: readonly RouteCors[], origin: string): Record<string, string> {
  const credentials = rules.every((c) => c.allowCredentials);
  const wildcard = !credentials && rules.every((c) => c.allowOrigins.includes('*'));
  return {
    'access-control-allow-origin': wildcard ? '*' : origin,
    ...(credentials ? { 'access-control-allow-credentials': 'true' } : {}),
    vary: 'Origin',
  };
}

/**
 * Headers for an actual request from `origin`, by the routes that served it (the route the pipeline chose; a
 * JSON-RPC batch's items may have several): none without Origin, without a route, or when one does not allow it.
 */
export function corsHeaders(served: readonly RouteConfig[], origin: string | undefined): Record<string, string> {
  if (!origin) return {};
  const rules = allowing(served, origin);
  if (!rules) return served.some((r) => r.cors) ? { vary: 'Origin' } : {};
  return {
    ...allowOrigin(rules, origin),
    'access-control-expose-headers': [...EXPOSED, ...shared(rules.map((c) => c.exposeHeaders))].join(', '),
  };
}

/** The request headers a route takes from a browser. */
function requestHeaders(route: RouteConfig): string[] {
  const apiKey = route.auth?.apiKey?.location === 'header' ? [route.auth.apiKey.name.toLowerCase()] : [];
  return [
    ...new Set([...A2A_REQUEST_HEADERS, ...route.forwardHeaders, ...apiKey, ...(route.cors?.allowHeaders ?? [])]),
  ];
}

/**
 * The answer to a preflight, by every route its request could reach (`reachable`), or undefined when the request
 * is no preflight that all of them allow: the origin, the method, credentials and headers all of them allow.
 */
export function preflight(
  reachable: readonly RouteConfig[],
  origin: string | undefined,
  requestMethod: string | undefined,
): { status: number; headers: Record<string, string> } | undefined {
  if (!origin || !requestMethod || !A2A_METHODS.includes(requestMethod.toUpperCase())) return undefined;
  const rules = allowing(reachable, origin);
  if (!rules) return undefined;
  return {
    status: 204,
    headers: {
      ...allowOrigin(rules, origin),
      'access-control-allow-methods': A2A_METHODS.join(', '),
      'access-control-allow-headers': shared(reachable.map(requestHeaders)).join(', '),
      'access-control-max-age': String(Math.min(...rules.map((c) => c.maxAgeSeconds))),
    },
  };
}
