// gRPC upstream client (spec §10): calls over the generation's channel to the
// agent (keepalive pings, shared with the gRPC pass-through); service
// parameters as metadata (§10.2); answers decoded with the method's response
// type; errors read from status + details (§10.6). Streams (§10.7) are
// server-streaming calls, read as pulled, so a slow caller holds the upstream
// back through HTTP/2 flow control.
import * as grpc from '@grpc/grpc-js';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { methodOf, requestOf, type Envelope } from '../../core/envelope.js';
import type { AnyResponse, MethodInfo } from '../../core/methods.js';
import { upstreamHeaders } from '../../core/service-params.js';
import type { UpstreamClient, UpstreamTarget } from '../../core/upstream.js';
import { A2AError } from '../../errors/a2a-error.js';
import type { StreamResponse } from '../../gen/a2a_pb.js';
import type { UpstreamRegistry } from '../../upstream/registry.js';
import { A2A_SERVICE, identity } from './service.js';
import { fromServiceError } from './status.js';

/** "grpc://host:port", "grpcs://host:port" or "host:port" → "host:port". */
export function grpcAddress(url: string): string {
  return url.replace(/^grpcs?:\/\//, '').replace(/\/+$/, '');
}

/** What differs between A2A versions on gRPC: the service path, the messages, the error statuses. */
export interface GrpcUpstreamDialect {
  path(info: MethodInfo): string;
  encode(info: MethodInfo, env: Envelope): Uint8Array;
  decode(info: MethodInfo, bytes: Uint8Array): AnyResponse;
  error(info: MethodInfo, e: grpc.ServiceError): A2AError;
}

/** A2A 1.0: lf.a2a.v1.A2AService, the generated codec, status + grpc-status-details-bin (§10.6). */
export const GRPC_V1: GrpcUpstreamDialect = {
  path: (info) => `/${A2A_SERVICE}/${info.name}`,
  encode: (info, env) => toBinary(info.requestSchema, requestOf(env)),
  decode: (info, bytes) => fromBinary(info.responseSchema, bytes) as AnyResponse,
  error: (_info, e) => fromServiceError(e),
};

function decode(dialect: GrpcUpstreamDialect, info: MethodInfo, bytes: Buffer | undefined): AnyResponse {
  try {
    return dialect.decode(info, bytes ?? Buffer.alloc(0));
  } catch (e) {
    if (e instanceof A2AError) throw e;
    throw A2AError.of(
      'INVALID_AGENT_RESPONSE',
      `upstream sent an undecodable ${info.responseSchema.name}: ${(e as Error).message}`,
    );
  }
}

export class GrpcUpstream implements UpstreamClient {
  private readonly client: grpc.Client;
  /** The budget key of the agent (upstream/registry.ts). */
  private readonly origin: string;

  constructor(
    private readonly target: UpstreamTarget,
    private readonly upstreams: UpstreamRegistry,
    private readonly dialect: GrpcUpstreamDialect = GRPC_V1,
  ) {
    const address = grpcAddress(target.url);
    this.origin = `grpc://${address}`;
    this.client = upstreams.grpcChannel(address, target.tls, target.maxResponseBytes);
  }

  private call(env: Envelope): { info: MethodInfo; path: string; body: Buffer; metadata: grpc.Metadata } {
    const info = methodOf(env);
    const bytes = this.dialect.encode(info, env);
    const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const metadata = new grpc.Metadata();
    for (const [k, v] of Object.entries(upstreamHeaders(env.serviceParameters))) metadata.set(k, v);
    return { info, path: this.dialect.path(info), body, metadata };
  }

  unary(env: Envelope, signal: AbortSignal): Promise<AnyResponse> {
    const { info, path, body, metadata } = this.call(env);
    const release = this.upstreams.admit(this.origin, 'unary');
    return new Promise<AnyResponse>((resolve, reject) => {
      const call = this.client.makeUnaryRequest<Buffer, Buffer>(
        path,
        identity,
        identity,
        body,
        metadata,
        { deadline: Date.now() + this.target.timeoutMs },
        (err, value) => {
          release();
          signal.removeEventListener('abort', onAbort);
          if (err) return reject(this.dialect.error(info, err));
          try {
            resolve(decode(this.dialect, info, value));
          } catch (e) {
            reject(e);
          }
        },
      );
      const onAbort = (): void => call.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  async *stream(env: Envelope, signal: AbortSignal): AsyncGenerator<StreamResponse> {
    const { info, path, body, metadata } = this.call(env);
    const release = this.upstreams.admit(this.origin, 'stream');
    const call = this.client.makeServerStreamRequest<Buffer, Buffer>(path, identity, identity, body, metadata, {});
    call.once('status', release);
    const onAbort = (): void => call.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const bytes of call as AsyncIterable<Buffer>)
        yield decode(this.dialect, info, bytes) as StreamResponse;
    } catch (e) {
      if (e instanceof A2AError) throw e;
      throw this.dialect.error(info, e as grpc.ServiceError);
    } finally {
      signal.removeEventListener('abort', onAbort);
      call.cancel();
      release();
    }
  }
}
