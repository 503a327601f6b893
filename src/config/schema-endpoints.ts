// JSON Schema of the scale-out half of a route's `upstream:` (issue 14; part
// of ROUTE_SCHEMA in schema-route.ts): the agent's replicas, how calls are
// balanced over them, active health checks, outlier ejection, the circuit
// breaker and task affinity. Defaults are ENDPOINT_DEFAULTS (upstream.ts);
// descriptions feed docs/configuration.md.
import { MAX_TIMER_MS } from './types.js';
import { ENDPOINT_DEFAULTS } from './upstream.js';

const D = ENDPOINT_DEFAULTS;
const int = (minimum: number, def: number, description: string, maximum?: number) =>
  ({ type: 'integer', minimum, ...(maximum === undefined ? {} : { maximum }), default: def, description }) as const;
const ms = (minimum: number, def: number, description: string) => int(minimum, def, description, MAX_TIMER_MS);

export const ENDPOINTS_SCHEMA = {
  endpoints: {
    type: 'array',
    minItems: 1,
    description: "The agent's replicas (instead of `url`); each speaks the route's binding, or `auto` reads its card.",
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      properties: {
        url: { type: 'string', minLength: 1, description: 'The replica, in the same form as `upstream.url`.' },
        weight: int(
          1,
          1,
          'Share of new calls: under round-robin, and under least-request by weight / (calls in flight + 1).',
          1000,
        ),
        name: {
          type: 'string',
          pattern: '^[A-Za-z0-9._-]+$',
          description: 'Its name in readiness, metrics, logs and errors (default endpoint-<index>; never its URL).',
        },
      },
    },
  },
  sharedTaskStore: {
    type: 'boolean',
    default: false,
    description:
      "The replicas share one task store: a task's calls may go to another replica when its own is down (required for pass-through routes with several endpoints).",
  },
  loadBalancing: {
    enum: ['least-request', 'round-robin'],
    default: 'least-request',
    description: 'How new tasks are spread: fewest calls in flight, or weighted round robin.',
  },
  healthCheck: {
    description:
      'Active checks (a card fetch, or grpc.health.v1): on by default for several endpoints, false turns them off, true turns them on with the defaults below (one endpoint too).',
    oneOf: [
      { enum: [false, true] },
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          intervalMs: ms(100, D.healthCheck.intervalMs, 'Time between two checks of one endpoint.'),
          timeoutMs: ms(1, D.healthCheck.timeoutMs, 'A check not answered in this time failed.'),
          unhealthyThreshold: int(
            1,
            D.healthCheck.unhealthyThreshold,
            'Failed checks in a row that make it unhealthy.',
          ),
          healthyThreshold: int(
            1,
            D.healthCheck.healthyThreshold,
            'Passed checks in a row that make it healthy again.',
          ),
        },
      },
    ],
  },
  outlierDetection: {
    type: 'object',
    additionalProperties: false,
    description: "Passive ejection (Envoy's outlier_detection): failures in a row eject an endpoint for a while.",
    properties: {
      consecutiveFailures: int(1, D.outlierDetection.consecutiveFailures, 'Failed calls in a row that eject it.'),
      baseEjectionMs: ms(1, D.outlierDetection.baseEjectionMs, 'The first ejection; each next one is longer.'),
      maxEjectionMs: ms(1, D.outlierDetection.maxEjectionMs, 'The longest ejection.'),
      maxEjectionPercent: int(
        0,
        D.outlierDetection.maxEjectionPercent,
        'Most endpoints ejected at once (one always may be).',
        100,
      ),
    },
  },
  circuitBreaker: {
    type: 'object',
    additionalProperties: false,
    description: "Per endpoint (Envoy's circuit_breakers): calls in flight, and calls waiting for one of those.",
    properties: {
      maxConnections: int(1, D.circuitBreaker.maxConnections, 'Calls in flight to one endpoint.'),
      maxPending: int(0, D.circuitBreaker.maxPending, 'Calls waiting for a slot; more is UPSTREAM_OVERLOADED.'),
    },
  },
  affinityTtlSeconds: int(
    1,
    D.affinityTtlSeconds,
    "How long a task's or context's endpoint is remembered after its last use.",
  ),
} as const;
