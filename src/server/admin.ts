// The operations endpoints: `GET /healthz` (alive), `GET /readyz` (200 or 503
// with the routes that are not ready, as JSON) and `GET /metrics`
// (Prometheus text). All three on the admin listener when `admin:` is
// configured; without it the probes share the public HTTP listener and
// /metrics is not served at all (it would tell the world the routes and load).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Health } from '../ops/health.js';
import type { Metrics } from '../ops/metrics.js';

export function addAdminRoutes(app: FastifyInstance, health: Health, metrics: Metrics | undefined, log: Logger): void {
  // probes and scrapes: one line each in the access log's shape, at debug (they come every few seconds)
  const onResponse = (req: FastifyRequest, reply: FastifyReply, done: () => void): void => {
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
  app.get('/healthz', { onResponse }, async (_req, reply) =>
    reply.code(200).header('content-type', 'application/json').send('{"status":"ok"}'),
  );
  app.get('/readyz', { onResponse }, async (_req, reply) => {
    const r = await health.readiness();
    return reply
      .code(r.ready ? 200 : 503)
      .header('content-type', 'application/json')
      .send(JSON.stringify(r));
  });
  if (metrics)
    app.get('/metrics', { onResponse }, async (_req, reply) =>
      reply.header('content-type', metrics.registry.contentType).send(await metrics.text()),
    );
}
