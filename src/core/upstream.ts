// What every upstream client (src/bindings/*/outbound.ts) provides: send one
// envelope to the agent over its binding and return the typed response, or
// open a stream of StreamResponse events (§3.1.2, §3.1.6); failures are
// thrown as A2AErrors (errors as data, §3.3.2).
import type { ProtocolVersion, UpstreamTls } from '../config/types.js';
import type { StreamResponse } from '../gen/a2a_pb.js';
import type { Envelope } from './envelope.js';
import type { AnyResponse } from './methods.js';
import type { AbortLike } from '../util/call-signal.js';

export interface UpstreamTarget {
  /** JSON-RPC endpoint URL, REST base URL, or gRPC host:port. */
  url: string;
  /** The A2A version the upstream interface speaks (0.3 through the bridge). */
  version: ProtocolVersion;
  timeoutMs: number;
  maxSseEventBytes: number;
  /** Largest unary answer, non-SSE body or gRPC message accepted (route maxResponseBytes). */
  maxResponseBytes: number;
  /** TLS settings of the route's upstream (undefined = plain, or system CAs for https://). */
  tls: UpstreamTls | undefined;
}

export interface UpstreamClient {
  unary(env: Envelope, signal: AbortLike): Promise<AnyResponse>;
  /** StreamResponse events, pulled one at a time; aborting `signal` ends the upstream call. */
  stream(env: Envelope, signal: AbortSignal): AsyncIterable<StreamResponse>;
}
