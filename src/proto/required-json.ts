// REQUIRED fields (a2a.proto's google.api.field_behavior) in ProtoJSON at
// their default value. ProtoJSON leaves out a field at its default, but the
// spec wants some of them written: §3.1.4's ListTasksResponse "MUST always"
// carry `nextPageToken` ("" on the last page), and `tasks`, `pageSize` and
// `totalSize` are REQUIRED beside it; §8.4.1 signs cards with every REQUIRED
// field present. `requiredDefaults` lists, once per message type, the
// REQUIRED fields ProtoJSON would leave out (scalars, enums, lists, maps: a
// message field is either set or absent, never "at its default"), so the
// answer's top level is completed without a walk.
import { getOption, type DescField, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { FieldBehavior, field_behavior } from '../gen/google/api/field_behavior_pb.js';

export function isRequired(f: DescField): boolean {
  return getOption(f, field_behavior).includes(FieldBehavior.REQUIRED);
}

/** A field's ProtoJSON at its default value. */
export function defaultJson(f: DescField): JsonValue {
  if (f.fieldKind === 'list') return [];
  if (f.fieldKind === 'map' || f.fieldKind === 'message') return {};
  if (f.fieldKind === 'enum') return f.enum.values.find((v) => v.number === 0)?.name ?? 0;
  if (f.scalar === 8) return false; // BOOL
  if (f.scalar === 9 || f.scalar === 12) return ''; // STRING, BYTES
  // 64-bit integers are strings in ProtoJSON (INT64, UINT64, FIXED64, SFIXED64, SINT64)
  if (f.scalar === 3 || f.scalar === 4 || f.scalar === 6 || f.scalar === 16 || f.scalar === 18) return '0';
  return 0;
}

type Defaults = ReadonlyArray<readonly [string, JsonValue]>;
const compiled = new WeakMap<DescMessage, Defaults>();

/** The REQUIRED fields of `schema` that ProtoJSON leaves out at their default, with that default (once per type). */
function requiredDefaults(schema: DescMessage): Defaults {
  let d = compiled.get(schema);
  if (!d) {
    d = schema.fields
      .filter((f) => f.fieldKind !== 'message' && f.oneof === undefined && isRequired(f))
      .map((f) => [f.jsonName, defaultJson(f)] as const);
    compiled.set(schema, d);
  }
  return d;
}

/** `json` (the ProtoJSON of a `schema` message) with its top-level REQUIRED fields written even at their default. */
export function withRequiredTop(schema: DescMessage, json: JsonValue): JsonValue {
  const d = requiredDefaults(schema);
  if (d.length === 0 || json === null || typeof json !== 'object' || Array.isArray(json)) return json;
  for (const [name, value] of d) {
    if (json[name] === undefined) json[name] = Array.isArray(value) ? [] : typeof value === 'object' ? {} : value;
  }
  return json;
}
