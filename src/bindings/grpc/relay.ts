// gRPC pass-through (a `passThrough: true` route whose agent speaks gRPC in
// the caller's version): the request bytes go, unread, to the same method of
// the route's agent over the generation's HTTP/2 session to it (the one its
// translated calls use: upstream/grpc-session.ts, node:http2, about half the
// CPU per call of a grpc-js channel), within the upstream's unary or stream
// budget, and its answer — message bytes, stream messages, or its status
// with trailers — comes back as it came. A unary call has the route's
// timeoutMs as its deadline (sent as grpc-timeout); a stream has none.
import type { A2AError } from '../../errors/a2a-error.js';
import { mapEvents } from '../../core/event-stream.js';
import type { Answer, RelayTarget } from '../../pipeline/call.js';
import { GrpcStatusError, type GrpcStatus } from '../../upstream/grpc-messages.js';
import { grpcAddress } from '../../upstream/grpc-session.js';
import { fromServiceError, transportStatus } from './status.js';

/** The upstream's own status, kept for the caller as it came (a transport failure is the gateway's own error). */
function relayed(status: GrpcStatus): A2AError {
  const transport = transportStatus(status);
  if (transport) return transport;
  const err = fromServiceError(status);
  err.relayed = { code: status.code, details: status.details, metadata: status.metadata };
  return err;
}

const relayedOr = (e: unknown): unknown => (e instanceof GrpcStatusError ? relayed(e.status) : e);
const asIs = (message: Buffer): Buffer => message;

/** Pass-through: the request bytes to the same method of the route's gRPC agent. */
export function relay(path: string, streaming: boolean, bytes: Buffer, target: RelayTarget): Promise<Answer> {
  const address = grpcAddress(target.url);
  const upstreams = target.generation.upstreams;
  const session = upstreams.grpcSession(address, target.route.upstream.tls);
  const origin = `grpc://${address}`;
  const route = target.route;
  if (streaming) {
    let release: (() => void) | undefined;
    const messages = mapEvents<Buffer, Buffer>({
      open: () => {
        release = upstreams.admit(origin, 'stream');
        const opts = { metadata: target.headers, maxMessageBytes: route.maxResponseBytes, signal: target.signal };
        return session.call(path, [bytes], opts);
      },
      error: relayedOr,
      close: () => release?.(),
    });
    return Promise.resolve({ kind: 'relayStream', messages });
  }
  const release = upstreams.admit(origin, 'unary');
  const opts = {
    metadata: target.headers,
    maxMessageBytes: route.maxResponseBytes,
    signal: target.signal,
    timeoutMs: route.timeoutMs,
  };
  return session.unary(path, [bytes], opts, asIs).then(
    (message): Answer => {
      release();
      return { kind: 'relayUnary', bytes: message };
    },
    (e: unknown) => {
      release();
      throw relayedOr(e);
    },
  );
}
