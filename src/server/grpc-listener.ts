// The gRPC listener's transport: grpc-js's server options (message size,
// keepalive, idle connections, streams per connection), the per-call limits
// (bindings/grpc/call-limits.ts), binding the port, and one repair grpc-js
// needs: it reads grpc-timeout as `(n * unit) | 0`, so a deadline of 2^31 ms
// (24.8 days) or more — grpc-go sends 2592000S for 30 days — overflows into
// an expired one. grpc-js reads the header before any interceptor runs (and
// takes it out of the metadata), so the header is rewritten where HTTP/2
// hands the stream over: to the longest deadline grpc-js can hold. Over TLS
// grpc-js's HTTP/2 servers are handed to the listener certificates, so that
// reloads reach their client-certificate settings (grpc-js sets those once).
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { callLimits } from '../bindings/grpc/call-limits.js';
import type { GrpcInbound } from '../bindings/grpc/inbound.js';
import { limitsOf, type GatewayConfig } from '../config/types.js';
import type { SecureListener } from '../tls/listener-certificates.js';
import { ListenError } from './listen-error.js';

/** grpc-js's reading of grpc-timeout (server-interceptors.js), and its units in ms. */
const TIMEOUT = /(\d{1,8})\s*([HMSmun])/;
const UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 1e-3, n: 1e-6 };
/** The longest deadline grpc-js holds: its arithmetic and Node's timers are 32-bit (2^31 − 1 ms). */
const LONGEST = `${Math.floor((2 ** 31 - 1) / 1000)}S`;

export function createGrpcServer(config: GatewayConfig, inbound: GrpcInbound): grpc.Server {
  const limits = limitsOf(config);
  return new grpc.Server({
    'grpc.max_receive_message_length': Math.max(...config.routes.map((r) => r.maxBodyBytes)),
    // Ping idle callers so dead peers of long streams are noticed (§10.7).
    'grpc.keepalive_time_ms': 120_000,
    'grpc.keepalive_timeout_ms': 20_000,
    // A connection with no call open this long is closed — one that never sent its HTTP/2 preface too.
    'grpc.max_connection_idle_ms': limits.idleTimeoutMs,
    // calls open at once per connection: grpc-js and grpc-go set no limit; 100 is Envoy's edge setting (nginx: 128)
    'grpc.max_concurrent_streams': limits.grpcStreamsPerConnection,
    interceptors: [callLimits(limits.bodyTimeoutMs, (...refused) => inbound.refused(...refused))],
  });
}

/** A grpc-timeout grpc-js would overflow, as the longest one it holds. */
function holdLongDeadline(_stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
  const value = headers['grpc-timeout'];
  if (value === undefined) return;
  const m = TIMEOUT.exec(String(value));
  if (m && Number(m[1]) * UNIT_MS[m[2]!]! > 2 ** 31 - 1) headers['grpc-timeout'] = LONGEST;
}

/**
 * Binds `server` at `address`; the port. The long-deadline repair goes before grpc-js's own stream handler; grpc-js's
 * HTTP/2 servers are handed to `track` (over TLS: they follow reloads of the client-certificate settings).
 */
export async function bindGrpc(
  server: grpc.Server,
  address: string,
  credentials: grpc.ServerCredentials,
  log: Logger,
  track?: (h2: SecureListener) => void,
): Promise<number> {
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(address, credentials, (err, p) =>
      err ? reject(new ListenError('grpc', address, err)) : resolve(p),
    );
  });
  // grpc-js keeps its HTTP/2 servers in `http2Servers` (private in its typings)
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (servers instanceof Map && servers.size > 0)
    for (const h2 of servers.keys() as Iterable<
      SecureListener & { prependListener: (e: 'stream', l: typeof holdLongDeadline) => void }
    >) {
      h2.prependListener('stream', holdLongDeadline);
      if (typeof h2.setSecureContext === 'function') track?.(h2);
    }
  else
    log.warn(
      `grpc-js internals changed: a grpc-timeout of 24.8 days or more is refused as expired${track ? '; reloads do not change the gRPC listener’s client-certificate settings' : ''}`,
    );
  return port;
}
