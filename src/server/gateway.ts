// Composes a running gateway from a parsed GatewayConfig: the router, the
// dispatcher with one upstream client per route (by the upstream's binding),
// the HTTP listener (JSON-RPC, REST, cards) and the gRPC listener.
import * as grpc from '@grpc/grpc-js';
import { pino, type Logger } from 'pino';
import { GrpcInbound } from '../bindings/grpc/inbound.js';
import { GrpcUpstream } from '../bindings/grpc/outbound.js';
import { JsonRpcUpstream } from '../bindings/jsonrpc/outbound.js';
import { RestUpstream } from '../bindings/rest/outbound.js';
import type { Binding, GatewayConfig } from '../config/types.js';
import { Dispatcher } from '../core/dispatcher.js';
import type { UpstreamClient, UpstreamTarget } from '../core/upstream.js';
import { Router } from '../routing/router.js';
import { CardService } from '../card/card-service.js';
import { CardStore } from '../card/card-store.js';
import { trustList } from '../card/public-address.js';
import { buildHttpServer } from './http.js';

export interface RunningGateway {
  httpPort: number;
  grpcPort: number;
  /** e.g. "http://127.0.0.1:8080" */
  httpUrl: string;
  /** e.g. "127.0.0.1:50051" */
  grpcAddress: string;
  close(): Promise<void>;
}

const UPSTREAM_CLIENTS: Record<Binding, (t: UpstreamTarget) => UpstreamClient> = {
  JSONRPC: (t) => new JsonRpcUpstream(t),
  'HTTP+JSON': (t) => new RestUpstream(t),
  GRPC: (t) => new GrpcUpstream(t),
};

function bindGrpc(server: grpc.Server, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port)));
  });
}

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export async function startGateway(config: GatewayConfig, logger?: Logger): Promise<RunningGateway> {
  const log = logger ?? pino({ level: config.logLevel, redact: ['req.headers.authorization', '*.authorization'] });
  const router = new Router(config.routes);
  let grpcPort = config.grpcPort;
  let httpPort = config.httpPort;
  const store = new CardStore(log);
  const cards = new CardService(store, () => ({ publicHttpUrl: config.publicHttpUrl, publicGrpcAddress: config.publicGrpcAddress, httpPort, grpcPort }), trustList(config.trustedProxies), log);
  const dispatcher = new Dispatcher((binding, target) => UPSTREAM_CLIENTS[binding](target), cards, log);
  void store.start(config.routes);

  const grpcServer = new grpc.Server({
    'grpc.max_receive_message_length': Math.max(...config.routes.map((r) => r.maxBodyBytes)),
    // Ping idle callers so dead peers of long streams are noticed (§10.7).
    'grpc.keepalive_time_ms': 120_000,
    'grpc.keepalive_timeout_ms': 20_000,
  });
  const { definition, handlers } = new GrpcInbound(dispatcher, router).service();
  grpcServer.addService(definition, handlers);
  grpcPort = await bindGrpc(grpcServer, hostPort(config.host, config.grpcPort));

  const app = buildHttpServer({ router, dispatcher, logger: log });
  await app.listen({ host: config.host, port: config.httpPort });
  const address = app.server.address();
  httpPort = typeof address === 'object' && address ? address.port : config.httpPort;
  log.info({ http: hostPort(config.host, httpPort), grpc: hostPort(config.host, grpcPort), routes: config.routes.map((r) => r.name) }, 'a2a-gateway listening');

  return {
    httpPort,
    grpcPort,
    httpUrl: `http://${hostPort(config.host, httpPort)}`,
    grpcAddress: hostPort(config.host, grpcPort),
    async close() {
      await app.close();
      await new Promise<void>((resolve) => grpcServer.tryShutdown(() => resolve()));
      store.close();
      await dispatcher.close();
    },
  };
}
