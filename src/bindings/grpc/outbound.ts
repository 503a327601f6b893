// gRPC upstream client (spec §10): one grpc-js channel per upstream, reused;
// service parameters as metadata (§10.2); the answer decoded with the
// method's response type; errors read from status + details (§10.6).
import * as grpc from '@grpc/grpc-js';
import type { Envelope } from '../../core/envelope.js';
import { methodInfo } from '../../core/methods.js';
import { upstreamHeaders } from '../../core/service-params.js';
import type { UpstreamClient, UpstreamTarget } from '../../core/upstream.js';
import { A2AError } from '../../errors/a2a-error.js';
import type { ProtoObject } from '../../proto/protojson.js';
import { A2A_SERVICE } from '../../proto/registry.js';
import { fromServiceError } from './status.js';

const identity = (b: Buffer): Buffer => b;

export function grpcAddress(url: string): string {
  return url.replace(/^grpc:\/\//, '').replace(/\/+$/, '');
}

export class GrpcUpstream implements UpstreamClient {
  private readonly client: grpc.Client;

  constructor(private readonly target: UpstreamTarget) {
    this.client = new grpc.Client(grpcAddress(target.url), grpc.credentials.createInsecure());
  }

  unary(env: Envelope, signal: AbortSignal): Promise<ProtoObject> {
    const info = methodInfo(env.method);
    const body = Buffer.from(info.requestType.encode(info.requestType.fromObject(env.request)).finish());
    const metadata = new grpc.Metadata();
    for (const [k, v] of Object.entries(upstreamHeaders(env.serviceParameters))) metadata.set(k, v);
    return new Promise<ProtoObject>((resolve, reject) => {
      const call = this.client.makeUnaryRequest<Buffer, Buffer>(
        `/${A2A_SERVICE}/${info.name}`,
        identity,
        identity,
        body,
        metadata,
        { deadline: Date.now() + this.target.timeoutMs },
        (err, value) => {
          signal.removeEventListener('abort', onAbort);
          if (err) return reject(fromServiceError(err));
          try {
            resolve(info.responseType.decode(value ?? Buffer.alloc(0)) as unknown as ProtoObject);
          } catch (e) {
            reject(A2AError.of('INVALID_AGENT_RESPONSE', `upstream sent an undecodable ${info.responseType.name}: ${(e as Error).message}`));
          }
        },
      );
      const onAbort = (): void => call.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  async close(): Promise<void> {
    this.client.close();
  }
}
