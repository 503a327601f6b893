// gRPC upstream client (spec §10): one grpc-js channel per upstream, reused,
// with keepalive pings; service parameters as metadata (§10.2); answers
// decoded with the method's response type; errors read from status + details
// (§10.6). Streams (§10.7) are server-streaming calls, read as pulled, so a
// slow caller holds the upstream back through HTTP/2 flow control.
import * as grpc from '@grpc/grpc-js';
import type { Envelope } from '../../core/envelope.js';
import { methodInfo, type MethodInfo } from '../../core/methods.js';
import { upstreamHeaders } from '../../core/service-params.js';
import type { UpstreamClient, UpstreamTarget } from '../../core/upstream.js';
import { A2AError } from '../../errors/a2a-error.js';
import type { ProtoObject } from '../../proto/protojson.js';
import { A2A_SERVICE } from '../../proto/registry.js';
import { grpcChannel } from '../../tls/upstream-tls.js';
import { fromServiceError } from './status.js';

const identity = (b: Buffer): Buffer => b;

/** Keepalive pings while calls are open: 5 min is the minimum gRPC servers accept by default. */
const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.keepalive_time_ms': 300_000,
  'grpc.keepalive_timeout_ms': 20_000,
  'grpc.keepalive_permit_without_calls': 0,
};

export function grpcAddress(url: string): string {
  return url.replace(/^grpcs?:\/\//, '').replace(/\/+$/, '');
}

function decode(info: MethodInfo, bytes: Buffer | undefined): ProtoObject {
  try {
    return info.responseType.decode(bytes ?? Buffer.alloc(0)) as unknown as ProtoObject;
  } catch (e) {
    throw A2AError.of(
      'INVALID_AGENT_RESPONSE',
      `upstream sent an undecodable ${info.responseType.name}: ${(e as Error).message}`,
    );
  }
}

export class GrpcUpstream implements UpstreamClient {
  private readonly client: grpc.Client;

  constructor(private readonly target: UpstreamTarget) {
    const { credentials, options } = grpcChannel(target.tls);
    this.client = new grpc.Client(grpcAddress(target.url), credentials, { ...CHANNEL_OPTIONS, ...options });
  }

  private call(env: Envelope): { info: MethodInfo; path: string; body: Buffer; metadata: grpc.Metadata } {
    const info = methodInfo(env.method);
    const body = Buffer.from(info.requestType.encode(info.requestType.fromObject(env.request)).finish());
    const metadata = new grpc.Metadata();
    for (const [k, v] of Object.entries(upstreamHeaders(env.serviceParameters))) metadata.set(k, v);
    return { info, path: `/${A2A_SERVICE}/${info.name}`, body, metadata };
  }

  unary(env: Envelope, signal: AbortSignal): Promise<ProtoObject> {
    const { info, path, body, metadata } = this.call(env);
    return new Promise<ProtoObject>((resolve, reject) => {
      const call = this.client.makeUnaryRequest<Buffer, Buffer>(
        path,
        identity,
        identity,
        body,
        metadata,
        { deadline: Date.now() + this.target.timeoutMs },
        (err, value) => {
          signal.removeEventListener('abort', onAbort);
          if (err) return reject(fromServiceError(err));
          try {
            resolve(decode(info, value));
          } catch (e) {
            reject(e);
          }
        },
      );
      const onAbort = (): void => call.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  async *stream(env: Envelope, signal: AbortSignal): AsyncGenerator<ProtoObject> {
    const { info, path, body, metadata } = this.call(env);
    const call = this.client.makeServerStreamRequest<Buffer, Buffer>(path, identity, identity, body, metadata, {});
    const onAbort = (): void => call.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const bytes of call as AsyncIterable<Buffer>) yield decode(info, bytes);
    } catch (e) {
      if (e instanceof A2AError) throw e;
      throw fromServiceError(e as grpc.ServiceError);
    } finally {
      signal.removeEventListener('abort', onAbort);
      call.cancel();
    }
  }

  async close(): Promise<void> {
    this.client.close();
  }
}
