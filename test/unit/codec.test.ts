// ProtoJSON vectors (spec §5.5–§5.7) for the protobuf-es codec the generated
// code in src/gen comes with: a generated vector for every message of
// a2a.proto (every field set, each oneof member in turn), round-tripped
// JSON → message → binary → message → JSON, plus hand-written vectors for the
// mapping rules, read through the project's readJson/writeJson and the
// google.rpc.Status helpers of src/proto/json.ts.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { equals, fromBinary, ScalarType, toBinary, type DescField, type DescMessage } from '@bufbuild/protobuf';
import {
  file_a2a,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  PartSchema,
  SendMessageRequestSchema,
  TaskSchema,
} from '../../src/gen/a2a_pb.js';
import { requiredViolations } from '../../src/core/validate.js';
import { PROTO_DIR } from '../../src/proto/dir.js';
import {
  ProtoJsonError,
  readJson,
  statusFromBinary,
  statusToBinary,
  writeJson,
  type Json,
  type JsonObject,
} from '../../src/proto/json.js';

const SAMPLE_STRUCT: JsonObject = { a: 1.5, b: [true, null, 'x'], c: { d: 'e' } };
const SAMPLE_VALUE: Json = ['v', 1, { k: false }];

function sampleScalar(f: DescField): Json {
  const scalar = f.fieldKind === 'scalar' || f.fieldKind === 'list' || f.fieldKind === 'map' ? f.scalar : undefined;
  switch (scalar) {
    case ScalarType.STRING:
      return `s-${f.name}`;
    case ScalarType.BOOL:
      return true;
    case ScalarType.BYTES:
      return Buffer.from(`bytes of ${f.name}`).toString('base64');
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return '9007199254740993'; // above 2^53: int64 travels as a string
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return 2.5;
    default:
      return 7;
  }
}

/** A non-default value for one element of `f` (the element of a list or map). */
function sampleOf(f: DescField, depth: number): Json | undefined {
  if (f.enum) return (f.enum.values[1] ?? f.enum.values[0])!.name;
  if (!f.message) return sampleScalar(f);
  switch (f.message.typeName) {
    case 'google.protobuf.Timestamp':
      return '2025-10-28T10:30:00.123Z';
    case 'google.protobuf.Struct':
      return SAMPLE_STRUCT;
    case 'google.protobuf.Value':
      return SAMPLE_VALUE;
    default:
      return depth > 6 ? undefined : sample(f.message, depth + 1);
  }
}

/** Every field set; for each (real) oneof, the member at index `pick` (mod its size). */
function sample(desc: DescMessage, depth = 0, pick = 0): JsonObject {
  const out: JsonObject = {};
  for (const f of desc.fields) {
    if (f.oneof && f.oneof.fields[pick % f.oneof.fields.length] !== f) continue;
    const v = sampleOf(f, depth);
    if (v === undefined) continue;
    out[f.jsonName] = f.fieldKind === 'map' ? { key1: v } : f.fieldKind === 'list' ? [v] : v;
  }
  return out;
}

/** JSON → message → binary → message → JSON; the binary copy must equal the first message. */
function roundTrip(tt: Test, desc: DescMessage, json: Json): Json {
  const message = readJson(desc, json);
  const back = fromBinary(desc, toBinary(desc, message));
  tt.ok(equals(desc, message, back), `${desc.name}: binary copy equals the message`);
  return writeJson(desc, back);
}

const a2aMessages: DescMessage[] = [];
(function collect(list: readonly DescMessage[]): void {
  for (const m of list) {
    a2aMessages.push(m);
    collect(m.nestedMessages);
  }
})(file_a2a.messages);

t.test('every message of a2a.proto round-trips JSON → binary → JSON', async (tt) => {
  const declared = (readFileSync(join(PROTO_DIR, 'a2a.proto'), 'utf8').match(/^\s*message \w+/gm) ?? []).length;
  tt.ok(declared > 40, `a2a.proto declares ${declared} messages`);
  tt.equal(a2aMessages.length, declared, `all ${declared} messages declared in a2a.proto are covered`);
  for (const desc of a2aMessages) {
    const oneofSize = Math.max(1, ...desc.oneofs.map((o) => o.fields.length));
    for (let pick = 0; pick < oneofSize; pick++) {
      const json = sample(desc, 0, pick);
      tt.same(roundTrip(tt, desc, json), json, `${desc.name}${oneofSize > 1 ? ` (oneof member ${pick})` : ''}`);
    }
  }
});

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
  tt.same(
    writeJson(TaskSchema, readJson(TaskSchema, { id: 't', context_id: 'c', status: { state: 3 } })),
    { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } },
    'snake_case accepted, camelCase written; enum numbers in, names out',
  );
  // protobuf-es follows the ProtoJSON spec here: with ignoreUnknownFields (§5.7)
  // an unknown enum *name* is ignored like an unknown field, leaving the field
  // unset (the old reader rejected it). A REQUIRED enum is still refused, by validation.
  const unknownName = readJson(TaskSchema, { id: 't', status: { state: 'DONE' } });
  tt.same(writeJson(TaskSchema, unknownName), { id: 't', status: {} }, 'unknown enum name ignored, field left unset');
  tt.same(
    requiredViolations(TaskSchema, unknownName).map((v) => v.field),
    ['status.state'],
    'so a REQUIRED enum with an unknown name is still refused',
  );
  tt.same(
    writeJson(TaskSchema, readJson(TaskSchema, { id: 't', surprise: { x: 1 } })),
    { id: 't' },
    'unknown fields ignored (§5.7)',
  );
  for (const notObject of [null, [1], 'x', 3]) {
    const e = rejects(tt, () => readJson(TaskSchema, notObject), `${JSON.stringify(notObject)} rejected`);
    tt.same(e.violations, [{ field: '(request)', description: 'expected a JSON object (Task)' }]);
  }
});

t.test('bytes: base64 out, standard and URL-safe in', async (tt) => {
  const raw = Buffer.from([0xfb, 0xff, 0xfe, 0x00]);
  tt.same(
    roundTrip(tt, PartSchema, { raw: raw.toString('base64url') }),
    { raw: raw.toString('base64') },
    'URL-safe accepted',
  );
  tt.same(
    roundTrip(tt, PartSchema, { raw: raw.toString('base64') }),
    { raw: raw.toString('base64') },
    'standard accepted',
  );
  const e = rejects(tt, () => readJson(PartSchema, { raw: 'not base64!' }), 'rejected');
  tt.match(e.violations, [{ field: 'raw', description: /base64/ }], 'a top-level field by its JSON name');
  const nested = rejects(
    tt,
    () => readJson(SendMessageRequestSchema, { message: { parts: [{ raw: 'not base64!' }] } }),
    'rejected when nested',
  );
  tt.match(nested.violations, [{ field: 'Part.raw', description: /base64/ }], 'a nested field as Message.field');
});

t.test('oneofs as the member name', async (tt) => {
  tt.same(roundTrip(tt, PartSchema, { text: '' }), { text: '' }, 'an empty oneof member keeps its presence');
  tt.same(roundTrip(tt, PartSchema, { data: null }), { data: null }, 'Value null is a value');
  const e = rejects(tt, () => readJson(PartSchema, { text: 'a', url: 'https://x' }), 'rejected');
  // protobuf-es names the oneof and both members ("oneof set multiple times by text and url").
  tt.match(e.violations, [{ field: 'content', description: /multiple times by text and url/ }], 'two members');
});

t.test('proto3 optional presence', async (tt) => {
  tt.same(
    roundTrip(tt, GetTaskRequestSchema, { id: 'x', historyLength: 0 }),
    { id: 'x', historyLength: 0 },
    'explicit 0 kept',
  );
  tt.same(roundTrip(tt, GetTaskRequestSchema, { id: 'x' }), { id: 'x' }, 'absent stays absent');
  tt.same(
    roundTrip(tt, ListTasksRequestSchema, { includeArtifacts: false, pageSize: 0 }),
    { includeArtifacts: false, pageSize: 0 },
    'explicit false kept',
  );
  tt.same(
    roundTrip(tt, ListTasksRequestSchema, { contextId: '', status: 'TASK_STATE_UNSPECIFIED' }),
    {},
    'implicit-presence defaults omitted',
  );
});

t.test('timestamps (§5.6.1)', async (tt) => {
  const ts = (v: string): Json =>
    (roundTrip(tt, ListTasksRequestSchema, { statusTimestampAfter: v }) as JsonObject).statusTimestampAfter!;
  tt.equal(ts('2025-10-28T10:30:00.000Z'), '2025-10-28T10:30:00Z', 'zero fraction dropped');
  tt.equal(ts('2025-10-28T10:30:00.1Z'), '2025-10-28T10:30:00.100Z', 'milliseconds');
  tt.equal(ts('2025-10-28T10:30:00.123456Z'), '2025-10-28T10:30:00.123456Z', 'microseconds');
  tt.equal(ts('2025-10-28T10:30:00.123456789Z'), '2025-10-28T10:30:00.123456789Z', 'nanoseconds');
  tt.equal(ts('2025-10-28T12:30:00+02:00'), '2025-10-28T10:30:00Z', 'offsets normalized to Z');
  const e = rejects(tt, () => readJson(ListTasksRequestSchema, { statusTimestampAfter: '28/10/2025' }), 'rejected');
  tt.match(
    e.violations,
    [{ field: 'statusTimestampAfter', description: /RFC 3339/ }],
    'as a bad RFC 3339 string, naming the field (protobuf-es names only the type)',
  );
});

t.test('a bad well-known-type value is named by its field, at any depth', async (tt) => {
  const message = { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] };
  const cases: Array<[DescMessage, unknown, string]> = [
    [SendMessageRequestSchema, { message, metadata: 'x' }, 'metadata'],
    [SendMessageRequestSchema, { message: { ...message, metadata: 5 } }, 'Message.metadata'],
    [
      SendMessageRequestSchema,
      { message: { ...message, parts: [{ text: 'x' }, { text: 'y', metadata: [1] }] } },
      'Part.metadata',
    ],
    [
      SendMessageRequestSchema,
      {
        message: { ...message, parts: [{ data: {} }] },
        metadata: { ok: true },
        configuration: { acceptedOutputModes: 5 },
      },
      'SendMessageConfiguration.acceptedOutputModes',
    ],
  ];
  for (const [schema, json, field] of cases) {
    const e = rejects(tt, () => readJson(schema, json), field);
    tt.equal(e.violations[0]?.field, field, `${field} named`);
  }
});

t.test('numbers', async (tt) => {
  tt.same(
    roundTrip(tt, GetTaskRequestSchema, { id: 'x', historyLength: '5' }),
    { id: 'x', historyLength: 5 },
    'int32 from a numeric string',
  );
  const frac = rejects(tt, () => readJson(GetTaskRequestSchema, { id: 'x', historyLength: 1.5 }), 'fractions');
  tt.match(frac.violations, [{ field: 'historyLength', description: /int32/ }]);
  const range = rejects(tt, () => readJson(GetTaskRequestSchema, { id: 'x', historyLength: 2 ** 31 }), 'int32 range');
  tt.match(range.violations, [{ field: 'historyLength', description: /out of range/ }]);
  // protobuf-es stops at the first field that does not fit (the old reader named every bad field).
  const e = rejects(tt, () => readJson(GetTaskRequestSchema, { id: 5, historyLength: 'x' }), 'rejected');
  tt.same(
    e.violations.map((v) => v.field),
    ['id'],
    'the first bad field is named',
  );
});

t.test('Struct, Value and Any (error details)', async (tt) => {
  const meta = { n: 1, s: 'x', b: false, l: [1, 'two', null], o: { deep: { er: true } } };
  tt.same(roundTrip(tt, TaskSchema, { id: 't', metadata: meta }), { id: 't', metadata: meta }, 'Struct as plain JSON');
  tt.same(
    roundTrip(tt, PartSchema, { data: { list: [1, { x: null }], s: 'v' } }),
    { data: { list: [1, { x: null }], s: 'v' } },
    'Value as plain JSON',
  );
  const known: JsonObject[] = [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'TASK_NOT_CANCELABLE',
      domain: 'a2a-protocol.org',
      metadata: { taskId: 't' },
    },
    { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'a.b', description: 'bad' }] },
  ];
  tt.same(
    statusFromBinary(statusToBinary(9, 'nope', known)),
    { code: 9, message: 'nope', details: known },
    'google.rpc.Status with google.rpc error details packed as Any',
  );
  // protobuf-es packs Any only for types in the registry: a detail of an unknown
  // type is left out (the old codec carried it through as opaque bytes).
  const unknown = { '@type': 'type.example.com/unknown.Thing', value: Buffer.from('opaque').toString('base64') };
  tt.same(
    statusFromBinary(statusToBinary(9, 'nope', [known[0]!, unknown])),
    { code: 9, message: 'nope', details: [known[0]] },
    'an unknown detail type is dropped, the rest kept',
  );
});

t.test('Struct nesting is bounded: a caller mistake, not a stack overflow', async (tt) => {
  // protobuf-es's reader stops at 100 levels; the 32-level limit is validate.ts's
  // (test/unit/validate.test.ts).
  let deep: Json = 'bottom';
  for (let i = 0; i < 10_000; i++) deep = { d: deep };
  const e = rejects(tt, () => readJson(TaskSchema, { id: 't', metadata: deep }), 'rejected');
  tt.match(e.violations, [{ description: /recursion depth/ }], 'as too deep, not a RangeError');
  let ok: Json = 'bottom';
  for (let i = 0; i < 30; i++) ok = { d: ok };
  tt.same(roundTrip(tt, TaskSchema, { id: 't', metadata: ok }), { id: 't', metadata: ok }, '30 levels round-trip');
});
