// The two A2A services the gateway's gRPC port serves (spec §10; bridge §1,
// §3, §7): `lf.a2a.v1.A2AService` (1.0) and, for 0.3 callers,
// `a2a.v1.A2AService` (0.3 proto, its own method names such as
// TaskSubscription and GetAgentCard). Each says how its request bytes become
// the 1.0 request (1.0: the generated codec; 0.3: through the bridge), how an
// answer is written (1.0: a large raw part copied once into it, not
// re-encoded: proto/binary-chunks.ts), what tenant the bytes address (0.3
// has none) and how an error goes out (1.0: status + grpc-status-details-bin;
// 0.3: the 0.3 status table, message only).
import type * as grpc from '@grpc/grpc-js';
import { fromBinary, type Message } from '@bufbuild/protobuf';
import { grpcCodeToV03, v03Message } from '../../compat/v0_3/errors.js';
import { grpcRequestFromV03, grpcResponseToV03 } from '../../compat/v0_3/grpc.js';
import { V03_GRPC_SERVICE, V03_METHODS } from '../../compat/v0_3/methods.js';
import type { ProtocolVersion } from '../../config/types.js';
import { METHODS, methodInfo, type AnyRequest, type AnyResponse, type MethodInfo } from '../../core/methods.js';
import { A2AError } from '../../errors/a2a-error.js';
import { concatChunks, toBinaryChunks } from '../../proto/binary-chunks.js';
import { ProtoJsonError } from '../../proto/json.js';
import type { Msg } from '../../proto/large-bytes.js';
import { A2A_SERVICE, peekTenant } from './service.js';
import { statusMessage, toServiceError } from './status.js';

export interface GrpcDialect {
  version: ProtocolVersion;
  service: string;
  /** The service's rpc names and the 1.0 method each one is. */
  rpcs: Array<{ rpc: string; info: MethodInfo }>;
  /** The tenant the request addresses ("" when none), undefined when the bytes are no message. */
  tenant(info: MethodInfo, bytes: Buffer): string | undefined;
  decode(rpc: string, info: MethodInfo, bytes: Buffer): AnyRequest;
  encode(rpc: string, info: MethodInfo, answer: Message): Buffer;
  error(err: A2AError): Partial<grpc.StatusObject>;
}

const asBuffer = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

function parseError(name: string, e: unknown): A2AError {
  return A2AError.of('PARSE_ERROR', `request is not a valid ${name}: ${(e as Error).message}`);
}

export const GRPC_DIALECTS: readonly GrpcDialect[] = [
  {
    version: '1.0',
    service: A2A_SERVICE,
    rpcs: [...METHODS.values()].map((info) => ({ rpc: info.name, info })),
    tenant: peekTenant,
    decode: (_rpc, info, bytes) => {
      try {
        return fromBinary(info.requestSchema, bytes) as AnyRequest;
      } catch (e) {
        throw parseError(info.requestSchema.name, e);
      }
    },
    encode: (_rpc, info, answer) => concatChunks(toBinaryChunks(info.responseSchema, answer as unknown as Msg)),
    error: toServiceError,
  },
  {
    version: '0.3',
    service: V03_GRPC_SERVICE,
    rpcs: [...V03_METHODS.values()].map((m) => ({ rpc: m.grpc, info: methodInfo(m.method) })),
    tenant: () => '',
    decode: (rpc, info, bytes) => {
      try {
        return grpcRequestFromV03(rpc, bytes, { proto3Blocking: true }); // absent `blocking` = return at once (proto3)
      } catch (e) {
        if (e instanceof A2AError) throw e;
        if (e instanceof ProtoJsonError) throw A2AError.invalidParams(e.violations); // read, but not a valid request
        throw parseError(`0.3 ${info.name} request`, e);
      }
    },
    encode: (rpc, _info, answer) => asBuffer(grpcResponseToV03(rpc, answer as AnyResponse)),
    error: (err) =>
      err.relayed !== undefined
        ? toServiceError(err)
        : { code: grpcCodeToV03(err), details: statusMessage(v03Message(err)) },
  },
];
