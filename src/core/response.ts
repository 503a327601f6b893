// Reading an upstream's typed answer, whatever the binding: ProtoJSON that
// does not fit the method's response type is InvalidAgentResponseError
// (spec §3.3.2), never passed on.
import { A2AError } from '../errors/a2a-error.js';
import { fromJson, ProtoJsonError, type ProtoObject } from '../proto/protojson.js';
import type { MethodInfo } from './methods.js';

export function responseFromJson(info: MethodInfo, json: unknown): ProtoObject {
  if (info.responseType.fullName === '.google.protobuf.Empty' && (json === undefined || json === null)) return {};
  try {
    return fromJson(info.responseType, json);
  } catch (e) {
    const why = e instanceof ProtoJsonError ? e.message : (e as Error).message;
    throw A2AError.of(
      'INVALID_AGENT_RESPONSE',
      `upstream answered ${info.name} with something that is not a ${info.responseType.name}: ${why}`,
    );
  }
}
