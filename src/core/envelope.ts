// The normalized call every inbound binding produces and every upstream
// client consumes: the generated a2a.gateway.v1.Envelope message
// (proto/a2a/gateway/v1/envelope.proto) — the Method, the service parameters
// (§3.2.6), the tenant the caller addressed and the typed request in the
// `request` oneof. Spec: §3.1 operations, §3.2.6 service parameters.
import { toBinary, fromBinary } from '@bufbuild/protobuf';
import {
  EnvelopeSchema,
  type Envelope as GeneratedEnvelope,
  type ServiceParameters,
} from '../gen/a2a/gateway/v1/envelope_pb.js';
import { methodByEnum, type AnyRequest, type MethodInfo } from './methods.js';

export type { ServiceParameters };

/** An envelope as the core builds it: service parameters always present. */
export type Envelope = GeneratedEnvelope & { serviceParameters: ServiceParameters };

export function serviceParameters(
  version: string,
  extensions: string[],
  forwardedHeaders: Record<string, string>,
): ServiceParameters {
  return { $typeName: 'a2a.gateway.v1.ServiceParameters', version, extensions, forwardedHeaders };
}

/** The envelope of one call (no copy of the request). */
export function envelopeOf(info: MethodInfo, request: AnyRequest, tenant: string, sp: ServiceParameters): Envelope {
  return {
    $typeName: 'a2a.gateway.v1.Envelope',
    method: info.enumValue,
    serviceParameters: sp,
    tenant,
    request: { case: info.envelopeCase, value: request } as GeneratedEnvelope['request'],
  };
}

/** The typed request an envelope carries. */
export function requestOf(env: Envelope): AnyRequest {
  const r = env.request.value;
  if (!r) throw new Error('envelope without a request');
  return r;
}

export function methodOf(env: Envelope): MethodInfo {
  const m = methodByEnum(env.method);
  if (!m) throw new Error(`envelope with an unknown method ${env.method}`);
  return m;
}

/** The envelope as protobuf bytes, and back (what crosses process boundaries, e.g. in tests). */
export function encodeEnvelope(env: Envelope): Uint8Array {
  return toBinary(EnvelopeSchema, env);
}

export function decodeEnvelope(bytes: Uint8Array): Envelope {
  const env = fromBinary(EnvelopeSchema, bytes);
  return {
    ...env,
    serviceParameters: env.serviceParameters ?? serviceParameters('', [], {}),
  };
}
