// The YAML config file's shapes as ajv has validated them (schema.ts), before
// load.ts turns them into the typed GatewayConfig of types.ts.
import type { Binding, GatewayLimits } from './types.js';

export interface RawRoute {
  name: string;
  match?: { pathPrefix?: string; hosts?: string[]; tenant?: string };
  upstream: {
    url?: string;
    endpoints?: Array<{ url: string; weight?: number; name?: string }>;
    sharedTaskStore?: boolean;
    loadBalancing?: 'least-request' | 'round-robin';
    healthCheck?:
      boolean | { intervalMs?: number; timeoutMs?: number; unhealthyThreshold?: number; healthyThreshold?: number };
    outlierDetection?: {
      consecutiveFailures?: number;
      baseEjectionMs?: number;
      maxEjectionMs?: number;
      maxEjectionPercent?: number;
    };
    circuitBreaker?: { maxConnections?: number; maxPending?: number };
    affinityTtlSeconds?: number;
    binding?: Binding | 'auto';
    version?: '1.0' | '0.3';
    tenant?: unknown;
    allowedHosts?: string[];
    allowPlaintextInterfaces?: boolean;
    tls?: { ca?: string; cert?: string; key?: string; servername?: string };
    credentials?: 'forward' | 'strip' | { header: string; value?: string; valueEnv?: string; valueFile?: string };
  };
  card?: RawCard;
  timeoutMs?: number;
  streamIdleTimeoutMs?: number;
  sseKeepAliveMs?: number;
  maxSseEventBytes?: number;
  maxResponseBytes?: number;
  maxBodyBytes?: number;
  maxStringLength?: number;
  forwardHeaders?: string[];
  passThrough?: boolean;
  versions?: Array<'1.0' | '0.3'>;
  cors?: {
    allowOrigins: string[];
    allowCredentials?: boolean;
    allowHeaders?: string[];
    exposeHeaders?: string[];
    maxAgeSeconds?: number;
  };
  ssrfGuard?: boolean;
  rateLimit?: { requestsPerSecond: number; burst?: number; perCaller?: boolean };
  maxConcurrentStreams?: number;
  auth?: RawAuth;
}
export interface RawListenerTls {
  cert: string;
  key: string;
  clientCa?: string;
  requireClientCert?: boolean;
}
export interface RawAuth {
  apiKey?: {
    in?: 'header' | 'query' | 'cookie';
    name: string;
    keys: Array<{ id: string; key?: string; keyEnv?: string }>;
  };
  jwt?: {
    jwksUrl?: string;
    jwksFile?: string;
    issuer?: string;
    audience?: string;
    clockSkewSeconds?: number;
    requireExpiration?: boolean;
    algorithms?: string[];
  };
  mtls?: boolean;
  advertise?: boolean;
}
export interface RawCard {
  file?: string;
  url?: string;
  publicHttpUrl?: string;
  publicGrpcAddress?: string;
  bindings?: Binding[];
  overrides?: Record<string, unknown>;
  maxAgeSeconds?: number;
  signatures?: 'drop' | 'resign';
  signingKey?: { file: string; alg: string; kid: string; jku?: string };
  verifyJwksFile?: string;
}
export interface RawConfig {
  trustedProxies?: string[];
  admin?: { host?: string; port: number; allowedHosts?: string[] };
  grpcReflection?: boolean;
  shutdownGraceMs?: number;
  limits?: Partial<GatewayLimits>;
  state?: {
    redis: { url: string; keyPrefix?: string; rateLimitFailure?: 'open' | 'closed'; commandTimeoutMs?: number };
  };
  tracing?: {
    otlpEndpoint: string;
    protocol?: 'http/json' | 'http/protobuf' | 'grpc';
    headers?: Record<string, string>;
    serviceName?: string;
    sampleRatio?: number;
    flushIntervalMs?: number;
  };
  listen?: { host?: string; httpPort?: number; grpcPort?: number; tls?: RawListenerTls };
  public?: { httpUrl?: string; grpcAddress?: string };
  log?: { level?: string };
  routes: RawRoute[];
}
