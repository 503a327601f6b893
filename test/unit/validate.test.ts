// The request validation walk of src/core/validate.ts: REQUIRED fields (§5.7),
// the route's string length limit (§13.2), Struct/Value nesting depth and the
// SSRF screen of file part and push-notification URLs (§13), what binary
// protobuf holds and JSON cannot (NaN, Infinity, a timestamp out of range),
// each violation naming the field path the caller sent (google.rpc.BadRequest).
import t from 'tap';
import type { DescMessage } from '@bufbuild/protobuf';
import {
  AuthorizationCodeOAuthFlowSchema,
  SendMessageRequestSchema as Send,
  StreamResponseSchema,
  TaskSchema,
} from '../../src/gen/a2a_pb.js';
import { answerViolations, MAX_STRUCT_DEPTH, requiredViolations, violations } from '../../src/core/validate.js';
import { create } from '@bufbuild/protobuf';
import { readJson, type Json, type JsonObject } from '../../src/proto/json.js';

const fields = (schema: DescMessage, json: JsonObject): string[] =>
  requiredViolations(schema, readJson(schema, json)).map((v) => v.field);

const LIMIT = { maxStringLength: 10, screenUrls: false };
const check = (json: JsonObject, opts = LIMIT, schema: DescMessage = Send) =>
  violations(schema, readJson(schema, json), opts);

/** A valid SendMessageRequest with `extra` merged into its message. */
const send = (extra: JsonObject = {}, rest: JsonObject = {}): JsonObject => ({
  message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }], ...extra },
  ...rest,
});

function nested(levels: number): Json {
  let v: Json = 'bottom';
  for (let i = 0; i < levels; i++) v = { d: v };
  return v;
}

t.test('REQUIRED fields (§5.7)', async (tt) => {
  tt.same(fields(Send, {}), ['message'], 'top-level');
  tt.same(fields(Send, { message: { parts: [{ text: 'x' }, {}] } }), ['message.messageId', 'message.role'], 'nested');
  tt.same(
    fields(Send, { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } }),
    ['message.parts'],
    'a required repeated field needs one element',
  );
  tt.same(
    fields(Send, send({}, { configuration: { taskPushNotificationConfig: {} } })),
    ['configuration.taskPushNotificationConfig.url'],
    'inside optional sub-messages that are present',
  );
  tt.same(fields(Send, send()), [], 'a complete request has none');
  tt.same(
    fields(TaskSchema, { id: 't', status: { state: 'TASK_STATE_WORKING' }, artifacts: [{ parts: [{ text: 'a' }] }] }),
    ['artifacts[0].artifactId'],
    'inside repeated messages, with the index',
  );
  tt.same(
    fields(AuthorizationCodeOAuthFlowSchema, { authorizationUrl: 'https://a', tokenUrl: 'https://t' }),
    ['scopes'],
    'a required map needs one entry',
  );
});

t.test('string length limit, at the field path', async (tt) => {
  const long = 'x'.repeat(11);
  tt.same(check(send({ messageId: 'y'.repeat(10) })), [], 'exactly the limit is fine');
  tt.same(
    check(send({ messageId: long, extensions: ['ok', long] })),
    [
      { field: 'message.messageId', description: 'string of 11 characters exceeds the limit of 10' },
      { field: 'message.extensions[1]', description: 'string of 11 characters exceeds the limit of 10' },
    ],
    'string fields and repeated strings',
  );
  tt.same(
    check(send({}, { metadata: { [long]: 'short', a: ['ok', long], o: { deep: long } } })).map((v) => v.field),
    [`metadata.${long}`, 'metadata.a[1]', 'metadata.o.deep'],
    'Struct keys and Struct strings',
  );
  tt.same(
    check(
      { authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: { [long]: long } },
      LIMIT,
      AuthorizationCodeOAuthFlowSchema,
    ),
    [
      { field: `scopes.${long}`, description: 'key of 11 characters exceeds the limit of 10' },
      { field: `scopes.${long}`, description: 'string of 11 characters exceeds the limit of 10' },
    ],
    'map keys and map values',
  );
  tt.same(
    requiredViolations(Send, readJson(Send, send({ messageId: 'z'.repeat(100_000) }))),
    [],
    'requiredViolations does not limit strings',
  );
});

t.test(`Struct nesting: at most ${MAX_STRUCT_DEPTH} levels`, async (tt) => {
  tt.equal(MAX_STRUCT_DEPTH, 32);
  const big = { maxStringLength: 1000, screenUrls: false };
  const refused = check(send({}, { metadata: nested(33) as JsonObject }), big);
  tt.equal(refused.length, 1, '33 levels refused');
  tt.match(refused[0], { field: /^metadata(\.d){32}$/, description: 'nesting deeper than 32 levels' }, 'at the path');
  tt.same(check(send({}, { metadata: nested(32) as JsonObject }), big), [], '32 levels fine');
  tt.same(check(send({}, { metadata: nested(30) as JsonObject }), big), [], '30 levels fine');
  const list = (n: number): Json => JSON.parse('['.repeat(n) + ']'.repeat(n)) as Json;
  tt.match(check(send({}, { metadata: { a: list(40) } }), big), [{ description: /nesting deeper/ }], 'lists count');
  const data = check(send({ parts: [{ data: nested(33) }] }), big);
  tt.equal(data.length, 1, 'a deep Part.data Value refused too');
  tt.match(
    data[0],
    { field: /^message\.parts\[0\]\.data(\.d){32}$/, description: 'nesting deeper than 32 levels' },
    'at its JSON path, each level counted once (as for Struct metadata)',
  );
  tt.same(check(send({ parts: [{ data: nested(32) }] }), big), [], 'a Part.data Value of 32 levels is fine');
  tt.match(
    check(send({ metadata: { m: nested(32) } }), big),
    [{ field: /^message\.metadata\.m(\.d){31}$/, description: 'nesting deeper than 32 levels' }],
    'a Struct inside a nested message too',
  );
});

t.test('URL screening only when the route asks for it', async (tt) => {
  const req = send(
    { parts: [{ text: 'x' }, { url: 'http://127.0.0.1/x' }, { url: 'https://example.com/f' }] },
    { configuration: { taskPushNotificationConfig: { url: 'file:///etc/passwd' } } },
  );
  const opts = { maxStringLength: 1000, screenUrls: true };
  tt.match(
    check(req, opts),
    [
      { field: 'message.parts[1].url', description: /SSRF guard: .*loopback/ },
      { field: 'configuration.taskPushNotificationConfig.url', description: /SSRF guard: scheme file:/ },
    ],
    'file part and push-notification URLs screened, public ones pass',
  );
  tt.equal(check(req, opts).length, 2, 'and nothing else');
  tt.same(check(req, { ...opts, screenUrls: false }), [], 'not screened when the guard is off');
  tt.same(check(send({ parts: [{ text: 'http://127.0.0.1/' }] }), opts), [], 'a URL in text is not a URL field');
});

t.test('at most 5 violations are reported', async (tt) => {
  const parts = Array.from({ length: 9 }, () => ({ text: 'z'.repeat(20) }));
  const out = check(send({ parts }));
  tt.same(
    out.map((v) => v.field),
    [0, 1, 2, 3, 4].map((i) => `message.parts[${i}].text`),
    'the first five, in order',
  );
});

t.test('a valid request has no violations', async (tt) => {
  const req = send(
    {
      contextId: 'c',
      parts: [{ text: 'x', metadata: { k: 'v' } }, { url: 'https://example.com/f' }, { data: { a: [1, 'b'] } }],
      extensions: ['urn:x'],
    },
    { configuration: { taskPushNotificationConfig: { url: 'https://hooks.example.com/' } }, metadata: { n: 1 } },
  );
  tt.same(check(req, { maxStringLength: 100, screenUrls: true }), [], 'every check passes: an empty list');
});

t.test('what binary protobuf holds and JSON cannot: NaN, Infinity, a timestamp out of range', async (tt) => {
  const msg = (metadata: JsonObject) =>
    create(Send, {
      message: { messageId: 'm', role: 1, parts: [{ content: { case: 'text', value: 'x' } }], metadata },
    });
  const opts = { maxStringLength: 100, screenUrls: false };
  tt.same(
    violations(Send, msg({ a: [1, { b: NaN }] }), opts).map((v) => v.field),
    ['message.metadata.a[1].b'],
    'a NaN in a Struct',
  );
  tt.same(violations(Send, msg({ a: Infinity }), opts).length, 1, 'an Infinity');
  tt.same(violations(Send, msg({ a: 1.5, b: -0 }), opts), [], 'finite numbers are fine');
  const task = (seconds: bigint, nanos: number) =>
    create(TaskSchema, { id: 't', contextId: 'c', status: { state: 1, timestamp: { seconds, nanos } } });
  tt.same(
    answerViolations(TaskSchema, task(0n, 1_000_000_000)).map((v) => v.field),
    ['status.timestamp'],
    'nanos past 999,999,999',
  );
  tt.equal(answerViolations(TaskSchema, task(253_402_300_800n, 0)).length, 1, 'after 9999-12-31');
  tt.equal(answerViolations(TaskSchema, task(-62_135_596_801n, 0)).length, 1, 'before 0001-01-01');
  tt.same(answerViolations(TaskSchema, task(253_402_300_799n, 999_999_999)), [], 'the last instant is fine');
  tt.same(
    violations(Send, msg({ $typeName: 'nope', n: NaN }), opts).map((v) => v.field),
    ['message.metadata.n'],
    'a "$typeName" key in a Struct is a key like any other: what is under it is walked',
  );
  tt.same(violations(Send, msg({ $typeName: 'google.protobuf.Value' }), opts), [], 'and refused for nothing');
  tt.same(
    answerViolations(TaskSchema, create(TaskSchema, { id: 't', metadata: nested(MAX_STRUCT_DEPTH + 5) as JsonObject })),
    [],
    'an answer is not held to the nesting limit of requests',
  );
  const nan = { x: NaN };
  const deepTask = create(TaskSchema, {
    id: 't',
    status: { state: 1, message: { messageId: 'm', role: 2, parts: [], metadata: nan } },
    history: [
      {
        messageId: 'h',
        role: 1,
        parts: [{ content: { case: 'data', value: { kind: { case: 'numberValue', value: NaN } } } }],
      },
    ],
    artifacts: [{ artifactId: 'a', parts: [{ content: { case: 'text', value: 'x' }, metadata: nan }] }],
  });
  tt.same(
    answerViolations(TaskSchema, deepTask).map((v) => v.field),
    ['status.message.metadata.x', 'artifacts[0].parts[0].metadata.x', 'history[0].parts[0].data'],
    'wherever in an answer: a status message, a part of the history, an artifact part',
  );
  const update = create(StreamResponseSchema, {
    payload: {
      case: 'statusUpdate',
      value: { taskId: 't', status: { state: 1, timestamp: { seconds: 0n, nanos: -1 } } },
    },
  });
  tt.same(
    answerViolations(StreamResponseSchema, update).map((v) => v.field),
    ['statusUpdate.status.timestamp'],
    'and in a stream event',
  );
  tt.same(
    answerViolations(TaskSchema, create(TaskSchema, {})),
    [],
    'an answer is not held to its REQUIRED fields here (only to what JSON can write)',
  );
});
