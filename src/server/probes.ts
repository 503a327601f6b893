// The operations endpoints' answers, whichever listener serves them:
// `GET /healthz` (alive), `GET /readyz` (200 or 503 with the routes that are
// not ready, as JSON) and `GET /metrics` (Prometheus text, only where a
// Metrics is given: the admin listener). The public HTTP listener answers
// the first two itself when no admin listener is configured (server/http.ts);
// the admin listener serves all three (server/admin.ts).
import type { HttpAnswer } from '../http/request.js';
import type { Health } from '../ops/health.js';
import type { Metrics } from '../ops/metrics.js';

const JSON_TYPE = { 'content-type': 'application/json' };

/** The probe at `path`, or undefined when the path is none. */
export function probeAnswer(path: string, health: Health, metrics?: Metrics): Promise<HttpAnswer> | undefined {
  if (path === '/healthz') return Promise.resolve({ status: 200, headers: JSON_TYPE, body: '{"status":"ok"}' });
  if (path === '/readyz')
    return health
      .readiness()
      .then((r) => ({ status: r.ready ? 200 : 503, headers: JSON_TYPE, body: JSON.stringify(r) }));
  if (metrics && path === '/metrics')
    return metrics
      .text()
      .then((text) => ({ status: 200, headers: { 'content-type': metrics.registry.contentType }, body: text }));
  return undefined;
}
