// gRPC error wire form (spec §10.6): status code + message + a binary
// google.rpc.Status in the `grpc-status-details-bin` trailer. Converts between
// that and the core A2AError, keeping every detail (ErrorInfo, BadRequest, …).
// A status made up on the gateway's side of an upstream call (by grpc-js for
// the pass-through, by upstream/grpc-session.ts for translated calls: no
// connection, deadline, a message over the size limit) is a gateway error
// whose answered text names no address (the full text is logged).
import * as grpc from '@grpc/grpc-js';
import { A2AError, grpcNameOf, nameFromDetails, nameFromGrpc } from '../../errors/a2a-error.js';
import { withoutAddresses } from '../../errors/addresses.js';
import { GRPC_CODES } from '../../errors/catalogue.js';
import { statusFromBinary, statusToBinary, type JsonObject } from '../../proto/json.js';

const DETAILS_KEY = 'grpc-status-details-bin';

/**
 * A status message grpc-js can send: it percent-encodes the text with encodeURI, which throws on a lone UTF-16
 * surrogate (valid in an agent's JSON, "\ud800") inside an event listener, where nothing catches it and the process
 * ends. Lone surrogates become U+FFFD.
 */
export function statusMessage(text: string): string {
  return text.replace(/\p{Cs}/gu, '\ufffd');
}

/** Core error → the object grpc-js sends as a call's error status (a relayed upstream status as it came). */
export function toServiceError(err: A2AError): Partial<grpc.StatusObject> {
  if (err.relayed !== undefined) {
    const relayed = err.relayed as Partial<grpc.StatusObject>;
    return relayed.details === undefined ? relayed : { ...relayed, details: statusMessage(relayed.details) };
  }
  const code = GRPC_CODES[err.row.grpc] as number as grpc.status;
  const metadata = new grpc.Metadata();
  metadata.set(DETAILS_KEY, Buffer.from(statusToBinary(code, err.message, err.details)));
  return { code, details: statusMessage(err.message), metadata };
}

type StatusLike = {
  code?: number;
  details?: string;
  message?: string;
  metadata?: grpc.Metadata;
  refused?: boolean;
  dropped?: 'request' | 'answer';
};

/** grpc-js's own status for a message over grpc.max_receive_message_length. */
const TOO_LARGE = /Received message larger than max/;

/**
 * A status of the upstream call's transport rather than the agent's answer:
 * UNAVAILABLE or DEADLINE_EXCEEDED without status details (grpc-js's, naming
 * the address), or grpc-js's refusal of a message over the size limit.
 */
export function transportStatus(e: StatusLike): A2AError | undefined {
  const text = e.details ?? e.message ?? '';
  if (e.code === GRPC_CODES.RESOURCE_EXHAUSTED && TOO_LARGE.test(text))
    return A2AError.of('INVALID_AGENT_RESPONSE', "the upstream's answer exceeds maxResponseBytes", {
      internal: text,
    });
  if (e.metadata?.get(DETAILS_KEY)[0] !== undefined) return undefined;
  if (e.code === GRPC_CODES.DEADLINE_EXCEEDED)
    return A2AError.of('UPSTREAM_TIMEOUT', withoutAddresses(text), { internal: text });
  if (e.code !== GRPC_CODES.UNAVAILABLE) return undefined;
  const err = A2AError.of('UPSTREAM_UNAVAILABLE', withoutAddresses(text), { internal: text });
  // only a refusal seen here: an agent's own status may name ECONNREFUSED (its backend's), and its call was taken
  err.connectionRefused = e.refused === true;
  // dropped after it was sent, as an HTTP call's reset (an idempotent call is sent once more) or cut answer
  err.connectionReset = e.dropped === 'request';
  err.answerCut = e.dropped === 'answer';
  return err;
}

/** A grpc-js client error (or status) → core error. */
export function fromServiceError(e: StatusLike): A2AError {
  const transport = transportStatus(e);
  if (transport) return transport;
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
  return A2AError.read(name, message, details);
}
