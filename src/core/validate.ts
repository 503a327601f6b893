// One validation walk per request (spec §5.7 required fields, §13.2 input
// validation, §13 SSRF), precompiled per message type from the generated
// descriptors: REQUIRED fields set (`(google.api.field_behavior) = REQUIRED`;
// repeated ones non-empty), every string and map key at most the route's
// `maxStringLength`, Struct/Value nesting at most MAX_STRUCT_DEPTH levels,
// (with the route's SSRF guard) file part and push-notification URLs screened,
// and what binary protobuf holds but JSON cannot (a Timestamp outside
// 0001–9999 or with nanos past 999,999,999, a Value number NaN or Infinity):
// such a request is INVALID_PARAMS, and an agent's answer holding one (any
// binding and version) INVALID_AGENT_RESPONSE (answerViolations), instead of
// failing where it would be written as JSON.
// Paths are kept as a stack of segments and turned into text only for a
// violation, so a valid request allocates nothing for them. Bytes fields are
// bounded by the body limit instead.
import { getOption, toJson, type DescField, type DescMessage, type Message } from '@bufbuild/protobuf';
import { FieldBehavior, field_behavior } from '../gen/google/api/field_behavior_pb.js';
import type { FieldViolation } from '../proto/violations.js';
import { unsafeUrl } from './ssrf-guard.js';

/** Deepest Struct/Value/ListValue nesting accepted. */
export const MAX_STRUCT_DEPTH = 32;
/** At most this many violations are reported (the first ones found). */
const MAX_REPORTED = 5;
/** String fields that name a URL the agent will fetch or call (screened by the SSRF guard). */
const URL_FIELDS = new Set(['lf.a2a.v1.Part.url', 'lf.a2a.v1.TaskPushNotificationConfig.url']);

export interface ValidationOptions {
  maxStringLength: number;
  /** Screen URL fields (the route's ssrfGuard). */
  screenUrls: boolean;
  /**
   * An agent's answer (answerViolations): only what JSON cannot hold is checked, on the fields that can hold it —
   * no REQUIRED fields, string lengths or nesting depth.
   */
  answer?: boolean;
}

/** Timestamp's range (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z), as its JSON form allows. */
const MIN_SECONDS = -62_135_596_800n;
const MAX_SECONDS = 253_402_300_799n;

class Walk {
  readonly path: Array<string | number> = [];
  readonly out: FieldViolation[] = [];
  constructor(readonly opts: ValidationOptions) {}

  get full(): boolean {
    return this.out.length >= MAX_REPORTED;
  }

  at(last?: string): string {
    let s = '';
    for (const seg of last === undefined ? this.path : [...this.path, last]) {
      s += typeof seg === 'number' ? `[${seg}]` : s === '' ? seg : `.${seg}`;
    }
    return s || '(request)';
  }

  violation(field: string, description: string): void {
    if (!this.full) this.out.push({ field: field.slice(0, 200), description });
  }

  string(v: string, name?: string): void {
    if (v.length > this.opts.maxStringLength) {
      this.violation(
        this.at(name),
        `string of ${v.length} characters exceeds the limit of ${this.opts.maxStringLength}`,
      );
    }
  }

  key(k: string): void {
    if (k.length > this.opts.maxStringLength) {
      this.violation(this.at(), `key of ${k.length} characters exceeds the limit of ${this.opts.maxStringLength}`);
    }
  }

  /** A google.protobuf.Timestamp: within the range its JSON form can write. */
  timestamp(t: { seconds: bigint; nanos: number }): void {
    if (t.seconds < MIN_SECONDS || t.seconds > MAX_SECONDS || t.nanos < 0 || t.nanos > 999_999_999) {
      this.violation(this.at(), 'a timestamp outside 0001-01-01 to 9999-12-31 (or nanos outside 0 to 999999999)');
    }
  }

  /** A Value/ListValue (a message in protobuf-es, such as Part.data): walked as the JSON it stands for. */
  wkt(typeName: string, v: unknown, depth: number): void {
    let json: unknown;
    try {
      json = toJson(descriptors.get(typeName)!, v as Message);
    } catch (e) {
      return this.violation(this.at(), (e as Error).message); // a number value NaN or Infinity, a Value unset
    }
    this.json(json, depth);
  }

  /**
   * A Struct as plain JSON (how protobuf-es holds Struct fields), or a Value's JSON. Plain data all through: a key such as
   * "$typeName" in it is a key like any other.
   */
  json(v: unknown, depth: number): void {
    if (this.full) return;
    if (typeof v === 'string') return this.string(v);
    if (typeof v === 'number' && !Number.isFinite(v)) {
      return this.violation(this.at(), `${v} is not a number JSON can hold`);
    }
    if (v === null || typeof v !== 'object') return;
    if (depth > MAX_STRUCT_DEPTH && !this.opts.answer) {
      return this.violation(this.at(), `nesting deeper than ${MAX_STRUCT_DEPTH} levels`);
    }
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        this.path.push(i);
        this.json(item, depth + 1);
        this.path.pop();
      });
      return;
    }
    for (const [k, item] of Object.entries(v)) {
      this.path.push(k);
      this.key(k);
      this.json(item, depth + 1);
      this.path.pop();
    }
  }
}

type Msg = Record<string, unknown>;
type Check = (msg: Msg, w: Walk, depth: number) => void;

const WKT_JSON = new Set(['google.protobuf.Struct', 'google.protobuf.Value', 'google.protobuf.ListValue']);
const TIMESTAMP = 'google.protobuf.Timestamp';
const STRUCT = 'google.protobuf.Struct';
const descriptors = new Map<string, DescMessage>();
const compiled = new Map<string, Check>();
const compiledAnswers = new Map<string, Check>();

function isRequired(f: DescField): boolean {
  return getOption(f, field_behavior).includes(FieldBehavior.REQUIRED);
}

function isUnset(f: DescField, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (f.fieldKind === 'list') return (v as unknown[]).length === 0;
  if (f.fieldKind === 'map') return Object.keys(v as object).length === 0;
  if (f.fieldKind === 'message') return false;
  if (v instanceof Uint8Array) return v.length === 0;
  return v === '' || v === 0 || v === false || v === 0n;
}

/**
 * A message value: the generated walk, or the JSON walk for a Struct/Value — protobuf-es holds a Struct field as
 * plain JSON (of any field kind), a Value or ListValue as a message (walked as the JSON it stands for).
 */
function nested(v: unknown, typeName: string, w: Walk, depth: number): void {
  if (WKT_JSON.has(typeName)) {
    if (typeName === STRUCT) w.json(v, depth + 1);
    else w.wkt(typeName, v, depth + 1);
  } else if (typeName === TIMESTAMP) w.timestamp(v as { seconds: bigint; nanos: number });
  else compile(typeName, w.opts.answer === true)(v as Msg, w, depth);
}

/** Whether a message of this type can hold what JSON cannot (a Timestamp, a Struct/Value), at any depth. */
const reachesJsonOnly = new Map<string, boolean>();
function holdsJsonOnly(typeName: string): boolean {
  let v = reachesJsonOnly.get(typeName);
  if (v !== undefined) return v;
  // every type reachable from it, looked at once (a search of its own: no half-made answer of a cycle is kept)
  const seen = new Set<string>([typeName]);
  const queue = [typeName];
  v = false;
  while (queue.length > 0 && !v) {
    const t = queue.pop()!;
    if (t === TIMESTAMP || WKT_JSON.has(t)) v = true;
    for (const f of descriptors.get(t)?.fields ?? []) {
      const m = f.message?.typeName;
      if (m !== undefined && !seen.has(m)) {
        seen.add(m);
        queue.push(m);
      }
    }
  }
  reachesJsonOnly.set(typeName, v);
  return v;
}

/** `answers`: only the fields that can hold what JSON cannot (answerViolations). */
function fieldCheck(desc: DescMessage, f: DescField, answers: boolean): Check | undefined {
  if (answers && !(f.message && holdsJsonOnly(f.message.typeName))) return undefined;
  const name = f.jsonName;
  const required = isRequired(f);
  const screen = URL_FIELDS.has(`${desc.typeName}.${f.name}`);
  const read: (m: Msg) => unknown = f.oneof
    ? (m) => {
        const o = m[f.oneof!.localName] as { case?: string; value?: unknown };
        return o.case === f.localName ? o.value : undefined;
      }
    : (m) => m[f.localName];
  const isString = (f.fieldKind === 'scalar' || f.fieldKind === 'list') && f.scalar === 9; // ScalarType.STRING
  const messageType = f.message?.typeName;
  if (!required && !isString && !screen && !messageType && f.fieldKind !== 'map') return undefined;
  return (m, w, depth) => {
    if (w.full) return;
    const v = read(m);
    if (required && !w.opts.answer && isUnset(f, v)) return w.violation(w.at(name), `${w.at(name)} is required`);
    if (v === undefined || v === null) return;
    if (f.fieldKind === 'scalar') {
      if (typeof v !== 'string') return;
      w.string(v, name);
      if (screen && w.opts.screenUrls && v !== '') {
        const why = unsafeUrl(v);
        if (why) w.violation(w.at(name), `URL refused by the SSRF guard: ${why}`);
      }
      return;
    }
    w.path.push(name);
    if (f.fieldKind === 'message') nested(v, messageType!, w, depth);
    else if (f.fieldKind === 'list') {
      (v as unknown[]).forEach((item, i) => {
        w.path.push(i);
        if (isString) w.string(item as string);
        else if (messageType) nested(item, messageType, w, depth);
        w.path.pop();
      });
    } else if (f.fieldKind === 'map') {
      for (const [k, item] of Object.entries(v as Msg)) {
        w.path.push(k);
        w.key(k);
        if (typeof item === 'string') w.string(item);
        else if (messageType) nested(item, messageType, w, depth);
        w.path.pop();
      }
    }
    w.path.pop();
  };
}

function register(desc: DescMessage): void {
  if (descriptors.has(desc.typeName)) return;
  descriptors.set(desc.typeName, desc);
  for (const f of desc.fields) if (f.message) register(f.message);
}

function compile(typeName: string, answers = false): Check {
  const cache = answers ? compiledAnswers : compiled;
  let check = cache.get(typeName);
  if (check) return check;
  const desc = descriptors.get(typeName);
  if (!desc) return () => undefined; // a message type outside the request graph: nothing to check
  const checks: Check[] = [];
  check = (m, w, depth) => {
    for (const c of checks) c(m, w, depth);
  };
  cache.set(typeName, check); // before the fields: recursive types find it
  for (const f of desc.fields) {
    const c = fieldCheck(desc, f, answers);
    if (c) checks.push(c);
  }
  return check;
}

/** Every violation of `message` (of type `schema`), at most MAX_REPORTED; empty when valid. */
export function violations(schema: DescMessage, message: object, opts: ValidationOptions): FieldViolation[] {
  register(schema);
  const w = new Walk(opts);
  compile(schema.typeName, opts.answer === true)(message as Msg, w, 0);
  return w.out;
}

/** What an answer decoded from binary holds that JSON cannot (a Timestamp out of range, a NaN or Infinity). */
export function answerViolations(schema: DescMessage, message: object): FieldViolation[] {
  return violations(schema, message, { maxStringLength: Number.MAX_SAFE_INTEGER, screenUrls: false, answer: true });
}

/** Only the REQUIRED fields (for answers, whose strings the gateway does not limit). */
export function requiredViolations(schema: DescMessage, message: object): FieldViolation[] {
  return violations(schema, message, { maxStringLength: Number.MAX_SAFE_INTEGER, screenUrls: false });
}
