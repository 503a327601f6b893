// The typed internal form of the gateway configuration. The YAML file (or the
// CLI quick start) is parsed once into this; everything else reads only it.

export type Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

/** The A2A protocol versions the gateway speaks on either side (spec §3.6; 0.3 through the bridge, issue 13). */
export type ProtocolVersion = '1.0' | '0.3';
export const BINDINGS: readonly Binding[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

/** What tenant the gateway sends upstream. */
export type TenantPolicy = { mode: 'keep' } | { mode: 'clear' } | { mode: 'set'; value: string };

/** TLS towards an upstream (`https://`, `grpcs://` or a `tls:` block): files are PEM, read at start and on reload. */
export interface UpstreamTls {
  /** CA bundle that signs the agent's certificate; undefined = the system's CAs. */
  ca: string | undefined;
  /** Client certificate and key (mTLS to the agent). */
  cert: string | undefined;
  key: string | undefined;
  /** Name checked against the agent's certificate (and sent as SNI) instead of the URL's host. */
  servername: string | undefined;
}

/** TLS on the gateway's listeners (HTTPS with h2 and HTTP/1.1; gRPC over TLS). */
export interface ListenerTls {
  cert: string;
  key: string;
  /** CA bundle for client certificates (mTLS); undefined = no client certificates asked for. */
  clientCa: string | undefined;
  /** Refuse the handshake without a valid client certificate (default true when clientCa is set). */
  requireClientCert: boolean;
}

/** Where an API key travels (A2A APIKeySecurityScheme.location). */
export type ApiKeyLocation = 'header' | 'query' | 'cookie';

/** Authentication the gateway enforces on a route (§7.4); any configured scheme suffices. */
export interface RouteAuth {
  apiKey: { location: ApiKeyLocation; name: string; keys: Array<{ id: string; key: string }> } | undefined;
  jwt:
    | {
        jwksUrl: string | undefined;
        jwksFile: string | undefined;
        issuer: string | undefined;
        audience: string | undefined;
        clockSkewSeconds: number;
        /** A token without `exp` is refused (Envoy's require_expiration, on by default here). */
        requireExpiration: boolean;
        algorithms: string[] | undefined;
      }
    | undefined;
  /** A client certificate verified by listen.tls.clientCa authenticates (its subject CN is the identity). */
  mtls: boolean;
  /** Describe the enforced schemes in the served card's securitySchemes / securityRequirements. */
  advertise: boolean;
}

/** What reaches the upstream of the caller's credentials. */
export type UpstreamCredentials =
  { mode: 'forward' } | { mode: 'strip' } | { mode: 'set'; header: string; value: string };

/** One replica of the route's agent (issue 14); every endpoint speaks the route's binding (or `auto`). */
export interface UpstreamEndpoint {
  url: string;
  /** Share of new calls under weighted balancing (default 1). */
  weight: number;
  /** The endpoint's name in readiness, metrics, logs and errors (default "endpoint-<index>"; never its URL). */
  name: string;
}

/** Active health checks of a route's endpoints (Envoy's health_check): a card fetch, or grpc.health.v1 for gRPC. */
export interface HealthCheckConfig {
  intervalMs: number;
  timeoutMs: number;
  /** Failed checks in a row that make a healthy endpoint unhealthy. */
  unhealthyThreshold: number;
  /** Passed checks in a row that make an unhealthy endpoint healthy again. */
  healthyThreshold: number;
}

/** Passive outlier ejection (Envoy's outlier_detection): failures in a row eject an endpoint for a while. */
export interface OutlierConfig {
  consecutiveFailures: number;
  /** The first ejection's length; each further one is this times the number of ejections, up to maxEjectionMs. */
  baseEjectionMs: number;
  maxEjectionMs: number;
  /** Most of the route's endpoints ejected at once, in percent (at least one may always be). */
  maxEjectionPercent: number;
}

/** Per-endpoint circuit breaker (Envoy's circuit_breakers): calls in flight, and calls waiting for one of those. */
export interface CircuitBreakerConfig {
  maxConnections: number;
  maxPending: number;
}

export interface UpstreamConfig {
  /** JSON-RPC endpoint URL, REST base URL, gRPC host:port, or (auto) the agent's base/card URL (the first endpoint's). */
  url: string;
  /** The agent's replicas; one (`url`) unless `upstream.endpoints` lists several. */
  endpoints: UpstreamEndpoint[];
  /** The replicas share one task store: a task's reads may go to another replica when its own is down. */
  sharedTaskStore: boolean;
  loadBalancing: 'least-request' | 'round-robin';
  /** undefined = no active checks (the default for one endpoint). */
  healthCheck: HealthCheckConfig | undefined;
  outlierDetection: OutlierConfig;
  circuitBreaker: CircuitBreakerConfig;
  /** How long a task's or context's endpoint is remembered after its last use. */
  affinityTtlSeconds: number;
  /** TLS settings; undefined = plain (or, for https://, the system's CAs). */
  tls: UpstreamTls | undefined;
  /** Default: strip when the route authenticates callers itself, else forward. */
  credentials: UpstreamCredentials;
  binding: Binding | 'auto';
  /** The A2A version of a configured binding ('auto' reads it from the card). */
  version: ProtocolVersion;
  tenant: TenantPolicy;
  /**
   * Hosts an upstream card's interface URLs may point at besides the
   * upstream's own: "host" (any port) or "host:port" (that port), lower-case.
   */
  allowedHosts: string[];
  /** A TLS upstream's card may name plain-http interfaces (default false: no downgrade). */
  allowPlaintextInterfaces: boolean;
}

export interface SigningKey {
  /** PEM (PKCS#8) private key or a private JWK (JSON) file. */
  file: string;
  alg: string;
  kid: string;
  jku: string | undefined;
}

/** How the route's Agent Card is sourced and served (spec §8). */
export interface CardConfig {
  /** Where the upstream's card is read from, when not its well-known URI. */
  file: string | undefined;
  url: string | undefined;
  /** The route's full public URLs (behind a load balancer); else from the request. */
  publicHttpUrl: string | undefined;
  publicGrpcAddress: string | undefined;
  /** Bindings the route exposes, in card order; empty = all, the upstream's order first. */
  bindings: Binding[];
  /** Top-level card fields the route replaces (name, description, securitySchemes, …). */
  overrides: Record<string, unknown>;
  maxAgeSeconds: number;
  /** Rewriting breaks the upstream's JWS signatures: drop them, or sign the served card anew. */
  signatures: 'drop' | 'resign';
  signingKey: SigningKey | undefined;
  /** Verify the upstream card's signature against this JWKS file before trusting it. */
  verifyJwksFile: string | undefined;
}

/** CORS for browser A2A clients (Fetch standard §3.2). */
export interface RouteCors {
  /** Origins ("https://app.example.com") or "*". */
  allowOrigins: string[];
  allowCredentials: boolean;
  /** Request headers allowed besides the A2A ones (A2A-Version, A2A-Extensions, Authorization, …). */
  allowHeaders: string[];
  /** Response headers readable besides X-Request-Id, Retry-After, WWW-Authenticate. */
  exposeHeaders: string[];
  maxAgeSeconds: number;
}

export interface RouteConfig {
  name: string;
  /** Normalized: starts with "/", no trailing "/" ("" for the root). */
  pathPrefix: string;
  /** Lower-case host names (no port); empty = any host. */
  hosts: string[];
  /** Only calls addressing this tenant match; undefined = any tenant. */
  tenant: string | undefined;
  upstream: UpstreamConfig;
  card: CardConfig;
  /** Unary upstream timeout; for streams, the time to the upstream's first answer. */
  timeoutMs: number;
  /** A stream with no event for this long fails with UPSTREAM_TIMEOUT. */
  streamIdleTimeoutMs: number;
  /** SSE keep-alive comment interval towards callers; 0 = off. */
  sseKeepAliveMs: number;
  /** Largest SSE event accepted from an upstream. */
  maxSseEventBytes: number;
  /** Largest unary answer (or non-SSE body, or gRPC message) accepted from an upstream. */
  maxResponseBytes: number;
  maxBodyBytes: number;
  /** Longest string (characters) accepted anywhere in a request: ids, texts, metadata. */
  maxStringLength: number;
  /** Lower-case header names forwarded upstream besides the always-forwarded ones. */
  forwardHeaders: string[];
  /** Same-binding calls are forwarded without decoding (no validation, no error normalization). */
  passThrough: boolean;
  /** A2A versions callers may speak on this route (default both: 1.0 and, through the bridge, 0.3). */
  versions: ProtocolVersion[];
  /** Browser callers from other origins (CORS); undefined = none allowed. */
  cors: RouteCors | undefined;
  /** Refuse file parts whose URL is not http(s) or names a private address (default on). */
  ssrfGuard: boolean;
  /** Requests per second with bursts, for the route or per caller identity; undefined = none. */
  rateLimit: { requestsPerSecond: number; burst: number; perCaller: boolean } | undefined;
  /** Open streams the route allows at once; undefined = no cap. */
  maxConcurrentStreams: number | undefined;
  /** Authentication enforced by the gateway; undefined = none (the upstream's own). */
  auth: RouteAuth | undefined;
}

export interface GatewayConfig {
  /** Where the config came from, for messages ("<cli>" for the quick start). */
  source: string;
  host: string;
  httpPort: number;
  grpcPort: number;
  /** TLS for both listeners; undefined = plain HTTP and gRPC. */
  tls: ListenerTls | undefined;
  /** Public base URLs used in served cards (the route prefix is appended); derived from the request when absent. */
  publicHttpUrl: string | undefined;
  publicGrpcAddress: string | undefined;
  logLevel: string;
  /** Addresses or CIDRs whose X-Forwarded-* / Forwarded headers are believed. */
  trustedProxies: string[];
  /** A separate listener for /healthz, /readyz and /metrics; undefined = the public HTTP port. */
  /** allowedHosts: names the admin console answers besides IP addresses, localhost and host (lower-case; absent = none). */
  admin: { host: string; port: number; allowedHosts?: string[] } | undefined;
  /** gRPC server reflection on the gRPC port. */
  grpcReflection: boolean;
  /** How long open streams may run on after SIGTERM before they are ended. */
  shutdownGraceMs: number;
  /** OpenTelemetry span export over OTLP; undefined = off (trace context is still propagated). */
  tracing: TracingConfig | undefined;
  /** Gateway-wide limits (listeners, JSON-RPC batches, upstream connection budgets); absent = DEFAULT_LIMITS. */
  limits?: GatewayLimits;
  /** State shared by gateway replicas (task affinity, global rate limits, last good cards); absent = this process only. */
  state?: StateConfig;
  routes: RouteConfig[];
}

/** Gateway-wide limits; every one has a default (DEFAULT_LIMITS) and a config field under `limits:`. */
export interface GatewayLimits {
  /** Requests in one JSON-RPC batch; more is PAYLOAD_TOO_LARGE for the whole batch. */
  maxBatchItems: number;
  /** Requests of one batch sent upstream at once. */
  batchConcurrency: number;
  /** Unary calls in flight per upstream origin (each holds one HTTP/1.1 connection); more is UPSTREAM_OVERLOADED at once. */
  upstreamConnections: number;
  /** Streams open per upstream origin, on connections of their own; more is UPSTREAM_OVERLOADED at once. */
  upstreamStreams: number;
  /** Longest pause while a request body is read (nginx client_body_timeout): 408, connection closed; gRPC: the time to receive the whole request. */
  bodyTimeoutMs: number;
  /** Time to receive a request's headers (nginx client_header_timeout; Node's headersTimeout). */
  headersTimeoutMs: number;
  /** An HTTP keep-alive connection, HTTP/2 session or gRPC connection with no call open for this long is closed (also one that never sends its HTTP/2 preface). */
  idleTimeoutMs: number;
  /** Calls open at once on one gRPC connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS; Envoy's edge default). */
  grpcStreamsPerConnection: number;
}

/** nginx and Envoy defaults where they have one (docs/security.md says which). */
export const DEFAULT_LIMITS: GatewayLimits = {
  maxBatchItems: 100,
  batchConcurrency: 8,
  upstreamConnections: 1024,
  upstreamStreams: 1024,
  bodyTimeoutMs: 60_000,
  headersTimeoutMs: 60_000,
  idleTimeoutMs: 75_000,
  // no cap, as Envoy's default: SDK clients hold many subscriptions on one channel, and a call whose request never
  // arrives whole is ended by bodyTimeoutMs (an edge may set 100, Envoy's edge guidance)
  grpcStreamsPerConnection: 2_147_483_647,
};

export function limitsOf(config: GatewayConfig): GatewayLimits {
  return config.limits ?? DEFAULT_LIMITS;
}

export interface StateConfig {
  redis: {
    url: string;
    /** Prefix of every key the gateway writes (several gateways' deployments may share one Redis). */
    keyPrefix: string;
    /** With Redis unreachable, rate-limited calls are admitted (open) or refused with RATE_LIMITED (closed). */
    rateLimitFailure: 'open' | 'closed';
    /** A Redis command not answered in this time fails (and the process-local fallback answers). */
    commandTimeoutMs: number;
  };
}

export interface TracingConfig {
  otlpEndpoint: string;
  protocol: 'http/json' | 'http/protobuf' | 'grpc';
  /** Sent with every export (e.g. an API key of the tracing backend). */
  headers: Record<string, string>;
  serviceName: string;
  /** Share of new traces sampled (0…1); a caller's own sampling decision is always kept. */
  sampleRatio: number;
  flushIntervalMs: number;
}

/** The longest duration a `…Ms` field may give: Node's timers hold 2^31-1 ms (24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

export const DEFAULTS = {
  host: '127.0.0.1',
  httpPort: 8080,
  grpcPort: 50051,
  timeoutMs: 30_000,
  streamIdleTimeoutMs: 300_000,
  sseKeepAliveMs: 15_000,
  maxSseEventBytes: 16 * 1024 * 1024,
  maxResponseBytes: 16 * 1024 * 1024,
  maxBodyBytes: 10 * 1024 * 1024,
  maxStringLength: 1024 * 1024,
  logLevel: 'info',
  cardMaxAgeSeconds: 300,
  shutdownGraceMs: 10_000,
} as const;
