// Required-field validation (spec §5.7): fields marked
// `(google.api.field_behavior) = REQUIRED` in a2a.proto must be set, and
// required repeated fields must hold at least one element. Produces
// google.rpc.BadRequest field violations with camelCase paths.
import protobuf from 'protobufjs';
import { isRequiredField, type ProtoObject } from '../proto/protojson.js';
import type { FieldViolation } from '../proto/violations.js';

function isUnset(f: protobuf.Field, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (f.repeated) return Array.isArray(v) ? v.length === 0 : Object.keys(v as object).length === 0;
  if (f.resolvedType instanceof protobuf.Type) return false;
  if (v instanceof Uint8Array) return v.length === 0;
  return v === '' || v === 0 || v === false;
}

function walk(
  type: protobuf.Type,
  obj: ProtoObject,
  path: string,
  skip: ReadonlySet<string>,
  out: FieldViolation[],
): void {
  for (const f of type.fieldsArray) {
    const fpath = path ? `${path}.${f.name}` : f.name;
    const v = obj[f.name];
    if (isRequiredField(f) && !skip.has(fpath) && isUnset(f, v)) {
      out.push({ field: fpath, description: `${fpath} is required` });
      continue;
    }
    const rt = f.resolvedType;
    if (!(rt instanceof protobuf.Type) || v == null || rt.fullName.startsWith('.google.protobuf.')) continue;
    if (f instanceof protobuf.MapField) {
      for (const [k, mv] of Object.entries(v as ProtoObject))
        walk(rt, mv as ProtoObject, `${fpath}[${JSON.stringify(k)}]`, skip, out);
    } else if (f.repeated) {
      (v as ProtoObject[]).forEach((item, i) => walk(rt, item, `${fpath}[${i}]`, skip, out));
    } else {
      walk(rt, v as ProtoObject, fpath, skip, out);
    }
  }
}

/** Every REQUIRED field missing in `obj`; `skip` names paths filled elsewhere. */
export function requiredViolations(
  type: protobuf.Type,
  obj: ProtoObject,
  skip: ReadonlySet<string> = new Set(),
): FieldViolation[] {
  const out: FieldViolation[] = [];
  walk(type, obj, '', skip, out);
  return out;
}
