// JSON Schema of the YAML config file, the one the loader validates with (ajv,
// at start and on reload). Its `description` and `default` annotations are the
// configuration reference: docs/configuration.md and the published
// schema/a2a-gateway.schema.json are generated from this (`npm run docs`).
// Defaults come from types.ts, which load.ts applies. The route is in
// schema-route.ts. Keep in step with raw.ts, types.ts and load.ts.
import { ROUTE_SCHEMA } from './schema-route.js';
import { DEFAULT_LIMITS, DEFAULTS, MAX_TIMER_MS } from './types.js';
import { STATE_DEFAULTS } from './upstream.js';

const port = { type: 'integer', minimum: 0, maximum: 65535 } as const;

export const CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['routes'],
  properties: {
    listen: {
      type: 'object',
      additionalProperties: false,
      description: 'Where the gateway listens. Changes take effect on restart.',
      properties: {
        host: {
          type: 'string',
          minLength: 1,
          default: DEFAULTS.host,
          description: 'Address of both listeners (0.0.0.0 or :: for every interface).',
        },
        httpPort: {
          ...port,
          default: DEFAULTS.httpPort,
          description: 'HTTP port: JSON-RPC, REST and agent cards (0 = a free port).',
        },
        grpcPort: { ...port, default: DEFAULTS.grpcPort, description: 'gRPC port (0 = a free port).' },
        tls: {
          type: 'object',
          additionalProperties: false,
          required: ['cert', 'key'],
          description:
            'TLS on both listeners: HTTPS with h2 and HTTP/1.1, gRPC over TLS. The files and the client-certificate settings are re-read on reload (for new connections); turning TLS on or off needs a restart.',
          properties: {
            cert: { type: 'string', minLength: 1, description: 'Certificate chain (PEM file).' },
            key: { type: 'string', minLength: 1, description: 'Private key (PEM file).' },
            clientCa: {
              type: 'string',
              minLength: 1,
              description:
                'CA bundle (PEM file, at least one certificate) for client certificates: asks callers for one (mTLS). Without it no client certificate is asked for.',
            },
            requireClientCert: {
              type: 'boolean',
              description:
                'Refuse the handshake without a valid client certificate (needs clientCa). Default: true when clientCa is set.',
            },
          },
        },
      },
    },
    public: {
      type: 'object',
      additionalProperties: false,
      description: 'Addresses written into served cards; without them, taken from the request.',
      properties: {
        httpUrl: {
          type: 'string',
          pattern: '^https?://',
          description: "Public base URL of the HTTP listener; each route's path prefix is appended.",
        },
        grpcAddress: {
          type: 'string',
          minLength: 1,
          description: 'Public host:port of the gRPC listener. Default: <request host>:<grpcPort>.',
        },
      },
    },
    trustedProxies: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      default: [],
      description:
        'Peer IP addresses or CIDRs (no host names) whose X-Forwarded-* and Forwarded headers are believed when building card URLs.',
    },
    admin: {
      type: 'object',
      additionalProperties: false,
      required: ['port'],
      description:
        'A separate plain-HTTP listener for /healthz, /readyz and /metrics; without it /metrics is not served.',
      properties: {
        host: { type: 'string', minLength: 1, description: 'Address of the admin listener. Default: listen.host.' },
        port: { ...port, description: 'Port of the admin listener.' },
        allowedHosts: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          default: [],
          description:
            'Host names the admin console answers besides IP addresses, localhost and admin.host (against DNS rebinding: a page on another name that resolves to the listener is refused).',
        },
      },
    },
    grpcReflection: { type: 'boolean', default: true, description: 'gRPC server reflection on the gRPC port.' },
    tracing: {
      type: 'object',
      additionalProperties: false,
      required: ['otlpEndpoint'],
      description: 'OpenTelemetry span export (one SERVER span per call). Without it no span is made.',
      properties: {
        otlpEndpoint: {
          type: 'string',
          pattern: '^https?://',
          description: 'OTLP collector base URL; spans go to {otlpEndpoint}/v1/traces over HTTP.',
        },
        protocol: { enum: ['http/json', 'http/protobuf', 'grpc'], default: 'http/json', description: 'OTLP wire.' },
        headers: {
          type: 'object',
          additionalProperties: { type: 'string' },
          default: {},
          description: "Headers sent with every export (e.g. the tracing backend's API key).",
        },
        serviceName: { type: 'string', minLength: 1, default: 'a2a-gateway', description: 'service.name of spans.' },
        sampleRatio: {
          type: 'number',
          minimum: 0,
          maximum: 1,
          default: 1,
          description: "Share of new traces sampled; a caller's own sampling decision is always kept.",
        },
        flushIntervalMs: {
          type: 'integer',
          minimum: 10,
          maximum: MAX_TIMER_MS,
          default: 1000,
          description: 'How often batched spans are exported.',
        },
      },
    },
    shutdownGraceMs: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_TIMER_MS,
      default: DEFAULTS.shutdownGraceMs,
      description: 'How long open streams may run on after SIGTERM before they end with SHUTTING_DOWN.',
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      description: 'Gateway-wide limits (docs/security.md says what each refusal looks like).',
      properties: {
        maxBatchItems: {
          type: 'integer',
          minimum: 1,
          default: DEFAULT_LIMITS.maxBatchItems,
          description: 'Requests in one JSON-RPC batch; more is PAYLOAD_TOO_LARGE for the whole batch.',
        },
        batchConcurrency: {
          type: 'integer',
          minimum: 1,
          default: DEFAULT_LIMITS.batchConcurrency,
          description: 'Requests of one batch sent upstream at once.',
        },
        upstreamConnections: {
          type: 'integer',
          minimum: 1,
          default: DEFAULT_LIMITS.upstreamConnections,
          description: 'Unary calls in flight per upstream origin; beyond it UPSTREAM_OVERLOADED at once, not queued.',
        },
        upstreamStreams: {
          type: 'integer',
          minimum: 1,
          default: DEFAULT_LIMITS.upstreamStreams,
          description: 'Open streams per upstream origin, on connections of their own; beyond it UPSTREAM_OVERLOADED.',
        },
        bodyTimeoutMs: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_TIMER_MS,
          default: DEFAULT_LIMITS.bodyTimeoutMs,
          description:
            'Longest pause while a request body is read: 408 REQUEST_TIMEOUT, connection closed. gRPC: the request message must arrive whole within it (REQUEST_TIMEOUT, the stream reset).',
        },
        headersTimeoutMs: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_TIMER_MS,
          default: DEFAULT_LIMITS.headersTimeoutMs,
          description: "Time to receive a request's headers: 408, connection closed.",
        },
        idleTimeoutMs: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_TIMER_MS,
          default: DEFAULT_LIMITS.idleTimeoutMs,
          description:
            'Idle HTTP keep-alive connections, HTTP/2 sessions and gRPC connections (one without its preface too) are closed after this.',
        },
        grpcStreamsPerConnection: {
          type: 'integer',
          minimum: 1,
          maximum: 2_147_483_647,
          default: DEFAULT_LIMITS.grpcStreamsPerConnection,
          description:
            'Calls open at once on one gRPC connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS); a caller with more waits for one to end. Default: no cap, as Envoy (clients hold many streams on one channel); an edge may set 100.',
        },
      },
    },
    state: {
      type: 'object',
      additionalProperties: false,
      required: ['redis'],
      description:
        'State shared by gateway replicas (task affinity, global rate limits, last good cards); absent = this process only.',
      properties: {
        redis: {
          type: 'object',
          additionalProperties: false,
          required: ['url'],
          description: 'The Redis server the replicas share (a restart applies a change).',
          properties: {
            url: { type: 'string', pattern: '^rediss?://', description: 'redis:// or rediss:// (TLS) URL.' },
            keyPrefix: {
              type: 'string',
              minLength: 1,
              default: STATE_DEFAULTS.keyPrefix,
              description:
                'Prefix of every key the gateway writes (deployments sharing one Redis each take their own).',
            },
            rateLimitFailure: {
              enum: ['open', 'closed'],
              default: STATE_DEFAULTS.rateLimitFailure,
              description:
                'With Redis unreachable, rate-limited calls are admitted (open) or refused with RATE_LIMITED (closed).',
            },
            commandTimeoutMs: {
              type: 'integer',
              minimum: 1,
              maximum: MAX_TIMER_MS,
              default: STATE_DEFAULTS.commandTimeoutMs,
              description: 'A Redis command not answered in this time fails, and the process-local state answers.',
            },
          },
        },
      },
    },
    log: {
      type: 'object',
      additionalProperties: false,
      description: 'JSON logs on stdout (pino).',
      properties: {
        level: {
          enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
          default: DEFAULTS.logLevel,
          description: 'Least severe level written; info logs one line per call.',
        },
      },
    },
    routes: {
      type: 'array',
      minItems: 1,
      description: 'Routes, matched most specific first: host-bound, then longer path prefixes, then tenant-bound.',
      items: ROUTE_SCHEMA,
    },
  },
} as const;
