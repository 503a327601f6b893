// String length limit (issue: "JSON nesting depth and string length limits";
// spec §13.2 content MUST be validated): every string in a decoded request —
// ids, texts, metadata values, Struct strings and map keys — is at most the
// route's `maxStringLength` characters, checked in the core so that every
// inbound binding refuses the same way (InvalidParams with the field path).
// Bytes fields (`raw`) are Uint8Arrays here and are bounded by the body
// limit instead. Nesting depth is bounded where it can grow: Struct/Value
// (32 levels, src/proto/well-known.ts); messages nest only as a2a.proto says.
import type { ProtoObject } from '../proto/protojson.js';
import type { FieldViolation } from '../proto/violations.js';

/** At most this many violations are reported (the first ones found). */
const MAX_REPORTED = 5;

export function stringLengthViolations(request: ProtoObject, max: number): FieldViolation[] {
  const out: FieldViolation[] = [];
  const stack: Array<[unknown, string]> = [[request, '']];
  while (stack.length > 0 && out.length < MAX_REPORTED) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.length > max)
        out.push({
          field: path || '(request)',
          description: `string of ${value.length} characters exceeds the limit of ${max}`,
        });
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push([v, `${path}[${i}]`]));
    } else if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
      for (const [k, v] of Object.entries(value)) {
        const at = path ? `${path}.${k}` : k;
        if (k.length > max)
          out.push({
            field: at.slice(0, 200),
            description: `key of ${k.length} characters exceeds the limit of ${max}`,
          });
        stack.push([v, at]);
      }
    }
  }
  return out;
}
