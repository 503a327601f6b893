// What both sides of the gRPC binding share (spec §10): the service name
// (lf.a2a.v1.A2AService), identity serializers (bytes are decoded and encoded
// by the generated codecs, not by grpc-js), and reading a request's `tenant`
// from its bytes without decoding it, so a call is routed — and
// authenticated — before its request is read.
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { A2AService } from '../../gen/a2a_pb.js';
import type { MethodInfo } from '../../core/methods.js';

export const A2A_SERVICE = A2AService.typeName;

export const identity = (b: Buffer): Buffer => b;

const tenantFields = new Map<string, number>();

/**
 * The request's `tenant` field read from its wire bytes (the last occurrence
 * wins, as a decoder reads it); "" when absent; undefined when the bytes are
 * not a protobuf message at all, or carry the tenant's field number with
 * another wire type: decoders differ on that (protobuf-es reads it as a
 * string all the same), so the route chosen here could name another tenant
 * than the one a pass-through's agent reads.
 */
export function peekTenant(info: MethodInfo, bytes: Uint8Array): string | undefined {
  let no = tenantFields.get(info.name);
  if (no === undefined) {
    no = info.requestSchema.fields.find((f) => f.name === 'tenant')?.number ?? 0;
    tenantFields.set(info.name, no);
  }
  let tenant = '';
  try {
    const reader = new BinaryReader(bytes);
    while (reader.pos < reader.len) {
      const [field, wire] = reader.tag();
      if (field !== no) reader.skip(wire, field);
      else if (wire === WireType.LengthDelimited) tenant = reader.string();
      else return undefined;
    }
  } catch {
    return undefined;
  }
  return tenant;
}
