// The scale-out half of a route's `upstream:` (issue 14): its endpoints (the
// agent's replicas; `url` is the one-endpoint form), how calls are balanced
// over them, the active health checks, passive outlier ejection and circuit
// breaker per endpoint (Envoy's defaults where it has one), and how long a
// task's endpoint is remembered. Also the shared-state block (`state.redis`).
import type { RawConfig, RawRoute } from './raw.js';
import type { StateConfig, UpstreamConfig } from './types.js';

/** Whether an upstream URL means TLS (https://, grpcs://; schemes are case-insensitive). */
export const impliesTls = (url: string): boolean => /^(https|grpcs):\/\//i.test(url);

export const ENDPOINT_DEFAULTS = {
  healthCheck: { intervalMs: 5_000, timeoutMs: 2_000, unhealthyThreshold: 2, healthyThreshold: 1 },
  outlierDetection: { consecutiveFailures: 5, baseEjectionMs: 30_000, maxEjectionMs: 300_000, maxEjectionPercent: 10 },
  circuitBreaker: { maxConnections: 1024, maxPending: 1024 },
  affinityTtlSeconds: 86_400,
} as const;

export const STATE_DEFAULTS = { keyPrefix: 'a2a-gateway:', rateLimitFailure: 'open', commandTimeoutMs: 1_000 } as const;

type EndpointFields = Pick<
  UpstreamConfig,
  | 'url'
  | 'endpoints'
  | 'sharedTaskStore'
  | 'loadBalancing'
  | 'healthCheck'
  | 'outlierDetection'
  | 'circuitBreaker'
  | 'affinityTtlSeconds'
>;

/** The endpoints and their policies; a route without `endpoints` has one, its `url`. */
export function endpointsFromRaw(u: RawRoute['upstream']): EndpointFields {
  const listed = u.endpoints ?? [{ url: u.url ?? '' }];
  const endpoints = listed.map((e, i) => ({ url: e.url, weight: e.weight ?? 1, name: e.name ?? `endpoint-${i}` }));
  const several = endpoints.length > 1;
  const hc = u.healthCheck;
  return {
    url: endpoints[0]!.url,
    endpoints,
    sharedTaskStore: u.sharedTaskStore ?? false,
    loadBalancing: u.loadBalancing ?? 'least-request',
    healthCheck:
      hc === false || (hc === undefined && !several)
        ? undefined
        : { ...ENDPOINT_DEFAULTS.healthCheck, ...(hc === true ? {} : hc) },
    outlierDetection: { ...ENDPOINT_DEFAULTS.outlierDetection, ...u.outlierDetection },
    circuitBreaker: { ...ENDPOINT_DEFAULTS.circuitBreaker, ...u.circuitBreaker },
    affinityTtlSeconds: u.affinityTtlSeconds ?? ENDPOINT_DEFAULTS.affinityTtlSeconds,
  };
}

export function stateFromRaw(s: RawConfig['state']): StateConfig | undefined {
  if (!s) return undefined;
  return {
    redis: {
      url: s.redis.url,
      keyPrefix: s.redis.keyPrefix ?? STATE_DEFAULTS.keyPrefix,
      rateLimitFailure: s.redis.rateLimitFailure ?? STATE_DEFAULTS.rateLimitFailure,
      commandTimeoutMs: s.redis.commandTimeoutMs ?? STATE_DEFAULTS.commandTimeoutMs,
    },
  };
}
