// ProtoJSON forms of the google.protobuf well-known types the A2A model and
// the error model use: Timestamp (RFC 3339, 'Z'), Duration ("1.5s"),
// Struct/Value/ListValue (plain JSON), Empty ({}), Any ({"@type": …}).
// Spec: specification.md §5.6.1; ProtoJSON mapping.
import protobuf from 'protobufjs';
import type { Json, JsonObject, ProtoObject } from './protojson.js';

type Recurse<T> = (type: protobuf.Type, value: T) => unknown;

const WKT = new Set([
  '.google.protobuf.Timestamp',
  '.google.protobuf.Duration',
  '.google.protobuf.Struct',
  '.google.protobuf.Value',
  '.google.protobuf.ListValue',
  '.google.protobuf.Empty',
  '.google.protobuf.Any',
]);

export function isWellKnown(type: protobuf.Type): boolean {
  return WKT.has(type.fullName);
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:\d{2})$/;

function timestampFromJson(v: Json): ProtoObject {
  const m = typeof v === 'string' ? RFC3339.exec(v) : null;
  if (!m) throw new Error('expected an RFC 3339 timestamp such as 2025-10-28T10:30:00.000Z');
  const [, y, mo, d, h, mi, s, frac = '', zone = 'Z'] = m;
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms)) throw new Error('invalid timestamp');
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  return { seconds: Math.floor(ms / 1000), nanos: Number(frac.padEnd(9, '0')) };
}

function fraction(nanos: number): string {
  if (nanos === 0) return '';
  if (nanos % 1_000_000 === 0) return `.${String(nanos / 1_000_000).padStart(3, '0')}`;
  if (nanos % 1000 === 0) return `.${String(nanos / 1000).padStart(6, '0')}`;
  return `.${String(nanos).padStart(9, '0')}`;
}

function timestampToJson(o: ProtoObject): Json {
  const seconds = int64(o.seconds);
  const nanos = Number(o.nanos ?? 0);
  const iso = new Date(seconds * 1000).toISOString(); // YYYY-MM-DDTHH:mm:ss.sssZ
  return `${iso.slice(0, 19)}${fraction(nanos)}Z`;
}

function durationFromJson(v: Json): ProtoObject {
  const m = typeof v === 'string' ? /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(v) : null;
  if (!m) throw new Error('expected a duration such as "1.5s"');
  const sign = m[1] ? -1 : 1;
  return { seconds: sign * Number(m[2]), nanos: sign * Number((m[3] ?? '').padEnd(9, '0')) };
}

function durationToJson(o: ProtoObject): Json {
  const seconds = int64(o.seconds);
  const nanos = Number(o.nanos ?? 0);
  const neg = seconds < 0 || nanos < 0;
  return `${neg ? '-' : ''}${Math.abs(seconds)}${fraction(Math.abs(nanos))}s`;
}

/**
 * protobufjs's bundled descriptors of the well-known types keep proto field
 * names (null_value, type_url); ours are camelCase. Resolve the real name once.
 */
function fieldName(typeName: string, camelName: string): string {
  const type = wktRoot?.lookupType(typeName);
  if (!type || type.fields[camelName]) return camelName;
  return camelName.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
let wktRoot: protobuf.Root | undefined;
const V = { null: '', number: '', string: '', bool: '', list: '', struct: '' };
const A = { url: '', value: '' };
/** Called once by the registry after loading. */
export function bindWellKnownNames(root: protobuf.Root): void {
  wktRoot = root;
  V.null = fieldName('google.protobuf.Value', 'nullValue');
  V.number = fieldName('google.protobuf.Value', 'numberValue');
  V.string = fieldName('google.protobuf.Value', 'stringValue');
  V.bool = fieldName('google.protobuf.Value', 'boolValue');
  V.list = fieldName('google.protobuf.Value', 'listValue');
  V.struct = fieldName('google.protobuf.Value', 'structValue');
  A.url = fieldName('google.protobuf.Any', 'typeUrl');
  A.value = fieldName('google.protobuf.Any', 'value');
}

/** Struct/Value nesting the gateway accepts: deeper JSON is a caller's mistake, not a stack overflow. */
export const MAX_STRUCT_DEPTH = 32; // each level is two protobuf messages; protobufjs stops at 100

function valueFromJson(v: Json, depth = 0): ProtoObject {
  if (depth > MAX_STRUCT_DEPTH) throw new Error(`JSON nested deeper than ${MAX_STRUCT_DEPTH} levels`);
  if (v === null) return { [V.null]: 0 };
  if (typeof v === 'number') return { [V.number]: v };
  if (typeof v === 'string') return { [V.string]: v };
  if (typeof v === 'boolean') return { [V.bool]: v };
  if (Array.isArray(v)) return { [V.list]: { values: v.map((x) => valueFromJson(x, depth + 1)) } };
  return { [V.struct]: structFromJson(v, depth + 1) };
}

function structFromJson(v: Json, depth = 0): ProtoObject {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('expected a JSON object');
  const fields: ProtoObject = {};
  for (const [k, x] of Object.entries(v)) fields[k] = valueFromJson(x, depth);
  return { fields };
}

/** Set on the object itself: decoded protobufjs messages keep defaults on the prototype. */
function own(o: ProtoObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key) && o[key] != null;
}

function valueToJson(o: ProtoObject): Json {
  if (own(o, V.struct)) return structToJson(o[V.struct] as ProtoObject);
  if (own(o, V.list)) return (((o[V.list] as ProtoObject).values as ProtoObject[] | undefined) ?? []).map(valueToJson);
  if (own(o, V.string)) return o[V.string] as string;
  if (own(o, V.number)) return o[V.number] as number;
  if (own(o, V.bool)) return o[V.bool] as boolean;
  return null;
}

/** int64 as a JS number whether protobufjs gave a number, a string or a Long. */
function int64(v: unknown): number {
  if (v && typeof v === 'object' && 'toNumber' in v) return (v as { toNumber(): number }).toNumber();
  return Number(v ?? 0);
}

function structToJson(o: ProtoObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, x] of Object.entries((o.fields as ProtoObject | undefined) ?? {}))
    out[k] = valueToJson(x as ProtoObject);
  return out;
}

function typeFromUrl(type: protobuf.Type, url: string): protobuf.Type | undefined {
  const name = url.slice(url.lastIndexOf('/') + 1);
  if (!name) return undefined;
  try {
    return type.root.lookupType(name);
  } catch {
    return undefined;
  }
}

function anyFromJson(type: protobuf.Type, v: Json, recurse: Recurse<Json>): ProtoObject {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || typeof v['@type'] !== 'string') {
    throw new Error('expected an object with "@type"');
  }
  const url = v['@type'];
  const inner = typeFromUrl(type, url);
  if (!inner) {
    if (typeof v.value === 'string') return { [A.url]: url, [A.value]: new Uint8Array(Buffer.from(v.value, 'base64')) };
    throw new Error(`unknown type ${url}`);
  }
  const { '@type': _drop, ...rest } = v;
  const body = isWellKnown(inner) ? (rest.value ?? null) : rest;
  const obj = recurse(inner, body) as ProtoObject;
  return { [A.url]: url, [A.value]: inner.encode(inner.fromObject(obj)).finish() };
}

function anyToJson(type: protobuf.Type, o: ProtoObject, recurse: Recurse<ProtoObject>): Json {
  const url = String(o[A.url] ?? '');
  const bytes = (o[A.value] as Uint8Array | undefined) ?? new Uint8Array();
  const inner = typeFromUrl(type, url);
  if (!inner) return { '@type': url, value: Buffer.from(bytes).toString('base64') };
  const msg = inner.decode(bytes) as unknown as ProtoObject;
  const body = recurse(inner, msg) as Json;
  return isWellKnown(inner) ? { '@type': url, value: body } : { '@type': url, ...(body as JsonObject) };
}

export function wellKnownFromJson(type: protobuf.Type, v: Json, recurse: Recurse<Json>): ProtoObject {
  switch (type.fullName) {
    case '.google.protobuf.Timestamp':
      return timestampFromJson(v);
    case '.google.protobuf.Duration':
      return durationFromJson(v);
    case '.google.protobuf.Struct':
      return structFromJson(v);
    case '.google.protobuf.Value':
      return valueFromJson(v);
    case '.google.protobuf.ListValue':
      if (!Array.isArray(v)) throw new Error('expected a JSON array');
      return { values: v.map((x) => valueFromJson(x)) };
    case '.google.protobuf.Empty':
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('expected an object');
      return {};
    default:
      return anyFromJson(type, v, recurse);
  }
}

export function wellKnownToJson(type: protobuf.Type, o: ProtoObject, recurse: Recurse<ProtoObject>): Json {
  switch (type.fullName) {
    case '.google.protobuf.Timestamp':
      return timestampToJson(o);
    case '.google.protobuf.Duration':
      return durationToJson(o);
    case '.google.protobuf.Struct':
      return structToJson(o);
    case '.google.protobuf.Value':
      return valueToJson(o);
    case '.google.protobuf.ListValue':
      return ((o.values as ProtoObject[] | undefined) ?? []).map(valueToJson);
    case '.google.protobuf.Empty':
      return {};
    default:
      return anyToJson(type, o, recurse);
  }
}
