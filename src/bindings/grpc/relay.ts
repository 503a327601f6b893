// gRPC pass-through (a `passThrough: true` route whose agent speaks gRPC in
// the caller's version): the request bytes go, unread, to the same method of
// the route's agent over the generation's channel (within the upstream's
// unary or stream budget), and its answer — message bytes, stream messages,
// or its status with trailers — comes back as it came.
import * as grpc from '@grpc/grpc-js';
import type { A2AError } from '../../errors/a2a-error.js';
import type { Answer, RelayTarget } from '../../pipeline/call.js';
import { grpcAddress } from '../../upstream/grpc-session.js';
import { identity } from './service.js';
import { fromServiceError, transportStatus } from './status.js';
import { whenAborted } from '../../util/call-signal.js';

/** The upstream's own status, kept for the caller as it came (grpc-js's own transport status is not the agent's). */
function relayed(e: grpc.ServiceError): A2AError {
  const transport = transportStatus(e);
  if (transport) return transport;
  const err = fromServiceError(e);
  err.relayed = { code: e.code, details: e.details, metadata: e.metadata };
  return err;
}

/** Pass-through: the request bytes to the same method of the route's gRPC agent. */
export function relay(path: string, streaming: boolean, bytes: Buffer, target: RelayTarget): Promise<Answer> {
  const address = grpcAddress(target.url);
  const upstreams = target.generation.upstreams;
  const channel = upstreams.grpcChannel(address, target.route.upstream.tls, target.route.maxResponseBytes);
  const release = upstreams.admit(`grpc://${address}`, streaming ? 'stream' : 'unary');
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(target.headers)) md.set(k, v);
  if (streaming) {
    const call = channel.makeServerStreamRequest<Buffer, Buffer>(path, identity, identity, bytes, md, {});
    call.once('status', release);
    whenAborted(target.signal, () => call.cancel());
    async function* messages(): AsyncGenerator<Buffer> {
      try {
        for await (const m of call as AsyncIterable<Buffer>) yield m;
      } catch (e) {
        throw relayed(e as grpc.ServiceError);
      } finally {
        call.cancel();
      }
    }
    return Promise.resolve({ kind: 'relayStream', messages: messages() });
  }
  return new Promise((resolve, reject) => {
    const call = channel.makeUnaryRequest<Buffer, Buffer>(
      path,
      identity,
      identity,
      bytes,
      md,
      { deadline: Date.now() + target.route.timeoutMs },
      (err, value) => {
        release();
        if (err) reject(relayed(err));
        else resolve({ kind: 'relayUnary', bytes: value ?? Buffer.alloc(0) });
      },
    );
    whenAborted(target.signal, () => call.cancel());
  });
}
