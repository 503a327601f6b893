// Reading an upstream's typed answer from ProtoJSON, whatever the HTTP
// binding: JSON that does not fit the method's response type, or (for any
// A2A version's dialect) that holds what cannot be written back (a number
// past a double's range), is InvalidAgentResponseError (spec §3.3.2), never
// passed on. A large `raw` part left in the answer's body is decoded there
// (proto/json-in.ts).
import { create } from '@bufbuild/protobuf';
import { A2AError } from '../errors/a2a-error.js';
import { NO_LONG_STRINGS, type LongStrings } from '../proto/json-in.js';
import type { AnyResponse, MethodInfo } from './methods.js';
import { answerViolations } from './validate.js';

/** `json` read as the method's response; `strings`: the long strings left out of its parse (large bytes decoded in place). */
export function responseFromJson(info: MethodInfo, json: unknown, strings: LongStrings = NO_LONG_STRINGS): AnyResponse {
  if (info.responseSchema.typeName === 'google.protobuf.Empty' && (json === undefined || json === null)) {
    return create(info.responseSchema) as AnyResponse;
  }
  try {
    return strings.read(info.responseSchema, json) as AnyResponse;
  } catch (e) {
    throw A2AError.of(
      'INVALID_AGENT_RESPONSE',
      `upstream answered ${info.name} with something that is not a ${info.responseSchema.name}: ${(e as Error).message}`,
    );
  }
}

/**
 * The answer (or stream event) as read, once it holds nothing JSON cannot write back: JSON reads a number past a
 * double's range (1e999) as Infinity in a Struct; binary holds a Timestamp out of range or a NaN. Run by the HTTP
 * clients on what any dialect read and by the 1.0 gRPC client (a 0.3 gRPC answer is written to JSON on its way in).
 */
export function writableAnswer<T extends object>(info: MethodInfo, response: T): T {
  const bad = answerViolations(info.responseSchema, response)[0];
  if (bad) {
    throw A2AError.of('INVALID_AGENT_RESPONSE', `upstream answered ${info.name} with ${bad.field}: ${bad.description}`);
  }
  return response;
}
