// Same-binding pass-through for gRPC (a `passThrough: true` route with a
// gRPC upstream, reached by :authority or as the root route): the request
// and answer bytes are forwarded without decoding (identity serializers), the
// upstream's status and trailers (grpc-status-details-bin) passed back as
// they are, streams relayed with backpressure; the version check, routing,
// authentication, rate limits, credential policy, logs and metrics stay.
// One channel per upstream (and TLS settings), reused.
import * as grpc from '@grpc/grpc-js';
import { withUpstreamCredentials } from '../../auth/upstream-credentials.js';
import type { RequestView } from '../../card/public-address.js';
import type { RouteConfig } from '../../config/types.js';
import { grpcChannel, tlsKey } from '../../tls/upstream-tls.js';
import { asA2AError, type Dispatcher } from '../../core/dispatcher.js';
import type { MethodInfo } from '../../core/methods.js';
import { passThroughHeaders } from '../../core/service-params.js';
import { A2AError, grpcNameOf, nameFromGrpc } from '../../errors/a2a-error.js';
import { A2A_SERVICE } from '../../proto/registry.js';
import { drained } from '../../util/drained.js';
import { grpcAddress } from './outbound.js';
import { toServiceError } from './status.js';

const identity = (b: Buffer): Buffer => b;
/** admit() reads no signal; one shared instead of a controller per call. */
const NEVER_ABORTED = new AbortController().signal;

export class GrpcPassThrough {
  private readonly clients = new Map<string, grpc.Client>();

  constructor(private readonly dispatcher: Dispatcher) {}

  private client(route: RouteConfig): grpc.Client {
    const address = grpcAddress(route.upstream.url);
    const key = `${address} ${tlsKey(route.upstream.tls)}`;
    let c = this.clients.get(key);
    if (!c) {
      const { credentials, options } = grpcChannel(route.upstream.tls);
      c = new grpc.Client(address, credentials, options);
      this.clients.set(key, c);
    }
    return c;
  }

  /** The size limit, version check, authentication and rate limit, then the metadata to send upstream. */
  private async metadata(
    view: RequestView,
    route: RouteConfig,
    request: Buffer,
    requestId: string,
  ): Promise<grpc.Metadata> {
    if (request.length > route.maxBodyBytes)
      throw A2AError.of(
        'PAYLOAD_TOO_LARGE',
        `request message exceeds the route's limit of ${route.maxBodyBytes} bytes`,
      );
    const headers = passThroughHeaders(view.header, route.forwardHeaders);
    await this.dispatcher.admit({ route, inbound: 'GRPC', requestId, signal: NEVER_ABORTED, view });
    const md = new grpc.Metadata();
    for (const [k, v] of Object.entries(withUpstreamCredentials(route, headers, view.header))) md.set(k, v);
    return md;
  }

  private log(
    info: MethodInfo,
    route: RouteConfig,
    requestId: string,
    started: bigint,
    err: grpc.ServiceError | A2AError | undefined,
  ): void {
    const error =
      err instanceof A2AError ? err : err ? A2AError.of(nameFromGrpc(grpcNameOf(err.code)), err.details) : undefined;
    this.dispatcher.logCall(
      info.name,
      { inbound: 'GRPC', requestId, route },
      'GRPC',
      error ? { ok: false, error } : { ok: true, response: {} },
      started,
      { passThrough: true },
    );
  }

  /** The metadata to send, or undefined after answering the caller with the refusal. */
  private async checked(
    info: MethodInfo,
    route: RouteConfig,
    request: Buffer,
    view: RequestView,
    requestId: string,
    started: bigint,
    refuse: (e: grpc.ServiceError) => void,
  ): Promise<grpc.Metadata | undefined> {
    try {
      return await this.metadata(view, route, request, requestId);
    } catch (e) {
      const err = asA2AError(e);
      this.log(info, route, requestId, started, err);
      refuse(toServiceError(err) as grpc.ServiceError);
      return undefined;
    }
  }

  async unary(
    info: MethodInfo,
    route: RouteConfig,
    call: grpc.ServerUnaryCall<Buffer, Buffer>,
    view: RequestView,
    requestId: string,
    callback: grpc.sendUnaryData<Buffer>,
  ): Promise<void> {
    const started = process.hrtime.bigint();
    const md = await this.checked(info, route, call.request, view, requestId, started, (e) => callback(e));
    if (!md || call.cancelled) return;
    const upstream = this.client(route).makeUnaryRequest(
      `/${A2A_SERVICE}/${info.name}`,
      identity,
      identity,
      call.request,
      md,
      { deadline: Date.now() + route.timeoutMs },
      (err, value) => {
        this.log(info, route, requestId, started, err ?? undefined);
        if (err) callback({ code: err.code, details: err.details, metadata: err.metadata } as grpc.ServiceError);
        else callback(null, value);
      },
    );
    call.on('cancelled', () => upstream.cancel());
  }

  async stream(
    info: MethodInfo,
    route: RouteConfig,
    call: grpc.ServerWritableStream<Buffer, Buffer>,
    view: RequestView,
    requestId: string,
  ): Promise<void> {
    const started = process.hrtime.bigint();
    const md = await this.checked(info, route, call.request, view, requestId, started, (e) => call.emit('error', e));
    if (!md || call.cancelled) return;
    const upstream = this.client(route).makeServerStreamRequest(
      `/${A2A_SERVICE}/${info.name}`,
      identity,
      identity,
      call.request,
      md,
      {},
    );
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
