// gRPC error wire form (spec §10.6): status code + message + a binary
// google.rpc.Status in the `grpc-status-details-bin` trailer. Converts between
// that and the core A2AError, keeping every detail (ErrorInfo, BadRequest, …).
import * as grpc from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import { A2AError, grpcNameOf, nameFromDetails, nameFromGrpc } from '../../errors/a2a-error.js';
import { GRPC_CODES } from '../../errors/catalogue.js';
import { fromJson, toJson, type JsonObject, type ProtoObject } from '../../proto/protojson.js';
import { StatusType } from '../../proto/registry.js';

export const DETAILS_KEY = 'grpc-status-details-bin';

export function grpcCodeOf(err: A2AError): grpc.status {
  return GRPC_CODES[err.row.grpc] as number as grpc.status;
}

/** Core error → the object grpc-js sends as a call's error status. */
export function toServiceError(err: A2AError): Partial<grpc.StatusObject> {
  const code = grpcCodeOf(err);
  // A detail whose "@type" this gateway does not know cannot be packed into a
  // binary Any; it is left out of the trailer rather than failing the call.
  const AnyType = StatusType.fields.details!.resolvedType as protobuf.Type;
  const details = err.details.filter((d) => {
    try {
      fromJson(AnyType, d);
      return true;
    } catch {
      return false;
    }
  });
  const status = fromJson(StatusType, { code, message: err.message, details });
  const metadata = new grpc.Metadata();
  metadata.set(DETAILS_KEY, Buffer.from(StatusType.encode(StatusType.fromObject(status)).finish()));
  return { code, details: err.message, metadata };
}

/** A grpc-js client error (or status) → core error. */
export function fromServiceError(e: {
  code?: number;
  details?: string;
  message?: string;
  metadata?: grpc.Metadata;
}): A2AError {
  const code = typeof e.code === 'number' ? e.code : GRPC_CODES.UNKNOWN;
  let details: JsonObject[] = [];
  let message = e.details ?? e.message ?? '';
  const bin = e.metadata?.get(DETAILS_KEY)[0];
  if (bin instanceof Buffer) {
    try {
      const status = toJson(StatusType, StatusType.decode(bin) as unknown as ProtoObject) as JsonObject;
      details = (status.details as JsonObject[] | undefined) ?? [];
      if (typeof status.message === 'string' && status.message) message = status.message;
    } catch {
      details = [];
    }
  }
  const name = nameFromDetails(details) ?? nameFromGrpc(grpcNameOf(code));
  const err = A2AError.read(name, message, details);
  // grpc-js reports a refused connection only in the UNAVAILABLE status text
  err.connectionRefused = code === GRPC_CODES.UNAVAILABLE && /ECONNREFUSED/.test(message);
  return err;
}
