// JSON Schema of a route's `card` (spec §8: where the upstream's card comes
// from and how the served one is built) and `auth` (§7.4: what the gateway
// enforces) blocks; part of ROUTE_SCHEMA. Descriptions and defaults feed
// docs/configuration.md.
import { DEFAULTS } from './types.js';

export const CARD_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: "Where the upstream's card comes from and how the served card is built.",
  properties: {
    file: {
      type: 'string',
      minLength: 1,
      description: "The upstream's card from a JSON file (relative to the config file); for gRPC-only agents.",
    },
    url: {
      type: 'string',
      pattern: '^https?://',
      description: "The upstream's card from this URL instead of its well-known URI.",
    },
    publicHttpUrl: {
      type: 'string',
      pattern: '^https?://',
      description: "This route's full public HTTP URL in served cards (overrides public.httpUrl + prefix).",
    },
    publicGrpcAddress: {
      type: 'string',
      minLength: 1,
      description: "This route's public gRPC host:port in served cards.",
    },
    bindings: {
      type: 'array',
      uniqueItems: true,
      minItems: 1,
      items: { enum: ['JSONRPC', 'HTTP+JSON', 'GRPC'] },
      description: "Bindings the card lists, in order. Default: all three, the upstream's own first.",
    },
    overrides: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'Top-level card fields to replace, each read as its AgentCard field (§4.4.1) at load.',
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
    maxAgeSeconds: {
      type: 'integer',
      minimum: 0,
      default: DEFAULTS.cardMaxAgeSeconds,
      description: 'Cache-Control max-age of the served card.',
    },
    signatures: {
      enum: ['drop', 'resign'],
      default: 'drop',
      description: "Rewriting breaks the upstream's JWS signatures: drop them, or resign with signingKey.",
    },
    signingKey: {
      type: 'object',
      additionalProperties: false,
      required: ['file', 'alg', 'kid'],
      description: 'Key that signs served cards (signatures: resign).',
      properties: {
        file: { type: 'string', minLength: 1, description: 'PKCS#8 PEM or private JWK file.' },
        alg: { type: 'string', minLength: 1, description: 'JWS algorithm (ES256, RS256, EdDSA, …).' },
        kid: { type: 'string', minLength: 1, description: 'Key id in the protected header.' },
        jku: { type: 'string', pattern: '^https://', description: 'JWKS URL in the protected header.' },
      },
    },
    verifyJwksFile: {
      type: 'string',
      minLength: 1,
      description: 'Trust the upstream card only when one of its signatures verifies with this JWKS file.',
    },
  },
} as const;

export const AUTH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'Authentication the gateway enforces; any configured scheme suffices. Without it, none.',
  properties: {
    apiKey: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'keys'],
      description: 'API keys (A2A APIKeySecurityScheme); the identity is apiKey:<id>.',
      properties: {
        in: { enum: ['header', 'query', 'cookie'], default: 'header', description: 'Where the key travels.' },
        name: { type: 'string', minLength: 1, description: 'Header, query parameter or cookie name.' },
        keys: {
          type: 'array',
          minItems: 1,
          description: 'Accepted keys, each with key or keyEnv.',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id'],
            properties: {
              id: { type: 'string', minLength: 1, description: 'Name of the key in logs and limits.' },
              key: { type: 'string', minLength: 8, description: 'The key itself (at least 8 characters).' },
              keyEnv: { type: 'string', minLength: 1, description: 'Environment variable holding the key.' },
            },
          },
        },
      },
    },
    jwt: {
      type: 'object',
      additionalProperties: false,
      description: 'Bearer JWTs verified with jose; the identity is jwt:<sub>.',
      properties: {
        jwksUrl: {
          type: 'string',
          pattern: '^https?://',
          description: 'Key set URL (cached; refetched for an unknown kid).',
        },
        jwksFile: { type: 'string', minLength: 1, description: 'Key set file.' },
        issuer: { type: 'string', minLength: 1, description: 'Required iss.' },
        audience: { type: 'string', minLength: 1, description: 'Required aud.' },
        clockSkewSeconds: {
          type: 'integer',
          minimum: 0,
          default: 30,
          description: 'Tolerance for exp and nbf.',
        },
        requireExpiration: {
          type: 'boolean',
          default: true,
          description:
            'Refuse tokens without an exp claim (RFC 7519 makes it optional); false accepts tokens that never expire.',
        },
        algorithms: {
          type: 'array',
          minItems: 1,
          items: { type: 'string', minLength: 1 },
          description: "Accepted algorithms. Default: any the key set's keys allow.",
        },
      },
    },
    mtls: {
      type: 'boolean',
      default: false,
      description: 'A client certificate verified by listen.tls.clientCa authenticates (identity mtls:<CN>).',
    },
    advertise: {
      type: 'boolean',
      default: true,
      description: "Describe the enforced schemes in the served card's securitySchemes.",
    },
  },
} as const;
