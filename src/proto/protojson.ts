// ProtoJSON for the A2A data model, written once over protobufjs reflection.
// Spec: specification.md §5.5 (camelCase names, enums by name), §5.6
// (timestamps), §5.7 (presence) and the ProtoJSON mapping: int64 as strings,
// bytes as base64 (URL-safe accepted), Struct/Value/ListValue as plain JSON,
// oneofs as their member name, unknown fields ignored.
//
// The in-memory form ("proto object") is what protobufjs encodes: camelCase
// keys, enums as numbers, bytes as Uint8Array, maps as plain objects.
import protobuf from 'protobufjs';
import { wellKnownFromJson, wellKnownToJson, isWellKnown } from './well-known.js';
import type { FieldViolation } from './violations.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };
export type ProtoObject = { [k: string]: unknown };

/** Thrown when JSON cannot be read as the message: carries BadRequest violations. */
export class ProtoJsonError extends Error {
  constructor(readonly violations: FieldViolation[]) {
    super(violations.map((v) => `${v.field}: ${v.description}`).join('; '));
  }
}

interface FieldIndex {
  byName: Map<string, protobuf.Field>;
}
const indexCache = new WeakMap<protobuf.Type, FieldIndex>();

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function fieldIndex(type: protobuf.Type): FieldIndex {
  let idx = indexCache.get(type);
  if (!idx) {
    const byName = new Map<string, protobuf.Field>();
    for (const f of type.fieldsArray) {
      byName.set(f.name, f);
      byName.set(snake(f.name), f);
    }
    idx = { byName };
    indexCache.set(type, idx);
  }
  return idx;
}

const INT32 = new Set(['int32', 'sint32', 'sfixed32']);
const UINT32 = new Set(['uint32', 'fixed32']);
const INT64 = new Set(['int64', 'sint64', 'sfixed64', 'uint64', 'fixed64']);

function joinPath(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

export function decodeBase64(s: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/\-_]*={0,2}$/.test(s)) return undefined;
  const std = s.replace(/-/g, '+').replace(/_/g, '/');
  if (std.replace(/=+$/, '').length % 4 === 1) return undefined;
  return new Uint8Array(Buffer.from(std, 'base64'));
}

function scalarFromJson(f: protobuf.Field, v: Json, path: string, out: FieldViolation[]): unknown {
  const bad = (what: string): undefined => {
    out.push({ field: path, description: `expected ${what}` });
    return undefined;
  };
  const t = f.type;
  if (t === 'string') return typeof v === 'string' ? v : bad('a string');
  if (t === 'bool') return typeof v === 'boolean' ? v : bad('a boolean');
  if (t === 'bytes') {
    if (typeof v !== 'string') return bad('base64 bytes');
    return decodeBase64(v) ?? bad('base64 bytes');
  }
  if (t === 'double' || t === 'float') {
    if (typeof v === 'number') return v;
    if (v === 'NaN') return NaN;
    if (v === 'Infinity') return Infinity;
    if (v === '-Infinity') return -Infinity;
    if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
    return bad('a number');
  }
  if (INT32.has(t) || UINT32.has(t)) {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
    const min = UINT32.has(t) ? 0 : -2147483648;
    const max = UINT32.has(t) ? 4294967295 : 2147483647;
    if (!Number.isInteger(n) || n < min || n > max) return bad(`an integer (${t})`);
    return n;
  }
  if (INT64.has(t)) {
    const s = typeof v === 'number' && Number.isInteger(v) ? String(v) : v;
    if (typeof s !== 'string' || !/^-?\d+$/.test(s)) return bad(`an integer (${t})`);
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : s; // protobufjs writes int64 from a decimal string
  }
  return bad(t);
}

function enumFromJson(e: protobuf.Enum, v: Json, path: string, out: FieldViolation[]): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string') {
    const n = e.values[v];
    if (n !== undefined) return n;
  }
  out.push({ field: path, description: `expected one of ${Object.keys(e.values).join(', ')}` });
  return undefined;
}

function valueFromJson(f: protobuf.Field, v: Json, path: string, out: FieldViolation[]): unknown {
  const rt = f.resolvedType;
  if (rt instanceof protobuf.Enum) return enumFromJson(rt, v, path, out);
  if (rt instanceof protobuf.Type) return messageFromJson(rt, v, path, out);
  return scalarFromJson(f, v, path, out);
}

function messageFromJson(
  type: protobuf.Type,
  json: Json,
  path: string,
  out: FieldViolation[],
): ProtoObject | undefined {
  if (isWellKnown(type)) {
    try {
      return wellKnownFromJson(type, json, (t, j) => messageFromJson(t, j, path, out));
    } catch (e) {
      out.push({ field: path || type.name, description: (e as Error).message });
      return undefined;
    }
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    out.push({ field: path || type.name, description: `expected an object (${type.name})` });
    return undefined;
  }
  const idx = fieldIndex(type);
  const obj: ProtoObject = {};
  const oneofSeen = new Map<string, string>();
  for (const [key, raw] of Object.entries(json)) {
    const f = idx.byName.get(key);
    if (!f) continue; // §5.7: unrecognized fields are ignored
    const fpath = joinPath(path, f.name);
    if (
      raw === null &&
      !(f.resolvedType instanceof protobuf.Type && f.resolvedType.fullName === '.google.protobuf.Value')
    )
      continue;
    if (f.partOf && !f.partOf.name.startsWith('_')) {
      const prev = oneofSeen.get(f.partOf.name);
      if (prev) out.push({ field: fpath, description: `only one of ${prev} and ${f.name} may be set` });
      oneofSeen.set(f.partOf.name, f.name);
    }
    if (f instanceof protobuf.MapField) {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
        out.push({ field: fpath, description: 'expected an object (map)' });
        continue;
      }
      const m: ProtoObject = {};
      for (const [k, mv] of Object.entries(raw)) {
        const val = valueFromJson(f, mv, `${fpath}[${JSON.stringify(k)}]`, out);
        if (val !== undefined) m[k] = val;
      }
      obj[f.name] = m;
    } else if (f.repeated) {
      if (!Array.isArray(raw)) {
        out.push({ field: fpath, description: 'expected an array' });
        continue;
      }
      obj[f.name] = raw.map((item, i) => valueFromJson(f, item, `${fpath}[${i}]`, out));
    } else {
      const val = valueFromJson(f, raw, fpath, out);
      if (val !== undefined) obj[f.name] = val;
    }
  }
  return obj;
}

/** ProtoJSON → proto object. Throws ProtoJsonError naming every bad field. */
export function fromJson(type: protobuf.Type, json: unknown, path = ''): ProtoObject {
  const out: FieldViolation[] = [];
  const obj = messageFromJson(type, json as Json, path, out);
  if (out.length > 0 || !obj) throw new ProtoJsonError(out);
  return obj;
}

function isDefault(f: protobuf.Field, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (f.resolvedType instanceof protobuf.Type) return false;
  if (v instanceof Uint8Array) return v.length === 0;
  if (typeof v === 'object' && 'low' in v && 'high' in v)
    return (v as { low: number; high: number }).low === 0 && (v as { high: number }).high === 0;
  return v === 0 || v === '' || v === false;
}

/** A REQUIRED field's value when it is absent: its proto3 default. */
function defaultOf(f: protobuf.Field): unknown {
  if (f instanceof protobuf.MapField) return {};
  if (f.repeated) return [];
  if (f.resolvedType instanceof protobuf.Type) return {};
  if (f.resolvedType instanceof protobuf.Enum) return 0;
  if (f.type === 'bytes') return new Uint8Array();
  if (f.type === 'bool') return false;
  if (f.type === 'string') return '';
  return 0;
}

function scalarToJson(f: protobuf.Field, v: unknown): Json {
  const rt = f.resolvedType;
  if (rt instanceof protobuf.Enum) return rt.valuesById[v as number] ?? (v as number);
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
  if (INT64.has(f.type))
    return typeof v === 'object' && v !== null ? (v as { toString(): string }).toString() : String(v);
  if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  return v as Json;
}

function valueToJson(f: protobuf.Field, v: unknown, opts: ToJsonOptions): Json {
  const rt = f.resolvedType;
  if (rt instanceof protobuf.Type) return toJson(rt, v as ProtoObject, opts);
  return scalarToJson(f, v);
}

function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** `(google.api.field_behavior) = REQUIRED` (spec §5.7). */
export function isRequiredField(f: protobuf.Field): boolean {
  const fb = f.options?.['(google.api.field_behavior)'] as unknown;
  return fb === 'REQUIRED' || (Array.isArray(fb) && fb.includes('REQUIRED'));
}

export interface ToJsonOptions {
  /** Write REQUIRED fields even at their default value (the §8.4.1 canonical form). */
  keepRequired?: boolean;
}

/** Proto object (or decoded protobufjs message) → ProtoJSON. */
export function toJson(type: protobuf.Type, obj: ProtoObject, opts: ToJsonOptions = {}): Json {
  if (isWellKnown(type)) return wellKnownToJson(type, obj, (t, o) => toJson(t, o, opts));
  const out: JsonObject = {};
  for (const f of type.fieldsArray) {
    const keep = opts.keepRequired === true && isRequiredField(f);
    const v = hasOwn(obj, f.name) ? obj[f.name] : keep ? defaultOf(f) : undefined;
    if (v === undefined || v === null) continue;
    if (f instanceof protobuf.MapField) {
      const entries = Object.entries(v as ProtoObject);
      if (entries.length === 0 && !keep) continue;
      const m: JsonObject = {};
      for (const [k, mv] of entries) m[k] = valueToJson(f, mv, opts);
      out[f.name] = m;
    } else if (f.repeated) {
      const arr = v as unknown[];
      if (arr.length === 0 && !keep) continue;
      out[f.name] = arr.map((item) => valueToJson(f, item, opts));
    } else if (f.partOf) {
      // oneof member or proto3 `optional`: presence is explicit, defaults kept.
      out[f.name] = valueToJson(f, v, opts);
    } else if (keep || !isDefault(f, v)) {
      out[f.name] = valueToJson(f, v, opts);
    }
  }
  return out;
}
