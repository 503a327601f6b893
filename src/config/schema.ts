// JSON Schema of the YAML config file (validated with ajv at start; see
// README "Configuration"). Keep in step with types.ts and load.ts.
export const CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['routes'],
  properties: {
    listen: {
      type: 'object',
      additionalProperties: false,
      properties: {
        host: { type: 'string', minLength: 1 },
        httpPort: { type: 'integer', minimum: 0, maximum: 65535 },
        grpcPort: { type: 'integer', minimum: 0, maximum: 65535 },
        tls: {
          type: 'object',
          additionalProperties: false,
          required: ['cert', 'key'],
          properties: {
            cert: { type: 'string', minLength: 1 },
            key: { type: 'string', minLength: 1 },
            clientCa: { type: 'string', minLength: 1 },
            requireClientCert: { type: 'boolean' },
          },
        },
      },
    },
    public: {
      type: 'object',
      additionalProperties: false,
      properties: {
        httpUrl: { type: 'string', pattern: '^https?://' },
        grpcAddress: { type: 'string', minLength: 1 },
      },
    },
    trustedProxies: { type: 'array', items: { type: 'string', minLength: 1 } },
    admin: {
      type: 'object',
      additionalProperties: false,
      required: ['port'],
      properties: { host: { type: 'string', minLength: 1 }, port: { type: 'integer', minimum: 0, maximum: 65535 } },
    },
    grpcReflection: { type: 'boolean' },
    tracing: {
      type: 'object',
      additionalProperties: false,
      required: ['otlpEndpoint'],
      properties: {
        otlpEndpoint: { type: 'string', pattern: '^https?://' },
        protocol: { enum: ['http/json', 'http/protobuf', 'grpc'] },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        serviceName: { type: 'string', minLength: 1 },
        sampleRatio: { type: 'number', minimum: 0, maximum: 1 },
        flushIntervalMs: { type: 'integer', minimum: 10 },
      },
    },
    shutdownGraceMs: { type: 'integer', minimum: 0 },
    limits: {
      type: 'object',
      additionalProperties: false,
      properties: {
        maxBatchItems: { type: 'integer', minimum: 1 },
        batchConcurrency: { type: 'integer', minimum: 1 },
        upstreamConnections: { type: 'integer', minimum: 1 },
        upstreamStreams: { type: 'integer', minimum: 1 },
        bodyTimeoutMs: { type: 'integer', minimum: 1 },
        headersTimeoutMs: { type: 'integer', minimum: 1 },
        idleTimeoutMs: { type: 'integer', minimum: 1 },
      },
    },
    state: {
      type: 'object',
      additionalProperties: false,
      required: ['redis'],
      properties: {
        redis: {
          type: 'object',
          additionalProperties: false,
          required: ['url'],
          properties: {
            url: { type: 'string', pattern: '^rediss?://' },
            keyPrefix: { type: 'string', minLength: 1 },
            rateLimitFailure: { enum: ['open', 'closed'] },
            commandTimeoutMs: { type: 'integer', minimum: 1 },
          },
        },
      },
    },
    log: {
      type: 'object',
      additionalProperties: false,
      properties: { level: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] } },
    },
    routes: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'upstream'],
        properties: {
          name: { type: 'string', pattern: '^[A-Za-z0-9._-]+$' },
          match: {
            type: 'object',
            additionalProperties: false,
            properties: {
              pathPrefix: { type: 'string', pattern: '^/' },
              hosts: { type: 'array', items: { type: 'string', minLength: 1 } },
              // URL-safe (RFC 3986 unreserved): the tenant is a REST path segment
              tenant: { type: 'string', pattern: '^[A-Za-z0-9._~-]+$' },
            },
          },
          upstream: {
            type: 'object',
            additionalProperties: false,
            properties: {
              url: { type: 'string', minLength: 1 },
              endpoints: {
                type: 'array',
                minItems: 1,
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['url'],
                  properties: {
                    url: { type: 'string', minLength: 1 },
                    weight: { type: 'integer', minimum: 1, maximum: 1000 },
                    name: { type: 'string', pattern: '^[A-Za-z0-9._-]+$' },
                  },
                },
              },
              sharedTaskStore: { type: 'boolean' },
              loadBalancing: { enum: ['least-request', 'round-robin'] },
              healthCheck: {
                oneOf: [
                  { const: false },
                  {
                    type: 'object',
                    additionalProperties: false,
                    properties: {
                      intervalMs: { type: 'integer', minimum: 100 },
                      timeoutMs: { type: 'integer', minimum: 1 },
                      unhealthyThreshold: { type: 'integer', minimum: 1 },
                      healthyThreshold: { type: 'integer', minimum: 1 },
                    },
                  },
                ],
              },
              outlierDetection: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  consecutiveFailures: { type: 'integer', minimum: 1 },
                  baseEjectionMs: { type: 'integer', minimum: 1 },
                  maxEjectionMs: { type: 'integer', minimum: 1 },
                  maxEjectionPercent: { type: 'integer', minimum: 0, maximum: 100 },
                },
              },
              circuitBreaker: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  maxConnections: { type: 'integer', minimum: 1 },
                  maxPending: { type: 'integer', minimum: 0 },
                },
              },
              affinityTtlSeconds: { type: 'integer', minimum: 1 },
              binding: { enum: ['JSONRPC', 'HTTP+JSON', 'GRPC', 'auto'] },
              version: { enum: ['1.0', '0.3'] },
              allowedHosts: { type: 'array', items: { type: 'string', minLength: 1 } },
              allowPlaintextInterfaces: { type: 'boolean' },
              tls: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  ca: { type: 'string', minLength: 1 },
                  cert: { type: 'string', minLength: 1 },
                  key: { type: 'string', minLength: 1 },
                  servername: { type: 'string', minLength: 1 },
                },
              },
              credentials: {
                oneOf: [
                  { enum: ['forward', 'strip'] },
                  {
                    type: 'object',
                    additionalProperties: false,
                    required: ['header'],
                    properties: {
                      header: { type: 'string', pattern: '^[A-Za-z0-9-]+$' },
                      value: { type: 'string', minLength: 1 },
                      valueEnv: { type: 'string', minLength: 1 },
                      valueFile: { type: 'string', minLength: 1 },
                    },
                  },
                ],
              },
              tenant: {
                oneOf: [
                  { enum: ['keep', 'clear'] },
                  {
                    type: 'object',
                    additionalProperties: false,
                    required: ['set'],
                    properties: { set: { type: 'string', minLength: 1 } },
                  },
                ],
              },
            },
          },
          card: {
            type: 'object',
            additionalProperties: false,
            properties: {
              file: { type: 'string', minLength: 1 },
              url: { type: 'string', pattern: '^https?://' },
              publicHttpUrl: { type: 'string', pattern: '^https?://' },
              publicGrpcAddress: { type: 'string', minLength: 1 },
              bindings: {
                type: 'array',
                uniqueItems: true,
                minItems: 1,
                items: { enum: ['JSONRPC', 'HTTP+JSON', 'GRPC'] },
              },
              overrides: {
                type: 'object',
                additionalProperties: false,
                properties: Object.fromEntries(
                  [
                    'name',
                    'description',
                    'version',
                    'provider',
                    'documentationUrl',
                    'iconUrl',
                    'securitySchemes',
                    'securityRequirements',
                    'defaultInputModes',
                    'defaultOutputModes',
                    'skills',
                    'capabilities',
                  ].map((k) => [k, {}]),
                ),
              },
              maxAgeSeconds: { type: 'integer', minimum: 0 },
              signatures: { enum: ['drop', 'resign'] },
              signingKey: {
                type: 'object',
                additionalProperties: false,
                required: ['file', 'alg', 'kid'],
                properties: {
                  file: { type: 'string', minLength: 1 },
                  alg: { type: 'string', minLength: 1 },
                  kid: { type: 'string', minLength: 1 },
                  jku: { type: 'string', pattern: '^https://' },
                },
              },
              verifyJwksFile: { type: 'string', minLength: 1 },
            },
          },
          timeoutMs: { type: 'integer', minimum: 1 },
          streamIdleTimeoutMs: { type: 'integer', minimum: 1 },
          sseKeepAliveMs: { type: 'integer', minimum: 0 },
          maxSseEventBytes: { type: 'integer', minimum: 1 },
          maxResponseBytes: { type: 'integer', minimum: 1 },
          maxBodyBytes: { type: 'integer', minimum: 1 },
          maxStringLength: { type: 'integer', minimum: 1 },
          forwardHeaders: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z0-9-]+$' } },
          passThrough: { type: 'boolean' },
          versions: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: ['1.0', '0.3'] } },
          cors: {
            type: 'object',
            additionalProperties: false,
            required: ['allowOrigins'],
            properties: {
              allowOrigins: {
                type: 'array',
                minItems: 1,
                items: { type: 'string', pattern: '^(\\*|https?://[^/]+)$' },
              },
              allowCredentials: { type: 'boolean' },
              allowHeaders: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z0-9-]+$' } },
              exposeHeaders: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z0-9-]+$' } },
              maxAgeSeconds: { type: 'integer', minimum: 0 },
            },
          },
          ssrfGuard: { type: 'boolean' },
          rateLimit: {
            type: 'object',
            additionalProperties: false,
            required: ['requestsPerSecond'],
            properties: {
              requestsPerSecond: { type: 'number', exclusiveMinimum: 0 },
              burst: { type: 'integer', minimum: 1 },
              perCaller: { type: 'boolean' },
            },
          },
          maxConcurrentStreams: { type: 'integer', minimum: 0 },
          auth: {
            type: 'object',
            additionalProperties: false,
            properties: {
              apiKey: {
                type: 'object',
                additionalProperties: false,
                required: ['name', 'keys'],
                properties: {
                  in: { enum: ['header', 'query', 'cookie'] },
                  name: { type: 'string', minLength: 1 },
                  keys: {
                    type: 'array',
                    minItems: 1,
                    items: {
                      type: 'object',
                      additionalProperties: false,
                      required: ['id'],
                      properties: {
                        id: { type: 'string', minLength: 1 },
                        key: { type: 'string', minLength: 8 },
                        keyEnv: { type: 'string', minLength: 1 },
                      },
                    },
                  },
                },
              },
              jwt: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  jwksUrl: { type: 'string', pattern: '^https?://' },
                  jwksFile: { type: 'string', minLength: 1 },
                  issuer: { type: 'string', minLength: 1 },
                  audience: { type: 'string', minLength: 1 },
                  clockSkewSeconds: { type: 'integer', minimum: 0 },
                  algorithms: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
                },
              },
              mtls: { type: 'boolean' },
              advertise: { type: 'boolean' },
            },
          },
        },
      },
    },
  },
} as const;
