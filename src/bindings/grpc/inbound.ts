// gRPC inbound (spec §10): the lf.a2a.v1.A2AService service on the gateway's
// gRPC port — and a2a.v1.A2AService for A2A 0.3 callers (dialects.ts, bridge
// §1) — unary and server-streaming (§10.7). Each call goes through the
// pipeline: the method comes from the service path and the tenant is read
// from the request bytes without decoding them (service.ts), so the route is
// chosen and the caller authenticated before the request is decoded (by the
// generated codec; bad protobuf is INVALID_ARGUMENT). Service parameters come
// from metadata (§10.2); errors go out as status + grpc-status-details-bin
// (§10.6). A pass-through route gets the bytes as they came, over the
// generation's HTTP/2 session to the agent (relay.ts), and its status and
// trailers back as is. A call the listener's limits end before its handler
// runs (call-limits.ts: request time, deadline) is logged here as refused.
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Message } from '@bufbuild/protobuf';
import type { AnyRequest, MethodInfo } from '../../core/methods.js';
import { A2AError, asA2AError } from '../../errors/a2a-error.js';
import { GRPC_CODES } from '../../errors/catalogue.js';
import { REQUEST_ID, type HeaderGetter, type RequestView, type Wire } from '../../http/request.js';
import type { AnswerWriter, Call } from '../../pipeline/call.js';
import type { Pipeline } from '../../pipeline/pipeline.js';
import type { RouteTable } from '../../routing/generation.js';
import { fromNodeCertificate } from '../../tls/peer-certificate.js';
import { drained } from '../../util/drained.js';
import { GRPC_DIALECTS, type GrpcDialect } from './dialects.js';
import { relay } from './relay.js';
import { identity } from './service.js';
import { CallSignal } from '../../util/call-signal.js';

type GrpcCall = grpc.ServerUnaryCall<Buffer, Buffer> | grpc.ServerWritableStream<Buffer, Buffer>;
/** One rpc of one served service. */
interface Rpc {
  d: GrpcDialect;
  rpc: string;
  info: MethodInfo;
  path: string;
  /** The rpc's answers and events as the dialect encodes them (run by the pipeline's observer). */
  writer: AnswerWriter<Buffer>;
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

/** What the gateway keeps of one caller's call while it runs. */
interface Caller {
  /** Aborted when the caller cancels before it is answered. */
  signal: CallSignal;
  answered: boolean;
  /** The call's x-request-id, once read. */
  requestId?: string;
  /** The response headers are sent (once: the deferred send of a stream's finds them gone with an earlier answer). */
  headersSent?: boolean;
}

/**
 * grpc-js emits 'cancelled' when any call's stream closes, answered or not; aborting then built a DOMException and
 * ran the abort listeners for nothing on every call, so an answered call's signal is left as it is.
 */
function callerOf(call: GrpcCall): Caller {
  const abort = new CallSignal();
  const caller: Caller = { signal: abort, answered: false };
  call.once('cancelled', () => {
    if (!caller.answered) abort.abort();
  });
  return caller;
}

/** The response headers: the call's x-request-id, once; before the first message or the status, whichever comes first. */
function sendHeaders(call: GrpcCall, caller: Caller): void {
  if (caller.requestId === undefined || caller.headersSent) return;
  caller.headersSent = true;
  const md = new grpc.Metadata();
  md.set('x-request-id', caller.requestId);
  call.sendMetadata(md);
}

export class GrpcInbound {
  constructor(
    private readonly pipeline: Pipeline,
    private readonly table: RouteTable,
  ) {}

  /** A call the listener's limits ended before its handler ran (call-limits.ts): logged and counted as refused. */
  refused(err: A2AError, path: string, peer: string, openMs: number): void {
    const started = process.hrtime.bigint() - BigInt(Math.round(openMs * 1e6));
    const wire: Wire = { path, status: GRPC_CODES[err.row.grpc], bytesOut: 0 };
    const view: RequestView = {
      host: undefined,
      remoteAddress: peerAddress(peer),
      header: () => undefined,
      grpc: true,
    };
    this.pipeline.rejected({ inbound: 'GRPC', requestId: randomUUID(), started, wire, view }, err);
  }

  /** The services (1.0 and 0.3) with their definitions and handlers, to add to a grpc.Server. */
  services(): Array<{ definition: grpc.ServiceDefinition; handlers: grpc.UntypedServiceImplementation }> {
    return GRPC_DIALECTS.map((d) => this.service(d));
  }

  private service(d: GrpcDialect): { definition: grpc.ServiceDefinition; handlers: grpc.UntypedServiceImplementation } {
    const definition: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {};
    const handlers: grpc.UntypedServiceImplementation = {};
    for (const { rpc, info } of d.rpcs) {
      const path = `/${d.service}/${rpc}`;
      definition[rpc] = {
        path,
        requestStream: false,
        responseStream: info.streaming,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      };
      const encode = (message: Message): Buffer => d.encode(rpc, info, message);
      const m: Rpc = { d, rpc, info, path, writer: { unary: encode, event: encode } };
      handlers[rpc] = info.streaming
        ? (call: grpc.ServerWritableStream<Buffer, Buffer>) => void this.serverStream(m, call)
        : (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
            const wire: Wire = { path, status: 0, bytesOut: 0 };
            const caller = callerOf(call);
            // a unary call's headers go with its answer, so both leave in one write
            this.unary(m, call, wire, caller).then(
              (bytes) => {
                caller.answered = true;
                sendHeaders(call, caller);
                callback(null, bytes);
              },
              (e: unknown) => {
                caller.answered = true;
                sendHeaders(call, caller);
                const status = d.error(asA2AError(e));
                wire.status = status.code ?? 2;
                callback(status as grpc.ServiceError);
              },
            );
          };
    }
    return { definition, handlers };
  }

  private callOf(m: Rpc, call: GrpcCall, wire: Wire, caller: Caller): Call<Buffer> {
    const { d, rpc, info, path } = m;
    const header = headerGetter(call.metadata);
    const view = viewOf(call, header);
    const generation = this.table.generation;
    const bytes = call.request;
    const started = process.hrtime.bigint();
    // the caller's x-request-id when it is a plain token, else one of the gateway's; sent back in the response metadata
    const given = header('x-request-id');
    const requestId = given !== undefined && REQUEST_ID.test(given) ? given : randomUUID();
    caller.requestId = requestId;
    // a stream's headers go in this turn (its events may be a while) but after the upstream call is on its way, off the
    // path to the first event; a unary call's with its answer. A stream answered before then (an error: grpc-js sends
    // its status on the next tick, trailers-only) sends them itself first, or its x-request-id would be lost.
    if (info.streaming) setImmediate(sendHeaders, call, caller);
    const tenant = d.tenant(info, bytes);
    if (tenant === undefined) {
      const err = A2AError.of('PARSE_ERROR', `request is not a valid ${info.requestSchema.name}`);
      this.pipeline.rejected({ inbound: 'GRPC', requestId, started, wire, view, size: bytes.length }, err);
      throw err;
    }
    return {
      inbound: 'GRPC',
      requestId,
      signal: caller.signal,
      view,
      wire,
      started,
      generation,
      candidates: generation.router.grpcCandidates(view.host),
      method: info,
      dialect: d.version,
      tenant,
      request: {
        size: bytes.length,
        decode: (): AnyRequest => d.decode(rpc, info, bytes),
        relay: (target) => relay(path, info.streaming, bytes, target),
      },
      writer: m.writer,
    };
  }

  private async unary(m: Rpc, call: grpc.ServerUnaryCall<Buffer, Buffer>, wire: Wire, caller: Caller): Promise<Buffer> {
    const answer = await this.pipeline.run(this.callOf(m, call, wire, caller));
    if (answer.kind !== 'written' && answer.kind !== 'relayUnary') throw new Error(`unexpected ${answer.kind} answer`);
    const bytes = answer.kind === 'relayUnary' ? answer.bytes : answer.value;
    wire.bytesOut = bytes.length;
    return bytes;
  }

  /**
   * §10.7: each event written as it arrives; the next one pulled only when
   * grpc-js took the last (write() false → wait for 'drain'); a failure at any
   * point ends the call with its status (and, in 1.0, grpc-status-details-bin).
   */
  private async serverStream(m: Rpc, call: grpc.ServerWritableStream<Buffer, Buffer>): Promise<void> {
    const wire: Wire = { path: m.path, status: 0, bytesOut: 0 };
    const caller = callerOf(call);
    try {
      const answer = await this.pipeline.run(this.callOf(m, call, wire, caller));
      if (answer.kind !== 'writtenStream' && answer.kind !== 'relayStream')
        throw new Error(`unexpected ${answer.kind} answer`);
      const messages: AsyncIterable<Buffer> = answer.kind === 'relayStream' ? answer.messages : answer.events;
      for await (const bytes of messages) {
        if (call.cancelled) return;
        sendHeaders(call, caller);
        wire.bytesOut += bytes.length;
        if (!call.write(bytes)) await drained(call, 'cancelled');
      }
      sendHeaders(call, caller);
      caller.answered = true;
      if (!call.cancelled) call.end();
    } catch (e) {
      sendHeaders(call, caller);
      caller.answered = true;
      const status = m.d.error(asA2AError(e));
      wire.status = status.code ?? 2;
      if (!call.cancelled) call.emit('error', status);
    }
  }
}
