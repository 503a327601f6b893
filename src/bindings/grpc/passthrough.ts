// Same-binding pass-through for gRPC (a `passThrough: true` route with a
// gRPC upstream, reached by :authority or as the root route): the request
// and answer bytes are forwarded without decoding (identity serializers), the
// upstream's status and trailers (grpc-status-details-bin) passed back as
// they are, streams relayed with backpressure; the version check, routing,
// logs and metrics stay. One channel per upstream, reused.
import * as grpc from '@grpc/grpc-js';
import type { RouteConfig } from '../../config/types.js';
import type { Dispatcher } from '../../core/dispatcher.js';
import type { MethodInfo } from '../../core/methods.js';
import { passThroughHeaders, type HeaderGetter } from '../../core/service-params.js';
import { A2AError, grpcNameOf, nameFromGrpc } from '../../errors/a2a-error.js';
import { A2A_SERVICE } from '../../proto/registry.js';
import { drained } from '../../util/drained.js';
import { grpcAddress } from './outbound.js';
import { toServiceError } from './status.js';

const identity = (b: Buffer): Buffer => b;

export class GrpcPassThrough {
  private readonly clients = new Map<string, grpc.Client>();

  constructor(private readonly dispatcher: Dispatcher) {}

  private client(route: RouteConfig): grpc.Client {
    const address = grpcAddress(route.upstream.url);
    let c = this.clients.get(address);
    if (!c) {
      c = new grpc.Client(address, grpc.credentials.createInsecure());
      this.clients.set(address, c);
    }
    return c;
  }

  /** The version check and size limit, then the metadata to send upstream. */
  private metadata(header: HeaderGetter, route: RouteConfig, request: Buffer): grpc.Metadata {
    if (request.length > route.maxBodyBytes) throw A2AError.of('PAYLOAD_TOO_LARGE', `request message exceeds the route's limit of ${route.maxBodyBytes} bytes`);
    const md = new grpc.Metadata();
    for (const [k, v] of Object.entries(passThroughHeaders(header, route.forwardHeaders))) md.set(k, v);
    return md;
  }

  private log(info: MethodInfo, route: RouteConfig, requestId: string, started: bigint, err: grpc.ServiceError | A2AError | undefined): void {
    const error = err instanceof A2AError ? err : err ? A2AError.of(nameFromGrpc(grpcNameOf(err.code)), err.details) : undefined;
    this.dispatcher.logCall(info.name, { inbound: 'GRPC', requestId, route }, 'GRPC', error ? { ok: false, error } : { ok: true, response: {} }, started, { passThrough: true });
  }

  /** The metadata to send, or undefined after answering the caller with the refusal. */
  private checked(info: MethodInfo, route: RouteConfig, request: Buffer, header: HeaderGetter, requestId: string, started: bigint, refuse: (e: grpc.ServiceError) => void): grpc.Metadata | undefined {
    try {
      return this.metadata(header, route, request);
    } catch (e) {
      this.log(info, route, requestId, started, e as A2AError);
      refuse(toServiceError(e as A2AError) as grpc.ServiceError);
      return undefined;
    }
  }

  unary(info: MethodInfo, route: RouteConfig, call: grpc.ServerUnaryCall<Buffer, Buffer>, header: HeaderGetter, requestId: string, callback: grpc.sendUnaryData<Buffer>): void {
    const started = process.hrtime.bigint();
    const md = this.checked(info, route, call.request, header, requestId, started, (e) => callback(e));
    if (!md) return;
    const upstream = this.client(route).makeUnaryRequest(`/${A2A_SERVICE}/${info.name}`, identity, identity, call.request, md,
      { deadline: Date.now() + route.timeoutMs }, (err, value) => {
        this.log(info, route, requestId, started, err ?? undefined);
        if (err) callback({ code: err.code, details: err.details, metadata: err.metadata } as grpc.ServiceError);
        else callback(null, value);
      });
    call.on('cancelled', () => upstream.cancel());
  }

  stream(info: MethodInfo, route: RouteConfig, call: grpc.ServerWritableStream<Buffer, Buffer>, header: HeaderGetter, requestId: string): void {
    const started = process.hrtime.bigint();
    const md = this.checked(info, route, call.request, header, requestId, started, (e) => call.emit('error', e));
    if (!md) return;
    const upstream = this.client(route).makeServerStreamRequest(`/${A2A_SERVICE}/${info.name}`, identity, identity, call.request, md, {});
    call.on('cancelled', () => upstream.cancel());
    void (async () => {
      try {
        for await (const bytes of upstream as AsyncIterable<Buffer>) {
          if (call.cancelled) return;
          if (!call.write(bytes)) await drained(call, 'cancelled');
        }
        this.log(info, route, requestId, started, undefined);
        if (!call.cancelled) call.end();
      } catch (e) {
        const err = e as grpc.ServiceError;
        this.log(info, route, requestId, started, err);
        if (!call.cancelled) call.emit('error', { code: err.code, details: err.details, metadata: err.metadata });
      }
    })();
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
  }
}
