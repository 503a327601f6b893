// The normalized call every inbound binding produces and every upstream
// client consumes (proto/a2a/gateway/v1/envelope.proto), and its Reply.
// Spec: §3.1 operations, §3.2.6 service parameters, §3.3.2 errors.
import { A2AError } from '../errors/a2a-error.js';
import { EnvelopeType } from '../proto/registry.js';
import type { ProtoObject } from '../proto/protojson.js';
import { methodInfo, METHODS, type MethodName } from './methods.js';

export interface ServiceParameters {
  /** Major.Minor the caller asked for (already validated). */
  version: string;
  extensions: string[];
  /** Lower-case header name → value, forwarded upstream. */
  forwardedHeaders: Record<string, string>;
}

export interface Envelope {
  method: MethodName;
  serviceParameters: ServiceParameters;
  /** The tenant the caller addressed ("" when none). */
  tenant: string;
  /** The typed request message (proto object of the method's request type). */
  request: ProtoObject;
}

/** A unary answer: the typed response, or an error. */
export type Reply = { ok: true; response: ProtoObject } | { ok: false; error: A2AError };

/** The envelope as the protobuf message of envelope.proto. */
export function encodeEnvelope(env: Envelope): Uint8Array {
  const info = methodInfo(env.method);
  return EnvelopeType.encode(
    EnvelopeType.fromObject({
      method: info.enumValue,
      serviceParameters: env.serviceParameters,
      tenant: env.tenant,
      [info.envelopeField]: env.request,
    }),
  ).finish();
}

export function decodeEnvelope(bytes: Uint8Array): Envelope {
  const msg = EnvelopeType.toObject(EnvelopeType.decode(bytes), {
    oneofs: true,
    arrays: true,
    objects: true,
  }) as ProtoObject;
  const info = [...METHODS.values()].find((m) => m.enumValue === msg.method);
  if (!info) throw new Error('envelope without a method');
  const sp = (msg.serviceParameters ?? {}) as Partial<ServiceParameters>;
  return {
    method: info.name,
    serviceParameters: {
      version: sp.version ?? '',
      extensions: sp.extensions ?? [],
      forwardedHeaders: sp.forwardedHeaders ?? {},
    },
    tenant: String(msg.tenant ?? ''),
    request: (msg[info.envelopeField] ?? {}) as ProtoObject,
  };
}
