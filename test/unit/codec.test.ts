// ProtoJSON vectors: a generated vector for every message of a2a.proto (every
// field set, each oneof member in turn), round-tripped
// JSON → proto → binary → proto → JSON, plus hand-written vectors for the
// rules of §5.5–§5.7 and the ProtoJSON mapping.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import {
  fromJson,
  ProtoJsonError,
  toJson,
  type Json,
  type JsonObject,
  type ProtoObject,
} from '../../src/proto/protojson.js';
import { messageType, PROTO_DIR, root } from '../../src/proto/registry.js';

const SAMPLE_STRUCT: JsonObject = { a: 1.5, b: [true, null, 'x'], c: { d: 'e' } };

function sampleScalar(f: protobuf.Field): Json {
  const rt = f.resolvedType;
  if (rt instanceof protobuf.Enum) return Object.keys(rt.values)[1] ?? Object.keys(rt.values)[0]!;
  switch (f.type) {
    case 'string':
      return `s-${f.name}`;
    case 'bool':
      return true;
    case 'bytes':
      return Buffer.from(`bytes of ${f.name}`).toString('base64');
    case 'int64':
    case 'uint64':
    case 'sint64':
    case 'fixed64':
    case 'sfixed64':
      return '9007199254740993';
    case 'double':
    case 'float':
      return 2.5;
    default:
      return 7;
  }
}

function sampleOf(f: protobuf.Field, depth: number): Json | undefined {
  const rt = f.resolvedType;
  if (rt instanceof protobuf.Type) {
    switch (rt.fullName) {
      case '.google.protobuf.Timestamp':
        return '2025-10-28T10:30:00.123Z';
      case '.google.protobuf.Struct':
        return SAMPLE_STRUCT;
      case '.google.protobuf.Value':
        return ['v', 1, { k: false }];
      default:
        return depth > 6 ? undefined : sample(rt, depth + 1);
    }
  }
  return sampleScalar(f);
}

/** Every field set; for each oneof, the member at index `pick` (mod size). */
function sample(type: protobuf.Type, depth = 0, pick = 0): JsonObject {
  const out: JsonObject = {};
  for (const f of type.fieldsArray) {
    const oneof = f.partOf && !f.partOf.name.startsWith('_') ? f.partOf : undefined;
    if (oneof && oneof.fieldsArray[pick % oneof.fieldsArray.length] !== f) continue;
    const v = sampleOf(f, depth);
    if (v === undefined) continue;
    if (f instanceof protobuf.MapField) out[f.name] = { key1: v };
    else out[f.name] = f.repeated ? [v] : v;
  }
  return out;
}

function roundTrip(type: protobuf.Type, json: Json): Json {
  const obj = fromJson(type, json);
  const bytes = type.encode(type.fromObject(obj)).finish();
  return toJson(type, type.decode(bytes) as unknown as ProtoObject);
}

const a2aTypes: protobuf.Type[] = [];
(function collect(ns: protobuf.NamespaceBase): void {
  for (const n of ns.nestedArray) {
    if (n instanceof protobuf.Type) a2aTypes.push(n);
    if (n instanceof protobuf.Namespace || n instanceof protobuf.Type) collect(n);
  }
})(root.lookup('lf.a2a.v1') as protobuf.Namespace);

t.test('every message of a2a.proto round-trips JSON → binary → JSON', async (tt) => {
  const declared = (readFileSync(join(PROTO_DIR, 'a2a.proto'), 'utf8').match(/^\s*message \w+/gm) ?? []).length;
  tt.equal(a2aTypes.length, declared, `all ${declared} messages declared in a2a.proto are covered`);
  for (const type of a2aTypes) {
    const oneofSize = Math.max(
      1,
      ...type.oneofsArray.filter((o) => !o.name.startsWith('_')).map((o) => o.fieldsArray.length),
    );
    for (let pick = 0; pick < oneofSize; pick++) {
      const json = sample(type, 0, pick);
      tt.same(roundTrip(type, json), json, `${type.name}${oneofSize > 1 ? ` (oneof member ${pick})` : ''}`);
    }
  }
});

const Task = messageType('lf.a2a.v1.Task');
const Part = messageType('lf.a2a.v1.Part');
const ListTasks = messageType('lf.a2a.v1.ListTasksRequest');
const GetTask = messageType('lf.a2a.v1.GetTaskRequest');
const Status = messageType('google.rpc.Status');

/** Runs fn, which must fail with a ProtoJsonError; returns it. */
function rejects(tt: Test, fn: () => unknown, what: string): ProtoJsonError {
  try {
    fn();
  } catch (e) {
    tt.ok(e instanceof ProtoJsonError, what);
    return e as ProtoJsonError;
  }
  tt.fail(`${what}: did not throw`);
  return new ProtoJsonError([]);
}

t.test('§5.5 names and enums', async (tt) => {
  const obj = fromJson(Task, { id: 't', context_id: 'c', status: { state: 3 } });
  tt.same(
    toJson(Task, obj),
    { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } },
    'snake_case accepted, camelCase written; enum numbers in, names out',
  );
  rejects(tt, () => fromJson(Task, { id: 't', status: { state: 'DONE' } }), 'unknown enum name rejected');
  tt.same(toJson(Task, fromJson(Task, { id: 't', surprise: { x: 1 } })), { id: 't' }, 'unknown fields ignored (§5.7)');
});

t.test('bytes: base64 out, standard and URL-safe in', async (tt) => {
  const raw = Buffer.from([0xfb, 0xff, 0xfe, 0x00]);
  tt.same(
    toJson(Part, fromJson(Part, { raw: raw.toString('base64url') })),
    { raw: raw.toString('base64') },
    'URL-safe accepted',
  );
  tt.same(
    toJson(Part, fromJson(Part, { raw: raw.toString('base64') })),
    { raw: raw.toString('base64') },
    'standard accepted',
  );
  rejects(tt, () => fromJson(Part, { raw: 'not base64!' }), 'rejected');
});

t.test('oneofs as the member name', async (tt) => {
  tt.same(roundTrip(Part, { text: '' }), { text: '' }, 'an empty oneof member keeps its presence');
  tt.same(roundTrip(Part, { data: null }), { data: null }, 'Value null is a value');
  const e = rejects(tt, () => fromJson(Part, { text: 'a', url: 'https://x' }), 'rejected');
  tt.match(e.violations[0]?.description, /only one of/, 'two members of one oneof rejected');
});

t.test('proto3 optional presence', async (tt) => {
  tt.same(roundTrip(GetTask, { id: 'x', historyLength: 0 }), { id: 'x', historyLength: 0 }, 'explicit 0 kept');
  tt.same(roundTrip(GetTask, { id: 'x' }), { id: 'x' }, 'absent stays absent');
  tt.same(
    roundTrip(ListTasks, { includeArtifacts: false, pageSize: 0 }),
    { includeArtifacts: false, pageSize: 0 },
    'explicit false kept',
  );
  tt.same(
    roundTrip(ListTasks, { contextId: '', status: 'TASK_STATE_UNSPECIFIED' }),
    {},
    'implicit-presence defaults omitted',
  );
});

t.test('timestamps (§5.6.1)', async (tt) => {
  const ts = (v: string): Json =>
    (roundTrip(ListTasks, { statusTimestampAfter: v }) as JsonObject).statusTimestampAfter!;
  tt.equal(ts('2025-10-28T10:30:00.000Z'), '2025-10-28T10:30:00Z', 'zero fraction dropped');
  tt.equal(ts('2025-10-28T10:30:00.1Z'), '2025-10-28T10:30:00.100Z', 'milliseconds');
  tt.equal(ts('2025-10-28T10:30:00.123456Z'), '2025-10-28T10:30:00.123456Z', 'microseconds');
  tt.equal(ts('2025-10-28T10:30:00.123456789Z'), '2025-10-28T10:30:00.123456789Z', 'nanoseconds');
  tt.equal(ts('2025-10-28T12:30:00+02:00'), '2025-10-28T10:30:00Z', 'offsets normalized to Z');
  rejects(tt, () => fromJson(ListTasks, { statusTimestampAfter: '28/10/2025' }), 'rejected');
});

t.test('numbers', async (tt) => {
  tt.same(
    roundTrip(GetTask, { id: 'x', historyLength: '5' }),
    { id: 'x', historyLength: 5 },
    'int32 from a numeric string',
  );
  rejects(tt, () => fromJson(GetTask, { id: 'x', historyLength: 1.5 }), 'fractions rejected');
  rejects(tt, () => fromJson(GetTask, { id: 'x', historyLength: 2 ** 31 }), 'int32 range');
  const e = rejects(tt, () => fromJson(GetTask, { id: 5, historyLength: 'x' }), 'rejected');
  tt.same(
    e.violations.map((v) => v.field),
    ['id', 'historyLength'],
    'every bad field is named',
  );
});

t.test('Struct, Value and Any (error details)', async (tt) => {
  const meta = { n: 1, s: 'x', b: false, l: [1, 'two', null], o: { deep: { er: true } } };
  tt.same(roundTrip(Task, { id: 't', metadata: meta }), { id: 't', metadata: meta }, 'Struct as plain JSON');
  const status: JsonObject = {
    code: 9,
    message: 'nope',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'TASK_NOT_CANCELABLE',
        domain: 'a2a-protocol.org',
        metadata: { taskId: 't' },
      },
      { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'a.b', description: 'bad' }] },
      { '@type': 'type.googleapis.com/google.protobuf.Duration', value: '1.500s' },
      { '@type': 'type.example.com/unknown.Thing', value: Buffer.from('opaque').toString('base64') },
    ],
  };
  tt.same(roundTrip(Status, status), status, 'google.rpc.Status with known, well-known and opaque details');
});

t.test('Struct nesting is bounded: a caller mistake, not a stack overflow', async (tt) => {
  let deep: Json = 'bottom';
  for (let i = 0; i < 10_000; i++) deep = { d: deep };
  const e = rejects(tt, () => fromJson(Task, { id: 't', metadata: deep as JsonObject }), 'rejected');
  tt.match(e.violations[0], { field: 'metadata', description: /nested deeper than 32/ });
  let ok: Json = 'bottom';
  for (let i = 0; i < 30; i++) ok = { d: ok };
  tt.same(
    roundTrip(Task, { id: 't', metadata: ok as JsonObject }),
    { id: 't', metadata: ok },
    '30 levels are fine, and protobufjs encodes them',
  );
});
