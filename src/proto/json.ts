// ProtoJSON (spec §5.5–§5.7) through protobuf-es, the conformance-tested
// codec the generated types in src/gen come with: camelCase names (proto
// names accepted), enums by name, int64 as strings, bytes as base64, Struct
// and Value as plain JSON, unknown fields ignored (§5.7). A value that does
// not fit its field becomes a google.rpc.BadRequest field violation naming the
// field. `anyRegistry` resolves google.protobuf.Any details of google.rpc.Status.
import {
  create,
  createRegistry,
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  type DescField,
  type DescMessage,
  type JsonValue,
  type Message,
  type MessageShape,
} from '@bufbuild/protobuf';
import {
  AnySchema,
  file_google_protobuf_any,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  type Any,
} from '@bufbuild/protobuf/wkt';
import { file_google_rpc_error_details } from '../gen/google/rpc/error_details_pb.js';
import { StatusSchema, type Status } from '../gen/google/rpc/status_pb.js';
import { withRequiredTop } from './required-json.js';
import type { FieldViolation } from './violations.js';

export type Json = JsonValue;
export type JsonObject = { [k: string]: JsonValue };

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every google.rpc error detail type and the well-known types: the Any values a Status may carry. */
export const anyRegistry = createRegistry(
  file_google_rpc_error_details,
  file_google_protobuf_duration,
  file_google_protobuf_timestamp,
  file_google_protobuf_struct,
  file_google_protobuf_any,
  file_google_protobuf_empty,
);

/** Thrown when JSON cannot be read as the message: carries BadRequest violations. */
export class ProtoJsonError extends Error {
  constructor(readonly violations: FieldViolation[]) {
    super(violations.map((v) => `${v.field}: ${v.description}`).join('; '));
  }
}

/**
 * The field a protobuf-es JSON error names: its JSON name for a field of the
 * top-level message ("historyLength"), else "Message.field" ("Part.raw").
 */
function violationOf(schema: DescMessage, json: JsonObject, e: Error, where: string): FieldViolation {
  const cause = e.cause as { field?: () => { kind: string; name: string; jsonName?: string; parent: DescMessage } };
  if (typeof cause?.field !== 'function') {
    // a well-known type's error names its type only ("cannot decode message google.protobuf.Timestamp from JSON: …")
    const wkt = failingWellKnown(schema, json);
    if (!wkt) return { field: where, description: e.message.replace(/^cannot decode .*? from JSON: /, '') };
    return {
      field: wkt.parent === schema ? wkt.jsonName : `${wkt.parent.name}.${wkt.jsonName}`,
      description: e.message,
    };
  }
  const f = cause.field();
  const reason = cause instanceof Error ? cause.message : e.message.replace(/^cannot decode .*? from JSON: /, '');
  const name = f.kind === 'field' ? (f.jsonName ?? f.name) : f.name;
  return { field: f.parent === schema ? name : `${f.parent.name}.${name}`, description: reason };
}

/**
 * The field whose well-known-type value (Timestamp, Struct, Duration…) protobuf-es could not read: its errors name
 * the type, not the field. Searched only once a read has failed.
 */
function failingWellKnown(schema: DescMessage, json: JsonObject): DescField | undefined {
  for (const f of schema.fields) {
    const v = json[f.jsonName] ?? json[f.name];
    if (v === undefined || v === null) continue;
    const sub = f.fieldKind === 'message' || f.fieldKind === 'list' || f.fieldKind === 'map' ? f.message : undefined;
    if (!sub) continue;
    const values = f.fieldKind === 'list' ? [v].flat() : f.fieldKind === 'map' && isObject(v) ? Object.values(v) : [v];
    for (const item of values) {
      if (sub.typeName.startsWith('google.protobuf.')) {
        try {
          fromJson(sub, item, { registry: anyRegistry });
        } catch {
          return f;
        }
      } else if (isObject(item)) {
        const inner = failingWellKnown(sub, item);
        if (inner) return inner;
      }
    }
  }
  return undefined;
}

/**
 * ProtoJSON → message of `schema`; throws ProtoJsonError, naming a failure that is no one field's by `where`
 * ("(request)", or "(response)" and "(event)" for what an agent answered).
 */
export function readJson<Desc extends DescMessage>(
  schema: Desc,
  json: unknown,
  where = '(request)',
): MessageShape<Desc> {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new ProtoJsonError([{ field: where, description: `expected a JSON object (${schema.name})` }]);
  }
  let message: MessageShape<Desc>;
  try {
    message = fromJson(schema, json as JsonValue, { ignoreUnknownFields: true, registry: anyRegistry });
  } catch (e) {
    throw new ProtoJsonError([violationOf(schema, json as JsonObject, e as Error, where)]);
  }
  if (where === '(request)') refuseUnknownEnums(schema, json as JsonObject);
  return message;
}

const topEnums = new WeakMap<DescMessage, DescField[]>();

/**
 * ignoreUnknownFields also drops an enum name protobuf-es does not know, leaving the field at its default: for a
 * caller's `status: "TASK_STATE_RUNNING"` filter that is no filter at all (§3.3.2: validate every input). So a
 * request's top-level enum given by an unknown name is an error naming the field. (The nested enum callers send,
 * Message.role, is REQUIRED: left at its default it is refused as missing.)
 */
function refuseUnknownEnums(schema: DescMessage, json: JsonObject): void {
  let fields = topEnums.get(schema);
  if (!fields) {
    fields = schema.fields.filter((f) => f.fieldKind === 'enum');
    topEnums.set(schema, fields);
  }
  for (const f of fields) {
    if (f.fieldKind !== 'enum') continue;
    const v = json[f.jsonName] ?? json[f.name];
    if (typeof v === 'string' && v !== '' && !f.enum.values.some((e) => e.name === v)) {
      throw new ProtoJsonError([
        { field: f.jsonName, description: `unknown ${f.enum.name} value ${JSON.stringify(v)}` },
      ]);
    }
  }
}

/** Message → ProtoJSON, its top-level REQUIRED fields written even at their default (required-json.ts). */
export function writeJson(schema: DescMessage, message: Message): JsonValue {
  return withRequiredTop(schema, toJson(schema, message, { registry: anyRegistry }));
}

/**
 * Message → ProtoJSON, where what binary holds and JSON cannot write (a Timestamp past year 9999, Infinity in a
 * Struct) is a ProtoJsonError named by `where` ("(request)", "(response)", "(event)").
 */
export function writableJson(schema: DescMessage, message: Message, where: string): JsonValue {
  try {
    return toJson(schema, message);
  } catch (e) {
    throw new ProtoJsonError([{ field: where, description: (e as Error).message }]);
  }
}

/**
 * google.rpc.Status → binary, details packed as Any from their ProtoJSON form
 * ({"@type": …}); a detail of a type this gateway does not know cannot be
 * packed and is left out rather than failing the call.
 */
export function statusToBinary(code: number, message: string, details: readonly JsonObject[]): Uint8Array {
  const packed: Any[] = [];
  for (const d of details) {
    try {
      packed.push(fromJson(AnySchema, d, { registry: anyRegistry }));
    } catch {
      // unknown or malformed detail: not representable as Any
    }
  }
  return toBinary(StatusSchema, create(StatusSchema, { code, message, details: packed }));
}

/** Binary google.rpc.Status → code, message and the details this gateway can read (others dropped). */
export function statusFromBinary(bytes: Uint8Array): { code: number; message: string; details: JsonObject[] } {
  const status: Status = fromBinary(StatusSchema, bytes);
  const details: JsonObject[] = [];
  for (const any of status.details) {
    try {
      details.push(toJson(AnySchema, any, { registry: anyRegistry }) as JsonObject);
    } catch {
      // a detail type this gateway does not know
    }
  }
  return { code: status.code, message: status.message, details };
}
