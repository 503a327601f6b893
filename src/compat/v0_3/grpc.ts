// A2A 0.3 over gRPC (service a2a.v1.A2AService, bridge-0.3-1.0.md §1 inbound
// gRPC, §3): the proto dialect of proto-dialect.ts with the messages in
// binary — a 0.3 caller's request bytes → the 1.0 request, the 1.0 response
// or stream event → 0.3 response bytes, and the reverse toward a 0.3
// upstream — and the 1.0 method a 0.3 gRPC path names.
import { fromBinary, fromJson, toBinary } from '@bufbuild/protobuf';
import { writableJson } from '../../proto/json.js';
import type { AnyRequest, AnyResponse, MethodName } from '../../core/methods.js';
import type { V03Endpoints } from './card.js';
import { resolveMethod, V03_GRPC_SERVICE } from './methods.js';
import {
  requestFromV03Proto,
  requestToV03Proto,
  responseFromV03Proto,
  responseToV03Proto,
  v03Info,
  type ProtoReadOptions,
} from './proto-dialect.js';

/** A 0.3 gRPC request (binary a2a.v1 message) → the 1.0 request. */
export function grpcRequestFromV03(method: string, bytes: Uint8Array, opts?: ProtoReadOptions): AnyRequest {
  const s = v03Info(method).requestSchema;
  return requestFromV03Proto(method, writableJson(s, fromBinary(s, bytes), '(request)'), opts);
}

/** The 1.0 request → a 0.3 gRPC request (binary). */
export function grpcRequestToV03(method: string, request: AnyRequest): Uint8Array {
  const s = v03Info(method).requestSchema;
  return toBinary(s, fromJson(s, requestToV03Proto(method, request)));
}

/** The 1.0 response (or stream event) → a 0.3 gRPC response message (binary). */
export function grpcResponseToV03(
  method: string,
  response: AnyResponse,
  opts?: { endpoints?: V03Endpoints },
): Uint8Array {
  const s = v03Info(method).responseSchema;
  return toBinary(s, fromJson(s, responseToV03Proto(method, response, opts)));
}

/** A 0.3 gRPC response message (or stream event), binary → the 1.0 response. */
export function grpcResponseFromV03(method: string, bytes: Uint8Array): AnyResponse {
  const m = v03Info(method);
  const s = m.responseSchema;
  return responseFromV03Proto(method, writableJson(s, fromBinary(s, bytes), m.streaming ? '(event)' : '(response)'));
}

/** The method a 0.3 gRPC path names ("/a2a.v1.A2AService/TaskSubscription" → SubscribeToTask). */
export function methodOfV03GrpcPath(path: string): MethodName | undefined {
  const prefix = `/${V03_GRPC_SERVICE}/`;
  return path.startsWith(prefix) ? resolveMethod(path.slice(prefix.length)) : undefined;
}
