// The admin console (issue 16), on the admin listener only (same address and
// access rules as /metrics; never on the public port): the pages under
// /admin/, their script and stylesheet, and the JSON API behind them, which
// scripts can use too — GET /admin/api/routes, /traffic, /errors, /config and
// POST /admin/api/try (Server-Sent Events). Every answer carries a strict
// Content-Security-Policy; the try-it endpoint takes JSON only and refuses
// another origin, so a page elsewhere cannot make the gateway send calls;
// a Host that is not an IP address, localhost, admin.host or in
// admin.allowedHosts is refused (DNS rebinding).
import { isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CardService } from '../card/card-service.js';
import { BINDINGS, type Binding, type GatewayConfig } from '../config/types.js';
import type { ConfigState } from '../ops/config-state.js';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.js';
import { maskedConfig, withoutSecrets } from './config-view.js';
import type { EndpointHealth } from './endpoint-health.js';
import { CONSOLE_CSP } from './html.js';
import { configPage, routesPage, trafficPage, tryPage } from './pages.js';
import type { RecentErrors } from './recent-errors.js';
import { callerBindings, routeView } from './route-view.js';
import type { TrafficSampler } from './traffic.js';
import { TryClients, tryCall, type Listeners } from './try-call.js';

export interface ConsoleDeps {
  config: () => GatewayConfig;
  cards: CardService;
  endpoints: EndpointHealth;
  errors: RecentErrors;
  traffic: TrafficSampler;
  configState: ConfigState;
  listeners: () => Listeners;
}

const MAX_HEADERS = 16;

function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store');
}

function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return secure(reply)
    .code(status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(body));
}

/**
 * Headers "try it" sets itself, connection-specific ones (node:http2 throws on them, after RFC 9113 §8.2.2) and
 * `expect` (undici throws on it).
 */
const FIXED_HEADERS = [
  'host',
  'content-type',
  'content-length',
  'connection',
  'transfer-encoding',
  'te',
  'keep-alive',
  'upgrade',
  'proxy-connection',
  'http2-settings',
  'expect',
];

/**
 * Why an operator's header cannot go as gRPC metadata (the gRPC over HTTP2 spec), or undefined. Each of these was
 * sent without the header, or replaced the call's own, rather than refused.
 */
function grpcMetadataRefusal(name: string, value: string): string | undefined {
  if (name.startsWith('grpc-')) return 'grpc- names are gRPC’s own';
  // (a -bin value is base64 of bytes: the console types text)
  if (name.endsWith('-bin')) return 'binary metadata cannot be set here';
  // printable ASCII; node:http2 drops a value that starts or ends with a space (RFC 9113 §8.2.1)
  if (!/^[\x20-\x7e]*$/.test(value)) return 'gRPC metadata values are printable ASCII';
  if (value.startsWith(' ') || value.endsWith(' ')) return 'a value cannot start or end with a space';
  return undefined;
}

/** The try-it request's body, checked; a string says what is wrong. */
function parseTry(
  body: unknown,
  config: GatewayConfig,
):
  | {
      route: GatewayConfig['routes'][number];
      binding: Binding;
      stream: boolean;
      text: string;
      headers: Record<string, string>;
    }
  | string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'expected a JSON object';
  const b = body as Record<string, unknown>;
  const route = config.routes.find((r) => r.name === b.route);
  if (!route) return `no route named ${JSON.stringify(b.route)}`;
  if (typeof b.binding !== 'string' || !BINDINGS.includes(b.binding as Binding))
    return `binding must be one of ${BINDINGS.join(', ')}`;
  const binding = b.binding as Binding;
  if (!callerBindings(route).includes(binding)) return `route ${route.name} does not serve ${binding} callers`;
  if (b.stream !== undefined && typeof b.stream !== 'boolean') return 'stream must be true or false';
  if (typeof b.text !== 'string' || b.text.length === 0 || b.text.length > 4096)
    return 'text must be 1 to 4096 characters';
  const headers: Record<string, string> = {};
  if (b.headers !== undefined) {
    if (!b.headers || typeof b.headers !== 'object' || Array.isArray(b.headers)) return 'headers must be an object';
    const entries = Object.entries(b.headers);
    if (entries.length > MAX_HEADERS) return `at most ${MAX_HEADERS} headers`;
    for (const [k, v] of entries) {
      const name = k.toLowerCase();
      // (the characters both an HTTP field name and a gRPC metadata key may have)
      if (!/^[a-z0-9_.-]{1,64}$/.test(name) || FIXED_HEADERS.includes(name))
        return `header ${JSON.stringify(k)} cannot be set`;
      if (typeof v !== 'string' || v.length > 4096 || /[\r\n\0]/.test(v))
        return `header ${JSON.stringify(k)}: bad value`;
      if (binding === 'GRPC') {
        const refused = grpcMetadataRefusal(name, v);
        if (refused) return `header ${JSON.stringify(k)}: ${refused}`;
      }
      headers[name] = v;
    }
  }
  return { route, binding, stream: b.stream === true, text: b.text, headers };
}

/** A request from a page of another origin (a browser says so in Origin). */
function crossOrigin(req: FastifyRequest): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== req.headers.host;
  } catch {
    return true;
  }
}

/**
 * Whether the console answers a request naming this Host: an IP address, localhost, the admin listener's host or a
 * name in admin.allowedHosts. Any other name is a page whose DNS name was pointed at the listener (DNS rebinding):
 * its script would otherwise read the console's answers as same-origin.
 */
function hostAllowed(host: string | undefined, admin: GatewayConfig['admin']): boolean {
  let name: string;
  try {
    name = new URL(`http://${host ?? ''}`).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (isIP(name) || name === 'localhost' || name.endsWith('.localhost')) return true;
  return name === admin?.host.toLowerCase() || (admin?.allowedHosts ?? []).includes(name);
}

/** Mounts the console on the admin listener and starts sampling traffic; `close` stops both. */
export function addConsole(app: FastifyInstance, d: ConsoleDeps): { close(): void } {
  app.addHook('onRequest', async (req, reply) => {
    if (!req.url.startsWith('/admin') || hostAllowed(req.headers.host, d.config().admin)) return;
    await secure(reply)
      .code(403)
      .header('content-type', 'text/plain; charset=utf-8')
      .send('this host name is not one the admin console answers (admin.allowedHosts)\n');
    return reply;
  });
  // what fastify answers itself under /admin (a 404, a body it cannot parse) is the console's too: its security headers
  // and its {"error": …} form
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.url.startsWith('/admin') && !reply.hasHeader('content-security-policy')) secure(reply);
    return payload;
  });
  // (a 404 handler of the /admin prefix only: the admin listener's other paths keep fastify's own)
  void app.register(
    async (scope) =>
      scope.setNotFoundHandler((req, reply) =>
        sendJson(reply, 404, { error: `no console page or API at ${req.method} ${req.url.split('?')[0]}` }),
      ),
    { prefix: '/admin' },
  );
  app.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    if (!req.url.startsWith('/admin')) return reply.send(err); // fastify's own answer
    const status = err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    // logged as fastify's own handler would have (the answer says nothing of a server error)
    if (status >= 500) req.log.error({ err }, 'admin console request failed');
    else req.log.info({ err }, 'admin console request refused');
    return sendJson(reply, status, { error: status < 500 ? err.message : 'internal error' });
  });
  const clients = new TryClients();
  d.traffic.start();
  const listenerHost = (): string => new URL(d.listeners().httpUrl).host;
  const views = () => Promise.all(d.config().routes.map((r) => routeView(r, d.cards, d.endpoints, listenerHost())));
  const page = (reply: FastifyReply, body: string) =>
    secure(reply).header('content-type', 'text/html; charset=utf-8').send(body);
  const asset = (type: string, text: string) => (_req: FastifyRequest, reply: FastifyReply) =>
    secure(reply).header('content-type', type).header('cache-control', 'no-cache').send(text);

  app.get('/admin', (_req, reply) => secure(reply).redirect('/admin/routes'));
  app.get('/admin/', (_req, reply) => secure(reply).redirect('/admin/routes'));
  app.get('/admin/assets/console.js', asset('text/javascript; charset=utf-8', CONSOLE_JS));
  app.get('/admin/assets/console.css', asset('text/css; charset=utf-8', CONSOLE_CSS));
  app.get('/admin/routes', async (_req, reply) => page(reply, routesPage(await views())));
  app.get('/admin/traffic', async (_req, reply) =>
    page(reply, trafficPage(d.errors.list(), d.traffic.intervalMs / 1000)),
  );
  app.get('/admin/try', async (_req, reply) => page(reply, tryPage(await views())));
  app.get('/admin/config', async (_req, reply) => {
    const config = d.config();
    return page(
      reply,
      configPage(
        d.configState.status((t) => withoutSecrets(t, config)),
        config.source,
        maskedConfig(config),
      ),
    );
  });

  app.get('/admin/api/routes', async (_req, reply) => sendJson(reply, 200, { routes: await views() }));
  app.get('/admin/api/errors', async (_req, reply) => sendJson(reply, 200, { errors: d.errors.list() }));
  app.get('/admin/api/traffic', async (_req, reply) => {
    const view = await d.traffic.view();
    // every configured route is listed, with or without traffic; calls that matched none are "-"
    const seen = new Set(view.routes.map((r) => r.key));
    for (const r of d.config().routes)
      if (!seen.has(r.name))
        view.routes.push({ key: r.name, totals: { calls: 0, errors: 0, meanLatencyMs: null }, points: [] });
    view.routes.sort((a, b) => a.key.localeCompare(b.key));
    return sendJson(reply, 200, view);
  });
  app.get('/admin/api/config', async (_req, reply) => {
    const config = d.config();
    const state = d.configState.status((t) => withoutSecrets(t, config));
    return sendJson(reply, 200, {
      source: config.source,
      hash: state.hash ?? null,
      loadedAt: state.loadedAt,
      lastReload: state.lastReload ?? null,
      config: maskedConfig(config),
    });
  });

  app.post('/admin/api/try', async (req, reply) => {
    if (crossOrigin(req)) return sendJson(reply, 403, { error: 'the console API answers its own pages only' });
    // JSON only: a form or a simple request from another page cannot send it without a CORS preflight
    if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
      return sendJson(reply, 415, { error: 'send application/json' });
    const parsed = parseTry(req.body, d.config());
    if (typeof parsed === 'string') return sendJson(reply, 400, { error: parsed });
    const abort = new AbortController();
    reply.raw.on('close', () => abort.abort());
    secure(reply).hijack();
    reply.raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'x-accel-buffering': 'no',
    });
    for await (const e of tryCall(parsed, d.listeners(), clients, abort.signal)) {
      if (abort.signal.aborted) break;
      reply.raw.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    }
    reply.raw.end();
  });
  return {
    close() {
      d.traffic.stop();
      clients.close();
    },
  };
}
