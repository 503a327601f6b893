// Protobuf ⇄ ProtoJSON for the tests' raw gRPC callers and fake upstreams,
// with the generated codecs (protobuf-es), independent of the bindings' code.
import { fromBinary, fromJson, toBinary, toJson, type JsonValue } from '@bufbuild/protobuf';
import { methodInfo, type MethodName } from '../../src/core/methods.js';
import { StreamResponseSchema } from '../../src/gen/a2a_pb.js';
import { statusFromBinary, type JsonObject } from '../../src/proto/json.js';

const asBuffer = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** A method's request, from ProtoJSON to protobuf bytes. */
export function requestBytes(method: MethodName, json: JsonObject): Buffer {
  const schema = methodInfo(method).requestSchema;
  return asBuffer(toBinary(schema, fromJson(schema, json as JsonValue, { ignoreUnknownFields: true })));
}

/** A method's response bytes as ProtoJSON. */
export function responseJson(method: MethodName, bytes: Uint8Array): JsonObject {
  const schema = methodInfo(method).responseSchema;
  return toJson(schema, fromBinary(schema, bytes)) as JsonObject;
}

/** A StreamResponse event from ProtoJSON to bytes. */
export function streamEventBytes(json: JsonObject): Buffer {
  return asBuffer(toBinary(StreamResponseSchema, fromJson(StreamResponseSchema, json as JsonValue)));
}

/** A grpc-status-details-bin trailer as {code, message, details}. */
export function statusJson(bin: Uint8Array | undefined): JsonObject {
  if (!bin) return {};
  const s = statusFromBinary(bin);
  return { code: s.code, message: s.message, details: s.details };
}
