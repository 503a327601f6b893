// Reading an upstream's typed answer from ProtoJSON, whatever the HTTP
// binding: JSON that does not fit the method's response type is
// InvalidAgentResponseError (spec §3.3.2), never passed on.
import { create } from '@bufbuild/protobuf';
import { A2AError } from '../errors/a2a-error.js';
import { readJson } from '../proto/json.js';
import type { AnyResponse, MethodInfo } from './methods.js';

export function responseFromJson(info: MethodInfo, json: unknown): AnyResponse {
  if (info.responseSchema.typeName === 'google.protobuf.Empty' && (json === undefined || json === null)) {
    return create(info.responseSchema) as AnyResponse;
  }
  try {
    return readJson(info.responseSchema, json) as AnyResponse;
  } catch (e) {
    throw A2AError.of(
      'INVALID_AGENT_RESPONSE',
      `upstream answered ${info.name} with something that is not a ${info.responseSchema.name}: ${(e as Error).message}`,
    );
  }
}
