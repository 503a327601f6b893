// Turning a caller's request into the envelope's typed request, the same for
// every binding: ProtoJSON (or already-decoded protobuf) checked against
// a2a.proto's REQUIRED fields (§5.7). Failures are InvalidParams with
// google.rpc.BadRequest field violations (§3.3.2, §9.5).
import { A2AError } from '../errors/a2a-error.js';
import { fromJson, ProtoJsonError, type ProtoObject } from '../proto/protojson.js';
import type { MethodInfo } from './methods.js';
import { requiredViolations } from './validate.js';

export function checkRequired(info: MethodInfo, request: ProtoObject): ProtoObject {
  const violations = requiredViolations(info.requestType, request);
  if (violations.length > 0) throw A2AError.invalidParams(violations);
  return request;
}

export function requestFromJson(info: MethodInfo, json: unknown): ProtoObject {
  if (json !== undefined && (json === null || typeof json !== 'object' || Array.isArray(json))) {
    throw A2AError.invalidParams([{ field: 'params', description: `expected an object (${info.requestType.name})` }]);
  }
  try {
    return checkRequired(info, fromJson(info.requestType, json ?? {}));
  } catch (e) {
    if (e instanceof ProtoJsonError) throw A2AError.invalidParams(e.violations);
    throw e;
  }
}
