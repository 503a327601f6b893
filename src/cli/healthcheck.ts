// The image's HEALTHCHECK: GET the liveness endpoint (default
// http://127.0.0.1:8080/healthz; A2A_GATEWAY_HEALTH_URL overrides, e.g. the
// admin port) and exit 0 when it answers 200.
const url = process.env.A2A_GATEWAY_HEALTH_URL ?? 'http://127.0.0.1:8080/healthz';
fetch(url, { signal: AbortSignal.timeout(2500) }).then(
  (r) => process.exit(r.ok ? 0 : 1),
  () => process.exit(1),
);
