// gRPC error wire form (spec §10.6): status code + message + a binary
// google.rpc.Status in the `grpc-status-details-bin` trailer. Converts between
// that and the core A2AError, keeping every detail (ErrorInfo, BadRequest, …).
import * as grpc from '@grpc/grpc-js';
import { A2AError, grpcNameOf, nameFromDetails, nameFromGrpc } from '../../errors/a2a-error.js';
import { GRPC_CODES } from '../../errors/catalogue.js';
import { statusFromBinary, statusToBinary, type JsonObject } from '../../proto/json.js';

const DETAILS_KEY = 'grpc-status-details-bin';

/** Core error → the object grpc-js sends as a call's error status (a relayed upstream status as it came). */
export function toServiceError(err: A2AError): Partial<grpc.StatusObject> {
  if (err.relayed !== undefined) return err.relayed as Partial<grpc.StatusObject>;
  const code = GRPC_CODES[err.row.grpc] as number as grpc.status;
  const metadata = new grpc.Metadata();
  metadata.set(DETAILS_KEY, Buffer.from(statusToBinary(code, err.message, err.details)));
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
      const status = statusFromBinary(bin);
      details = status.details;
      if (status.message) message = status.message;
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
