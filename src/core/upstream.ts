// What every upstream client (src/bindings/*/outbound.ts) provides: send one
// envelope to the agent over its binding and return the typed response, or
// throw an A2AError (errors as data, §3.3.2).
import type { Envelope } from './envelope.js';
import type { ProtoObject } from '../proto/protojson.js';

export interface UpstreamTarget {
  /** JSON-RPC endpoint URL, REST base URL, or gRPC host:port. */
  url: string;
  timeoutMs: number;
}

export interface UpstreamClient {
  unary(env: Envelope, signal: AbortSignal): Promise<ProtoObject>;
  close(): Promise<void>;
}
