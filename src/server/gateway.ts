// Composes a running gateway from a parsed GatewayConfig: the route table (a
// config generation with its upstream connections), the cards, the request
// pipeline, the
// HTTP listener (JSON-RPC, REST, cards), the gRPC listener (A2AService,
// grpc.health.v1, reflection), the operations endpoints (on the public port or
// a separate admin listener, with the admin console), the routes' endpoints
// with their health checks and the state shared with other replicas (Redis,
// when configured), and the two lifecycle operations: reload (swap the routes
// atomically) and drain (stop accepting, finish unary calls, end streams
// after the grace period).
import '../util/base64.js'; // before @bufbuild/protobuf loads
import * as grpc from '@grpc/grpc-js';
import { pino, type Logger } from 'pino';
import { GrpcInbound } from '../bindings/grpc/inbound.js';
import { GrpcUpstream } from '../bindings/grpc/outbound.js';
import { GRPC_V03 } from '../bindings/grpc/outbound-v0_3.js';
import { JSONRPC_V03 } from '../bindings/jsonrpc/outbound-v0_3.js';
import { REST_V03 } from '../bindings/rest/outbound-v0_3.js';
import { JsonRpcUpstream } from '../bindings/jsonrpc/outbound.js';
import { RestUpstream } from '../bindings/rest/outbound.js';
import { CardService } from '../card/card-service.js';
import { CardStore } from '../card/card-store.js';
import { trustList } from '../card/public-address.js';
import { limitsOf, type GatewayConfig } from '../config/types.js';
import { loopbackHost } from '../util/loopback.js';
import { EndpointHealth } from '../admin/endpoint-health.js';
import { RecentErrors } from '../admin/recent-errors.js';
import type { AdminListener } from './admin.js';
import { addReflection } from './grpc-reflection.js';
import { AccessLog } from '../ops/access-log.js';
import { ConfigState } from '../ops/config-state.js';
import { Health } from '../ops/health.js';
import { EndpointMetrics } from '../ops/endpoint-metrics.js';
import type { SharedState } from '../state/redis.js';
import { Affinity } from '../upstream/affinity.js';
import { Endpoints, type EndpointReport } from '../upstream/endpoints.js';
import { HealthChecker } from '../upstream/health-check.js';
import { Metrics } from '../ops/metrics.js';
import type { Tracing } from '../ops/tracing.js';
import { Pipeline } from '../pipeline/pipeline.js';
import { RouteTable } from '../routing/generation.js';
import { UpstreamBudgets, UpstreamRegistry, type ClientFactories } from '../upstream/registry.js';
import { ListenerCertificates } from '../tls/listener-certificates.js';
import { trackConnections } from './connections.js';
import { bindGrpc, createGrpcServer } from './grpc-listener.js';
import { listenAddress as hostPort } from './listen-error.js';
import { buildHttpServer } from './http.js';

/**
 * Defence in depth for logged requests: their credential headers never reach
 * the output. Exact paths only — a wildcard path makes pino walk every logged
 * object, on every line; the call log line carries no header, and its error
 * text is redacted where secrets can be (pipeline stage `observe`).
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
];

export interface RunningGateway {
  httpPort: number;
  grpcPort: number;
  /** e.g. "http://127.0.0.1:8080" */
  httpUrl: string;
  /** e.g. "127.0.0.1:50051" */
  grpcAddress: string;
  /** The admin listener's URL when one is configured. */
  adminUrl: string | undefined;
  metrics: Metrics;
  /** The config file's hash and last reload outcome (the CLI's config watcher records them; the console shows them). */
  configState: ConfigState;
  /** Read-only: each route with several endpoints, and their status (for readiness and an admin console). */
  endpointStates(): Array<{ route: string; endpoints: EndpointReport[] }>;
  /** Validated config in: new calls take the new routes; calls in flight finish on the old. */
  reload(config: GatewayConfig): void;
  /** Stop accepting, let unary calls finish, end streams after `graceMs`, then close. */
  drain(graceMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Each binding's upstream client per A2A version (0.3 through the bridge), on the generation's pools and channels. */
const UPSTREAM_CLIENTS: ClientFactories = {
  JSONRPC: { '1.0': (t, u) => new JsonRpcUpstream(t, u), '0.3': (t, u) => new JsonRpcUpstream(t, u, JSONRPC_V03) },
  'HTTP+JSON': { '1.0': (t, u) => new RestUpstream(t, u), '0.3': (t, u) => new RestUpstream(t, u, REST_V03) },
  GRPC: { '1.0': (t, u) => new GrpcUpstream(t, u), '0.3': (t, u) => new GrpcUpstream(t, u, GRPC_V03) },
};

export interface GatewayOptions {
  /** How often the admin console samples the metrics for its traffic charts (default 5 s). */
  trafficSampleMs?: number;
  /** Where the one line per call goes (default: the gateway's logger); the CLI's buffers its writes. */
  accessLog?: Logger;
}

export async function startGateway(
  config: GatewayConfig,
  logger?: Logger,
  options: GatewayOptions = {},
): Promise<RunningGateway> {
  const log = logger ?? pino({ level: config.logLevel, redact: REDACT_PATHS });
  const certificates = config.tls ? new ListenerCertificates(config.tls, log) : undefined;
  const budgets = new UpstreamBudgets();
  const table = new RouteTable(config, (c) => new UpstreamRegistry(UPSTREAM_CLIENTS, limitsOf(c), budgets));
  // process metrics only where /metrics is served
  const metrics = new Metrics({ processMetrics: config.admin !== undefined });
  const ports: { http: number; grpc: number; admin?: number } = { http: config.httpPort, grpc: config.grpcPort };
  // ioredis is loaded only when Redis is configured
  const shared: SharedState | undefined = config.state
    ? new (await import('../state/redis.js')).SharedState(config.state.redis, log)
    : undefined;
  // a gateway starts serving with Redis away too (process-local state meanwhile)
  if (shared && !(await shared.connected())) log.warn('redis not reachable at start; serving with process-local state');
  const endpoints = new Endpoints(log, new EndpointMetrics(metrics.registry));
  const affinity = new Affinity(shared, log);
  const checker = new HealthChecker(endpoints, log);
  const store = new CardStore(log, metrics, shared);
  const cards = new CardService(
    store,
    () => ({
      publicHttpUrl: table.config.publicHttpUrl,
      publicGrpcAddress: table.config.publicGrpcAddress,
      httpPort: ports.http,
      grpcPort: ports.grpc,
      tls: certificates !== undefined,
      listenHost: config.host,
      adminPort: ports.admin,
    }),
    trustList(config.trustedProxies),
    log,
  );
  // the OpenTelemetry API and SDK are loaded only when tracing is configured
  const tracer: Tracing | undefined = config.tracing
    ? await (await import('../ops/tracing.js')).Tracing.create(config.tracing)
    : undefined;
  // the admin console's last errors and endpoint health read the access log's lines (and the endpoints' checks)
  const recentErrors = new RecentErrors();
  const endpointHealth = new EndpointHealth(
    (r) => store.status(r),
    config.routes,
    (r) => endpoints.report(r),
  );
  const tap = config.admin
    ? (line: Parameters<RecentErrors['record']>[0]) => {
        recentErrors.record(line);
        endpointHealth.record(line);
      }
    : undefined;
  const access = new AccessLog(options.accessLog ?? log, tap);
  const pipeline = new Pipeline({ cards, log, access, metrics, tracer, endpoints, affinity, shared });
  const configState = new ConfigState();

  const health = new Health(table, cards, endpoints);
  void store.start(config.routes).then(() => health.update());

  const grpcInbound = new GrpcInbound(pipeline, table);
  const grpcServer = createGrpcServer(config, grpcInbound);
  for (const { definition, handlers } of grpcInbound.services()) grpcServer.addService(definition, handlers);
  health.addTo(grpcServer);
  if (config.grpcReflection) addReflection(grpcServer, log);
  ports.grpc = await bindGrpc(
    grpcServer,
    hostPort(config.host, config.grpcPort),
    certificates?.grpcCredentials() ?? grpc.ServerCredentials.createInsecure(),
    log,
    certificates ? (h2) => certificates.track(h2, 'grpc') : undefined,
  );

  // without an admin listener the public one answers the probes; /metrics only on an admin listener
  const app = buildHttpServer({
    table,
    pipeline,
    cards,
    logger: log,
    tls: certificates,
    probes: config.admin ? undefined : health,
  });
  const connections = trackConnections(app.server);
  ports.http = await app.listen(config.host, config.httpPort);
  // fastify and the console (pages, assets, try-it clients) are loaded only for an admin listener
  const tls = certificates !== undefined;
  let admin: AdminListener | undefined;
  if (config.admin) {
    const { startAdminListener } = await import('./admin.js');
    admin = await startAdminListener(
      config.admin,
      { health, metrics, log, trafficSampleMs: options.trafficSampleMs },
      {
        config: () => table.config,
        cards,
        endpoints: endpointHealth,
        errors: recentErrors,
        configState,
        listeners: () => ({
          httpUrl: `${tls ? 'https' : 'http'}://${hostPort(loopbackHost(config.host), ports.http)}`,
          grpcAddress: hostPort(loopbackHost(config.host), ports.grpc),
          tls,
        }),
      },
    );
  }
  const adminPort = admin?.port;
  ports.admin = adminPort;
  health.start();
  checker.watch(config.routes);
  log.info(
    {
      http: hostPort(config.host, ports.http),
      grpc: hostPort(config.host, ports.grpc),
      admin: adminPort,
      routes: config.routes.map((r) => r.name),
    },
    'a2a-gateway listening',
  );

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      health.stop();
      checker.close();
      pipeline.endStreams();
      connections.closeAll();
      await app.close();
      await admin?.close();
      grpcServer.forceShutdown();
      store.close();
      await table.close();
      await tracer?.close();
      shared?.close();
    })();
    return closed;
  };

  return {
    httpPort: ports.http,
    grpcPort: ports.grpc,
    httpUrl: `${certificates ? 'https' : 'http'}://${hostPort(config.host, ports.http)}`,
    grpcAddress: hostPort(config.host, ports.grpc),
    adminUrl: adminPort !== undefined && config.admin ? `http://${hostPort(config.admin.host, adminPort)}` : undefined,
    metrics,
    configState,
    endpointStates: () =>
      table.config.routes
        .filter((r) => r.upstream.endpoints.length > 1)
        .map((r) => ({ route: r.name, endpoints: endpoints.report(r) })),
    reload(next: GatewayConfig) {
      // Certificates and client-certificate settings are re-read on every reload (renewed files keep their paths; a
      // file that cannot be used keeps the old ones, the rest of the reload applies); turning TLS on or off needs a restart.
      if (certificates && next.tls) certificates.reload(next.tls);
      else if (Boolean(next.tls) !== Boolean(config.tls))
        log.warn('listen.tls was added or removed: that takes a restart; the listeners keep their current mode');
      if (JSON.stringify(next.state) !== JSON.stringify(config.state))
        log.warn('state.redis changed: that takes a restart; the gateway keeps its current shared state');
      for (const key of ['trustedProxies', 'tracing'] as const) {
        if (JSON.stringify(next[key]) !== JSON.stringify(config[key]))
          log.warn(`${key} changed: that takes a restart; the gateway keeps the current one`);
      }
      table.swap(next);
      endpoints.retain(next.routes);
      checker.watch(next.routes);
      store.retain(next.routes);
      endpointHealth.retain(next.routes);
      cards.reset();
      void store.start(next.routes).then(() => health.update());
      void health.update();
      log.info({ routes: next.routes.map((r) => r.name) }, 'configuration reloaded');
    },
    async drain(graceMs: number) {
      // readiness fails first; no new connections; calls in flight, unary and streams, get the grace period
      health.draining = true;
      await health.update();
      log.info(
        { graceMs, activeCalls: pipeline.activeCalls, openStreams: pipeline.activeStreams },
        'draining: no new calls; calls in flight may finish within the grace period',
      );
      const httpClosed = app.close();
      connections.closeIdle();
      const grpcClosed = new Promise<void>((resolve) => grpcServer.tryShutdown(() => resolve()));
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
      const finished = await Promise.race([pipeline.whenIdle().then(() => true), graceOver]);
      clearTimeout(timer);
      if (!finished) {
        log.warn({ activeCalls: pipeline.activeCalls }, 'grace period over: open streams end with SHUTTING_DOWN');
        pipeline.endStreams();
        // the streams' SHUTTING_DOWN errors are written before the connections go
        await Promise.race([pipeline.whenIdle(), new Promise((r) => setTimeout(r, 1000).unref())]);
      }
      log.info({ activeCalls: pipeline.activeCalls }, 'drained: closing the listeners');
      await Promise.race([Promise.all([httpClosed, grpcClosed]), new Promise((r) => setTimeout(r, 1000).unref())]);
      await close();
    },
    close,
  };
}
