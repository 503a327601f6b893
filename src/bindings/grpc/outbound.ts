// gRPC upstream client (spec §10): calls over the generation's HTTP/2 session
// to the agent (upstream/grpc-session.ts, node:http2); service
// parameters as metadata (§10.2); answers decoded with the method's response
// type; errors read from status + details (§10.6). Streams (§10.7) are
// server-streaming calls, read as pulled, so a slow caller holds the upstream
// back through HTTP/2 flow control.
import { fromBinary } from '@bufbuild/protobuf';
import { methodOf, requestOf, type Envelope } from '../../core/envelope.js';
import { mapEvents } from '../../core/event-stream.js';
import type { AnyResponse, MethodInfo } from '../../core/methods.js';
import { writableAnswer } from '../../core/response.js';
import { upstreamHeaders } from '../../core/service-params.js';
import type { UpstreamClient, UpstreamTarget } from '../../core/upstream.js';
import { A2AError } from '../../errors/a2a-error.js';
import type { StreamResponse } from '../../gen/a2a_pb.js';
import { toBinaryChunks } from '../../proto/binary-chunks.js';
import type { Msg } from '../../proto/large-bytes.js';
import { GrpcStatusError, type GrpcStatus } from '../../upstream/grpc-messages.js';
import { grpcAddress, type GrpcSession } from '../../upstream/grpc-session.js';
import type { UpstreamRegistry } from '../../upstream/registry.js';
import { A2A_SERVICE } from './service.js';
import { fromServiceError } from './status.js';
import type { AbortLike } from '../../util/call-signal.js';

/** What differs between A2A versions on gRPC: the service path, the messages, the error statuses. */
export interface GrpcUpstreamDialect {
  path(info: MethodInfo): string;
  /** The request message's binary form, as chunks to write one after the other. */
  encode(info: MethodInfo, env: Envelope): Uint8Array[];
  decode(info: MethodInfo, bytes: Uint8Array): AnyResponse;
  error(info: MethodInfo, status: GrpcStatus): A2AError;
}

/** A2A 1.0: lf.a2a.v1.A2AService, the generated codec (large bytes written by reference), status + grpc-status-details-bin (§10.6). */
export const GRPC_V1: GrpcUpstreamDialect = {
  path: (info) => `/${A2A_SERVICE}/${info.name}`,
  encode: (info, env) => toBinaryChunks(info.requestSchema, requestOf(env) as unknown as Msg),
  // what binary holds and JSON cannot (a Timestamp out of range, a NaN) is no answer to write on
  decode: (info, bytes) => writableAnswer(info, fromBinary(info.responseSchema, bytes) as AnyResponse),
  error: (_info, e) => fromServiceError(e),
};

function decode(dialect: GrpcUpstreamDialect, info: MethodInfo, bytes: Buffer): AnyResponse {
  try {
    return dialect.decode(info, bytes);
  } catch (e) {
    if (e instanceof A2AError) throw e;
    throw A2AError.of(
      'INVALID_AGENT_RESPONSE',
      `upstream sent an undecodable ${info.responseSchema.name}: ${(e as Error).message}`,
    );
  }
}

export class GrpcUpstream implements UpstreamClient {
  private readonly session: GrpcSession;
  /** The budget key of the agent (upstream/registry.ts). */
  private readonly origin: string;

  constructor(
    private readonly target: UpstreamTarget,
    private readonly upstreams: UpstreamRegistry,
    private readonly dialect: GrpcUpstreamDialect = GRPC_V1,
  ) {
    const address = grpcAddress(target.url);
    this.origin = `grpc://${address}`;
    this.session = upstreams.grpcSession(address, target.tls);
  }

  /** One answer message, decoded as it arrives (no generators: a unary call is read from its stream's events). */
  async unary(env: Envelope, signal: AbortLike): Promise<AnyResponse> {
    const release = this.upstreams.admit(this.origin, 'unary');
    const info = methodOf(env);
    const opts = {
      metadata: upstreamHeaders(env.serviceParameters),
      maxMessageBytes: this.target.maxResponseBytes,
      signal,
      timeoutMs: this.target.timeoutMs,
    };
    try {
      const body = this.dialect.encode(info, env);
      return await this.session.unary(this.dialect.path(info), body, opts, (bytes) =>
        decode(this.dialect, info, bytes),
      );
    } catch (e) {
      if (e instanceof GrpcStatusError) throw this.dialect.error(info, e.status);
      throw e;
    } finally {
      release();
    }
  }

  /** The call's answer messages, decoded; a status other than OK read by the dialect. */
  stream(env: Envelope, signal: AbortSignal): AsyncIterable<StreamResponse> {
    const info = methodOf(env);
    let release: (() => void) | undefined;
    return mapEvents<Buffer, StreamResponse>({
      open: () => {
        release = this.upstreams.admit(this.origin, 'stream');
        const body = this.dialect.encode(info, env);
        const metadata = upstreamHeaders(env.serviceParameters);
        const opts = { metadata, maxMessageBytes: this.target.maxResponseBytes, signal };
        return this.session.call(this.dialect.path(info), body, opts);
      },
      each: (bytes) => decode(this.dialect, info, bytes) as StreamResponse,
      error: (e) => (e instanceof GrpcStatusError ? this.dialect.error(info, e.status) : e),
      close: () => release?.(),
    });
  }
}
