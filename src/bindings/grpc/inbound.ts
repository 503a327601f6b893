// gRPC inbound (spec §10): the lf.a2a.v1.A2AService service on the gateway's
// gRPC port, unary and server-streaming (§10.7). Each call goes through the
// pipeline: the method comes from the service path and the tenant is read
// from the request bytes without decoding them (service.ts), so the route is
// chosen and the caller authenticated before the request is decoded (by the
// generated codec; bad protobuf is INVALID_ARGUMENT). Service parameters come
// from metadata (§10.2); errors go out as status + grpc-status-details-bin
// (§10.6). A pass-through route gets the bytes as they came, over the
// generation's channel to the agent, and its status and trailers back as is.
import * as grpc from '@grpc/grpc-js';
import { fromBinary, toBinary, type DescMessage, type Message } from '@bufbuild/protobuf';
import { METHODS, type AnyRequest, type MethodInfo } from '../../core/methods.js';
import { A2AError, asA2AError } from '../../errors/a2a-error.js';
import type { HeaderGetter, RequestView } from '../../http/request.js';
import type { Answer, Call, RelayTarget } from '../../pipeline/call.js';
import type { Pipeline } from '../../pipeline/pipeline.js';
import type { RouteTable } from '../../routing/generation.js';
import { fromNodeCertificate } from '../../tls/peer-certificate.js';
import { drained } from '../../util/drained.js';
import { grpcAddress } from './outbound.js';
import { A2A_SERVICE, identity, peekTenant } from './service.js';
import { fromServiceError, toServiceError } from './status.js';

type GrpcCall = grpc.ServerUnaryCall<Buffer, Buffer> | grpc.ServerWritableStream<Buffer, Buffer>;
let nextId = 0;

function encode(schema: DescMessage, message: Message): Buffer {
  const bytes = toBinary(schema, message);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** "ipv4:127.0.0.1:5000" / "ipv6:[::1]:5000" → the address. */
function peerAddress(peer: string): string | undefined {
  return /^(?:ipv[46]:)?\[?([^\]]+?)\]?:\d+$/.exec(peer)?.[1];
}

function headerGetter(md: grpc.Metadata): HeaderGetter {
  return (name) => {
    const values = md.get(name).filter((v): v is string => typeof v === 'string');
    return values.length > 0 ? values.join(',') : undefined;
  };
}

/** What the pipeline may know of a gRPC caller: authority, peer address, metadata, verified client certificate. */
function viewOf(call: GrpcCall, header: HeaderGetter): RequestView {
  return {
    host: call.getHost?.() ?? header(':authority'),
    remoteAddress: peerAddress(call.getPeer()),
    header,
    grpc: true,
    peerCertificate: () => fromNodeCertificate(call.getAuthContext()?.sslPeerCertificate),
  };
}

/** The upstream's own status, kept for the caller as it came. */
function relayed(e: grpc.ServiceError): A2AError {
  const err = fromServiceError(e);
  err.relayed = { code: e.code, details: e.details, metadata: e.metadata };
  return err;
}

/** Pass-through: the request bytes to the same method of the route's gRPC agent. */
function relay(info: MethodInfo, bytes: Buffer, target: RelayTarget): Promise<Answer> {
  const channel = target.generation.upstreams.grpcChannel(grpcAddress(target.url), target.route.upstream.tls);
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(target.headers)) md.set(k, v);
  const path = `/${A2A_SERVICE}/${info.name}`;
  if (info.streaming) {
    const call = channel.makeServerStreamRequest<Buffer, Buffer>(path, identity, identity, bytes, md, {});
    target.signal.addEventListener('abort', () => call.cancel(), { once: true });
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
      (err, value) => (err ? reject(relayed(err)) : resolve({ kind: 'relayUnary', bytes: value ?? Buffer.alloc(0) })),
    );
    target.signal.addEventListener('abort', () => call.cancel(), { once: true });
  });
}

export class GrpcInbound {
  constructor(
    private readonly pipeline: Pipeline,
    private readonly table: RouteTable,
  ) {}

  /** The service definition and handlers to add to a grpc.Server. */
  service(): { definition: grpc.ServiceDefinition; handlers: grpc.UntypedServiceImplementation } {
    const definition: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {};
    const handlers: grpc.UntypedServiceImplementation = {};
    for (const info of METHODS.values()) {
      definition[info.name] = {
        path: `/${A2A_SERVICE}/${info.name}`,
        requestStream: false,
        responseStream: info.streaming,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      };
      handlers[info.name] = info.streaming
        ? (call: grpc.ServerWritableStream<Buffer, Buffer>) => void this.serverStream(info, call)
        : (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
            this.unary(info, call).then(
              (bytes) => callback(null, bytes),
              (e: unknown) => callback(toServiceError(asA2AError(e)) as grpc.ServiceError),
            );
          };
    }
    return { definition, handlers };
  }

  private callOf(info: MethodInfo, call: GrpcCall): Call {
    const abort = new AbortController();
    call.on('cancelled', () => abort.abort());
    const header = headerGetter(call.metadata);
    const view = viewOf(call, header);
    const generation = this.table.generation;
    const bytes = call.request;
    const started = process.hrtime.bigint();
    const requestId = `grpc-${++nextId}`;
    const tenant = peekTenant(info, bytes);
    if (tenant === undefined) {
      const err = A2AError.of('PARSE_ERROR', `request is not a valid ${info.requestSchema.name}`);
      this.pipeline.rejected({ inbound: 'GRPC', requestId, started }, err);
      throw err;
    }
    return {
      inbound: 'GRPC',
      requestId,
      signal: abort.signal,
      view,
      started,
      generation,
      candidates: generation.router.grpcCandidates(view.host),
      method: info,
      tenant,
      request: {
        size: bytes.length,
        decode: (): AnyRequest => {
          try {
            return fromBinary(info.requestSchema, bytes) as AnyRequest;
          } catch (e) {
            throw A2AError.of(
              'PARSE_ERROR',
              `request is not a valid ${info.requestSchema.name}: ${(e as Error).message}`,
            );
          }
        },
        relay: (target) => relay(info, bytes, target),
      },
    };
  }

  private async unary(info: MethodInfo, call: grpc.ServerUnaryCall<Buffer, Buffer>): Promise<Buffer> {
    const answer = await this.pipeline.run(this.callOf(info, call));
    if (answer.kind === 'relayUnary') return answer.bytes;
    if (answer.kind !== 'unary') throw new Error(`unexpected ${answer.kind} answer`);
    return encode(info.responseSchema, answer.response);
  }

  /**
   * §10.7: each event written as it arrives; the next one pulled only when
   * grpc-js took the last (write() false → wait for 'drain'); a failure at any
   * point ends the call with its status and grpc-status-details-bin.
   */
  private async serverStream(info: MethodInfo, call: grpc.ServerWritableStream<Buffer, Buffer>): Promise<void> {
    try {
      const answer = await this.pipeline.run(this.callOf(info, call));
      if (answer.kind !== 'stream' && answer.kind !== 'relayStream')
        throw new Error(`unexpected ${answer.kind} answer`);
      const messages: AsyncIterable<Buffer | Message> = answer.kind === 'relayStream' ? answer.messages : answer.events;
      for await (const m of messages) {
        if (call.cancelled) return;
        const bytes = Buffer.isBuffer(m) ? m : encode(info.responseSchema, m);
        if (!call.write(bytes)) await drained(call, 'cancelled');
      }
      if (!call.cancelled) call.end();
    } catch (e) {
      if (!call.cancelled) call.emit('error', toServiceError(asA2AError(e)));
    }
  }
}
