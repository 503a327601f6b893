// JSON Schema of one route of the config file (part of CONFIG_SCHEMA in
// schema.ts): its match, upstream, per-route limits and policies. The card
// and auth blocks are in schema-card-auth.ts. Descriptions and defaults feed
// docs/configuration.md.
import { AUTH_SCHEMA, CARD_SCHEMA } from './schema-card-auth.js';
import { DEFAULTS, MAX_TIMER_MS } from './types.js';
import { ENDPOINTS_SCHEMA } from './schema-endpoints.js';

const headerName = { type: 'string', pattern: '^[A-Za-z0-9-]+$' } as const;
const bindingNames = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;

const MATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'Which calls the route serves; without it, every call that no other route takes.',
  properties: {
    pathPrefix: {
      type: 'string',
      pattern: '^/',
      default: '/',
      description: 'HTTP path prefix (compared case-insensitively, "/a" and "/a/" are one prefix).',
    },
    hosts: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      default: [],
      description: 'Host names (Host, or gRPC :authority) the route is bound to; empty = any host.',
    },
    tenant: {
      // URL-safe (RFC 3986 unreserved): the tenant is a REST path segment
      type: 'string',
      pattern: '^[A-Za-z0-9._~-]+$',
      description: 'Only calls addressing this tenant (REST /{tenant}/…, params.tenant, the gRPC tenant field).',
    },
  },
} as const;

const UPSTREAM_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'The agent the route leads to: one `url`, or its replicas as `endpoints` (exactly one of the two).',
  properties: {
    url: {
      type: 'string',
      minLength: 1,
      description:
        "JSON-RPC endpoint URL, REST base URL, gRPC host:port (grpc:// or grpcs://), or with auto the agent's base URL.",
    },
    ...ENDPOINTS_SCHEMA,
    binding: {
      enum: [...bindingNames, 'auto'],
      default: 'auto',
      description: "The agent's binding; auto reads it from the agent's card.",
    },
    version: {
      enum: ['1.0', '0.3'],
      default: '1.0',
      description: 'A2A version of a configured binding (0.3 through the bridge); auto reads it from the card.',
    },
    allowedHosts: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      default: [],
      description:
        "Hosts (host for any port, host:port for one) an auto card's interfaces may point at besides the upstream's own.",
    },
    allowPlaintextInterfaces: {
      type: 'boolean',
      default: false,
      description: "May a TLS upstream's card name plain http:// interfaces (a downgrade)?",
    },
    tls: {
      type: 'object',
      additionalProperties: false,
      description: 'TLS to the agent (also implied by https:// and grpcs://). Verification is never turned off.',
      properties: {
        ca: {
          type: 'string',
          minLength: 1,
          description: "CA bundle (PEM) for the agent's certificate; else system CAs.",
        },
        cert: { type: 'string', minLength: 1, description: 'Client certificate (PEM) presented to the agent (mTLS).' },
        key: { type: 'string', minLength: 1, description: 'Private key (PEM) of the client certificate.' },
        servername: {
          type: 'string',
          minLength: 1,
          description: "Name checked against the agent's certificate and sent as SNI, instead of the URL's host.",
        },
      },
    },
    credentials: {
      description:
        "What reaches the agent of the caller's credentials: forward, strip (Authorization and the API key removed), or the route's own header. Default: strip when the route has auth, else forward.",
      oneOf: [
        { enum: ['forward', 'strip'] },
        {
          type: 'object',
          additionalProperties: false,
          required: ['header'],
          properties: {
            header: { ...headerName, description: 'Header sent to the agent.' },
            value: { type: 'string', minLength: 1, description: 'Its value.' },
            valueEnv: { type: 'string', minLength: 1, description: 'Environment variable holding its value.' },
            valueFile: { type: 'string', minLength: 1, description: 'File holding its value.' },
          },
        },
      ],
    },
    tenant: {
      default: 'keep',
      description: "The tenant sent upstream: the caller's (keep), none (clear), or { set: other-tenant }.",
      oneOf: [
        { enum: ['keep', 'clear'] },
        {
          type: 'object',
          additionalProperties: false,
          required: ['set'],
          properties: {
            // the tenant grammar of match.tenant: it goes into a REST agent's path
            set: { type: 'string', pattern: '^[A-Za-z0-9._~-]+$', description: 'Tenant sent instead.' },
          },
        },
      ],
    },
  },
} as const;

const CORS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['allowOrigins'],
  description: 'Browser callers from other origins (Fetch standard); without it none are allowed.',
  properties: {
    allowOrigins: {
      type: 'array',
      minItems: 1,
      items: { type: 'string', pattern: '^(\\*|https?://[^/]+)$' },
      description: 'Origins (https://app.example.com) or "*".',
    },
    allowCredentials: { type: 'boolean', default: false, description: 'Access-Control-Allow-Credentials.' },
    allowHeaders: {
      type: 'array',
      items: headerName,
      default: [],
      description: 'Request headers allowed besides the A2A ones (A2A-Version, A2A-Extensions, Authorization, …).',
    },
    exposeHeaders: {
      type: 'array',
      items: headerName,
      default: [],
      description: 'Response headers readable besides X-Request-Id, Retry-After and WWW-Authenticate.',
    },
    maxAgeSeconds: { type: 'integer', minimum: 0, default: 600, description: 'How long a preflight is cached.' },
  },
} as const;

export const ROUTE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'upstream'],
  properties: {
    name: {
      type: 'string',
      pattern: '^[A-Za-z0-9._-]+$',
      description: 'Unique name, used in logs, metrics labels and health.',
    },
    match: MATCH_SCHEMA,
    upstream: UPSTREAM_SCHEMA,
    card: CARD_SCHEMA,
    timeoutMs: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_TIMER_MS,
      default: DEFAULTS.timeoutMs,
      description:
        "Unary call timeout; for streams, the time to the upstream's first answer (UPSTREAM_TIMEOUT). Connecting to the upstream counts.",
    },
    streamIdleTimeoutMs: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_TIMER_MS,
      default: DEFAULTS.streamIdleTimeoutMs,
      description: 'A stream with no event from the upstream for this long ends with UPSTREAM_TIMEOUT.',
    },
    sseKeepAliveMs: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_TIMER_MS,
      default: DEFAULTS.sseKeepAliveMs,
      description: 'Interval of SSE keep-alive comments to callers while a stream is idle; 0 = off.',
    },
    maxSseEventBytes: {
      type: 'integer',
      minimum: 1,
      default: DEFAULTS.maxSseEventBytes,
      description:
        'Largest SSE event read from the upstream; larger is INVALID_AGENT_RESPONSE (a pass-through relays SSE unread: no event is held).',
    },
    maxResponseBytes: {
      type: 'integer',
      minimum: 1,
      default: DEFAULTS.maxResponseBytes,
      description:
        'Largest unary answer, non-SSE body, gRPC message or card from the upstream; larger is INVALID_AGENT_RESPONSE.',
    },
    maxBodyBytes: {
      type: 'integer',
      minimum: 1,
      default: DEFAULTS.maxBodyBytes,
      description: 'Largest request body; larger is 413 PAYLOAD_TOO_LARGE.',
    },
    maxStringLength: {
      type: 'integer',
      minimum: 1,
      default: DEFAULTS.maxStringLength,
      description: 'Longest string (characters) anywhere in a request; longer is InvalidParams naming the field.',
    },
    forwardHeaders: {
      type: 'array',
      items: headerName,
      default: [],
      description: 'Headers forwarded upstream besides the A2A ones, Authorization, trace context and X-Request-Id.',
    },
    passThrough: {
      type: 'boolean',
      default: false,
      description: "Same-binding calls forwarded undecoded (no validation, the agent's errors as sent).",
    },
    versions: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { enum: ['1.0', '0.3'] },
      default: ['1.0', '0.3'],
      description: 'A2A versions callers may speak on this route (0.3 through the bridge).',
    },
    cors: CORS_SCHEMA,
    ssrfGuard: {
      type: 'boolean',
      default: true,
      description: 'Refuse file parts whose URL is not http(s) or names a private or special-purpose address.',
    },
    rateLimit: {
      type: 'object',
      additionalProperties: false,
      required: ['requestsPerSecond'],
      description:
        'Token-bucket rate limit (GCRA): a full bucket admits `burst` calls at once, then it refills at requestsPerSecond; over it RATE_LIMITED (429 + Retry-After: the time until the next token). Without it, none.',
      properties: {
        requestsPerSecond: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: 1000000,
          description: 'Sustained rate: tokens added per second (at most 1,000,000).',
        },
        burst: {
          type: 'integer',
          minimum: 1,
          description:
            'Bucket size: calls admitted at once from a full bucket (burst / requestsPerSecond at most 100 years). Default: requestsPerSecond rounded up.',
        },
        perCaller: {
          type: 'boolean',
          default: false,
          description: 'One bucket per caller (authenticated identity, else peer address) instead of one per route.',
        },
      },
    },
    maxConcurrentStreams: {
      type: 'integer',
      minimum: 0,
      description: 'Open streams the route allows at once; more is RATE_LIMITED. Without it, no cap.',
    },
    auth: AUTH_SCHEMA,
  },
} as const;
