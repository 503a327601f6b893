// The admin listener (fastify, plain HTTP, `admin:` in the config): the
// operations endpoints `GET /healthz`, `GET /readyz` and `GET /metrics`
// (server/probes.ts) and the admin console (admin/console.ts, with its
// traffic sampler). Loaded only when an admin listener is configured;
// without one the public HTTP listener answers the two probes and /metrics
// is not served at all (it would tell the world the routes and load).
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { addConsole, type ConsoleDeps } from '../admin/console.js';
import { TrafficSampler } from '../admin/traffic.js';
import type { Health } from '../ops/health.js';
import type { Metrics } from '../ops/metrics.js';
import { ListenError, listenAddress } from './listen-error.js';
import { probeAnswer } from './probes.js';

export interface AdminListener {
  port: number;
  /** Stops the console's sampling and try-it clients, then the listener. */
  close(): Promise<void>;
}

/** The admin listener with the probes and the console, listening on host:port (0: a free port). */
export async function startAdminListener(
  at: { host: string; port: number },
  ops: { health: Health; metrics: Metrics; log: Logger; trafficSampleMs?: number | undefined },
  console: Omit<ConsoleDeps, 'traffic'>,
): Promise<AdminListener> {
  const app = buildAdminListener(ops.health, ops.metrics, ops.log);
  const mounted = addConsole(app, {
    ...console,
    traffic: new TrafficSampler(ops.metrics.registry, ops.trafficSampleMs),
  });
  await app.listen({ host: at.host, port: at.port }).catch((e: unknown) => {
    throw new ListenError('admin', listenAddress(at.host, at.port), e);
  });
  const address = app.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : at.port,
    async close() {
      mounted.close();
      await app.close();
    },
  };
}

function buildAdminListener(health: Health, metrics: Metrics, log: Logger): FastifyInstance {
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // probes log their own line, at debug (below)
    logController: new LogController({ disableRequestLogging: true }),
  }) as unknown as FastifyInstance;
  // probes and scrapes: one line each in the access log's shape, at debug (they come every few seconds)
  const onResponse = (
    req: { id: unknown; url: string; socket: { remoteAddress?: string } },
    reply: FastifyReply,
    done: () => void,
  ): void => {
    log.debug(
      {
        requestId: String(req.id),
        client: req.socket.remoteAddress ?? null,
        path: req.url,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 1000) / 1000,
      },
      'probe',
    );
    done();
  };
  for (const path of ['/healthz', '/readyz', '/metrics'])
    app.get(path, { onResponse }, async (_req, reply) => {
      const a = (await probeAnswer(path, health, metrics))!;
      return reply.code(a.status).headers(a.headers).send(a.body);
    });
  return app;
}
