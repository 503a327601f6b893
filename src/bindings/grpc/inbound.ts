// gRPC inbound (spec §10): the lf.a2a.v1.A2AService service on the gateway's
// gRPC port, unary and server-streaming (§10.7). Request bytes are decoded here (not by grpc-js) so that bad
// protobuf is INVALID_ARGUMENT; service parameters come from metadata
// (§10.2); errors go out as status + grpc-status-details-bin (§10.6).
import * as grpc from '@grpc/grpc-js';
import { fromNodeCertificate } from '../../tls/peer-certificate.js';
import type { Binding } from '../../config/types.js';
import { checkRequired } from '../../core/decode.js';
import { asA2AError, type CallContext, type Dispatcher } from '../../core/dispatcher.js';
import type { Envelope } from '../../core/envelope.js';
import { METHODS, type MethodInfo } from '../../core/methods.js';
import { readServiceParameters, type HeaderGetter } from '../../core/service-params.js';
import type { RequestView } from '../../card/public-address.js';
import { A2AError } from '../../errors/a2a-error.js';
import type { ProtoObject } from '../../proto/protojson.js';
import { A2A_SERVICE } from '../../proto/registry.js';
import { exposes } from '../../card/served-card.js';
import type { RouteTable } from '../../routing/route-table.js';
import { drained } from '../../util/drained.js';
import { toServiceError } from './status.js';
import { GrpcPassThrough } from './passthrough.js';
import type { RouteConfig } from '../../config/types.js';

const INBOUND: Binding = 'GRPC';
type GrpcCall = grpc.ServerUnaryCall<Buffer, Buffer> | grpc.ServerWritableStream<Buffer, Buffer>;

function encode(info: MethodInfo, response: ProtoObject): Buffer {
  return Buffer.from(info.responseType.encode(info.responseType.fromObject(response)).finish());
}
const identity = (b: Buffer): Buffer => b;
let nextId = 0;

/** "ipv4:127.0.0.1:5000" / "ipv6:[::1]:5000" → the address. */
/** What the core may know of a gRPC caller: authority, peer address, metadata, verified client certificate. */
function viewOf(call: GrpcCall, header: HeaderGetter): RequestView {
  return {
    host: call.getHost?.() ?? header(':authority'),
    remoteAddress: peerAddress(call.getPeer()),
    header,
    grpc: true,
    peerCertificate: () => fromNodeCertificate(call.getAuthContext()?.sslPeerCertificate),
  };
}

function peerAddress(peer: string): string | undefined {
  const m = /^(?:ipv[46]:)?\[?([^\]]+?)\]?:\d+$/.exec(peer);
  return m?.[1];
}

function headerGetter(md: grpc.Metadata): (name: string) => string | undefined {
  return (name) => {
    const values = md.get(name).filter((v): v is string => typeof v === 'string');
    return values.length > 0 ? values.join(',') : undefined;
  };
}

export class GrpcInbound {
  readonly passThrough: GrpcPassThrough;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly table: RouteTable,
  ) {
    this.passThrough = new GrpcPassThrough(dispatcher);
  }

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
        ? (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
            const pt = this.passThroughRoute(call);
            if (pt)
              void this.passThrough.stream(
                info,
                pt,
                call,
                viewOf(call, headerGetter(call.metadata)),
                `grpc-${++nextId}`,
              );
            else void this.serverStream(info, call);
          }
        : (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
            const pt = this.passThroughRoute(call);
            if (pt)
              return void this.passThrough.unary(
                info,
                pt,
                call,
                viewOf(call, headerGetter(call.metadata)),
                `grpc-${++nextId}`,
                callback,
              );
            this.unary(info, call).then(
              (bytes) => callback(null, bytes),
              (e: unknown) => callback(toServiceError(asA2AError(e)) as grpc.ServiceError),
            );
          };
    }
    return { definition, handlers };
  }

  /** A pass-through route for this call: reached without decoding (by :authority or as the root route). */
  private passThroughRoute(call: GrpcCall): RouteConfig | undefined {
    const r = this.table.router.grpcRoute(call.getHost?.(), '', (x) => exposes(x, INBOUND));
    return r?.passThrough && r.upstream.binding === 'GRPC' ? r : undefined;
  }

  /** Decodes and routes a call; failures are logged and thrown as A2AErrors. */
  private prepare(info: MethodInfo, call: GrpcCall): { env: Envelope; ctx: CallContext } {
    const started = process.hrtime.bigint();
    const requestId = `grpc-${++nextId}`;
    const abort = new AbortController();
    call.on('cancelled', () => abort.abort());
    let request: ProtoObject;
    let route;
    let tenant: string;
    const header = headerGetter(call.metadata);
    const host = call.getHost?.() ?? header(':authority');
    let serviceParameters;
    try {
      try {
        request = info.requestType.decode(call.request) as unknown as ProtoObject;
      } catch (e) {
        throw A2AError.of('PARSE_ERROR', `request is not a valid ${info.requestType.name}: ${(e as Error).message}`);
      }
      checkRequired(info, request);
      tenant = String(request.tenant ?? '');
      route = this.table.router.grpcRoute(host, tenant, (r) => exposes(r, INBOUND));
      if (!route) throw A2AError.of('NO_ROUTE', `no route for tenant "${tenant}"`);
      if (call.request.length > route.maxBodyBytes) {
        throw A2AError.of(
          'PAYLOAD_TOO_LARGE',
          `request message exceeds the route's limit of ${route.maxBodyBytes} bytes`,
        );
      }
      serviceParameters = readServiceParameters(header, route.forwardHeaders);
    } catch (e) {
      const err = asA2AError(e);
      this.dispatcher.logCall(
        info.name,
        { inbound: INBOUND, requestId, route },
        undefined,
        { ok: false, error: err },
        started,
      );
      throw err;
    }
    return {
      env: { method: info.name, serviceParameters, tenant, request },
      ctx: { route, inbound: INBOUND, requestId, signal: abort.signal, view: viewOf(call, header) },
    };
  }

  private async unary(info: MethodInfo, call: grpc.ServerUnaryCall<Buffer, Buffer>): Promise<Buffer> {
    const { env, ctx } = this.prepare(info, call);
    const reply = await this.dispatcher.unary(env, ctx);
    if (!reply.ok) throw reply.error;
    return encode(info, reply.response);
  }

  /**
   * §10.7: each upstream event written as it arrives; the next one pulled only
   * when grpc-js took the last (write() false → wait for 'drain'); a failure
   * at any point ends the call with its status and grpc-status-details-bin.
   */
  private async serverStream(info: MethodInfo, call: grpc.ServerWritableStream<Buffer, Buffer>): Promise<void> {
    try {
      const { env, ctx } = this.prepare(info, call);
      for await (const event of this.dispatcher.stream(env, ctx)) {
        if (call.cancelled) return;
        if (!call.write(encode(info, event))) await drained(call, 'cancelled');
      }
      if (!call.cancelled) call.end();
    } catch (e) {
      if (!call.cancelled) call.emit('error', toServiceError(asA2AError(e)));
    }
  }
}
