// The codecs that move a large `raw` part (spec §4.1.6) without copying it
// through protobuf-es's encoders: base64 between buffers
// (src/proto/base64-bytes.ts) against Buffer's codec, the binary form as chunks
// (src/proto/binary-chunks.ts), ProtoJSON written as a body in pieces
// (src/proto/json-out.ts), and a JSON body read with its long strings left
// out of the parse and base64 decoded in place (src/http/json-body.ts,
// src/proto/json-in.ts) — each checked against protobuf-es's own result for
// the same message or body: the same message, the same JSON, the same error.
import '../../src/util/base64.js'; // before @bufbuild/protobuf loads, as in the gateway's entry points
import { create, equals, fromBinary, toBinary, type DescMessage, type Message } from '@bufbuild/protobuf';
import t from 'tap';
import { A2AError } from '../../src/errors/a2a-error.js';
import { PartSchema, SendMessageRequestSchema, TaskSchema, type Part } from '../../src/gen/a2a_pb.js';
import { parseJsonBody, readJsonBody } from '../../src/http/json-body.js';
import { base64Length, decodeBase64InPlace, encodeBase64Into } from '../../src/proto/base64-bytes.js';
import { concatChunks, toBinaryChunks } from '../../src/proto/binary-chunks.js';
import { readJson, writeJson, ProtoJsonError } from '../../src/proto/json.js';
import { outboundJson, PiecedBody } from '../../src/proto/json-out.js';
import type { Msg } from '../../src/proto/large-bytes.js';

const bytes = (n: number, seed = 1): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 131 + seed) & 255);
const raw = (b: Uint8Array): Part =>
  create(PartSchema, { content: { case: 'raw', value: b }, mediaType: 'application/octet-stream' });
const text = (s: string): Part => create(PartSchema, { content: { case: 'text', value: s } });

const LARGE = bytes(200_001);
const request = (parts: Part[]) =>
  create(SendMessageRequestSchema, { tenant: 't', message: { messageId: 'm', role: 2, parts } });
const task = create(TaskSchema, {
  id: 'task',
  history: [
    { messageId: 'h1', parts: [raw(LARGE), text('ü ✓')] },
    { messageId: 'h2', parts: [raw(bytes(10))] },
  ],
  artifacts: [{ artifactId: 'a', parts: [raw(bytes(300_000, 7)), raw(bytes(70_000, 9))] }],
});

t.test("base64 between buffers: Node's codec, without its strings", async (tt) => {
  let encoded = 0;
  let decoded = 0;
  for (let n = 0; n <= 300; n++) {
    const b = Buffer.from(bytes(n, n));
    const out = Buffer.alloc(base64Length(n) + 2, 0x2e);
    const end = encodeBase64Into(out, 1, b);
    if (end === 1 + base64Length(n) && out.toString('latin1', 1, end) === b.toString('base64')) encoded++;
    for (const text of [b.toString('base64'), b.toString('base64url')]) {
      const buf = Buffer.from(`"${text}"`, 'latin1');
      const stop = decodeBase64InPlace(buf, 1, buf.length - 1);
      if (buf.subarray(1, stop).equals(b)) decoded++;
    }
  }
  tt.equal(encoded, 301, 'encoded: padded standard base64, for every length up to 300');
  tt.equal(decoded, 602, 'decoded in place: standard padded and URL-safe unpadded, for every length up to 300');
});

t.test('binary as chunks: the same message, large values by reference', async (tt) => {
  const cases: Array<[string, DescMessage, Msg]> = [
    ['no large value', SendMessageRequestSchema, request([raw(bytes(10)), text('hi')]) as unknown as Msg],
    ['one large part', SendMessageRequestSchema, request([text('a'), raw(LARGE), text('b')]) as unknown as Msg],
    ['large parts in history and artifacts', TaskSchema, task as unknown as Msg],
  ];
  for (const [name, schema, msg] of cases) {
    const chunks = toBinaryChunks(schema, msg);
    const back = fromBinary(schema, concatChunks(chunks));
    tt.ok(equals(schema, back, msg as never), `${name}: decodes to the same message`);
    if (name === 'no large value') tt.same(chunks, [toBinary(schema, msg)], `${name}: protobuf-es's one chunk`);
    else tt.ok(chunks.includes(LARGE), `${name}: the large value is a chunk of its own, not a copy`);
  }
});

t.test('ProtoJSON into a body: the JSON protobuf-es writes', async (tt) => {
  for (const [name, schema, msg] of [
    ['one large part beside non-ASCII text', SendMessageRequestSchema, request([text('ü ✓ "q"'), raw(LARGE)])],
    ['large parts in history and artifacts', TaskSchema, task],
  ] as const) {
    const out = outboundJson(schema, msg);
    const body = out.body({ jsonrpc: '2.0', id: 7, result: out.json });
    if (!(body instanceof PiecedBody)) throw new Error(`${name}: not written in pieces`);
    const pieces = [...body];
    const whole = Buffer.concat(pieces);
    tt.equal(whole.length, body.byteLength, `${name}: its length is the length of its pieces`);
    tt.same(
      JSON.parse(whole.toString()),
      { jsonrpc: '2.0', id: 7, result: writeJson(schema, msg) },
      `${name}: the same JSON`,
    );
    // the large value's base64 (266,668 characters) comes in pieces of 64 KiB, never whole
    tt.ok(pieces.length >= 5, `${name}: ${pieces.length} pieces`);
    tt.ok(Math.max(...pieces.map((p) => p.length)) <= 64 * 1024, `${name}: no piece over 64 KiB`);
    const again = [...body];
    tt.same(Buffer.concat(again), whole, `${name}: the same bytes when it is sent again`);
    if (schema === SendMessageRequestSchema)
      // one large value: the text before it, its base64 pieces, the text after it
      tt.ok(
        again.slice(1, -1).every((p, i) => p !== pieces[i + 1]),
        `${name}: the base64 pieces made afresh (none held between sendings)`,
      );
  }
  const small = outboundJson(SendMessageRequestSchema, request([raw(bytes(10))]));
  tt.equal(small.body(small.json), JSON.stringify(writeJson(SendMessageRequestSchema, request([raw(bytes(10))]))));
});

t.test('ProtoJSON into a body: many large values, each written in its place once', async (tt) => {
  const parts = Array.from({ length: 40 }, (_, i) => raw(Buffer.alloc(LARGE.length, i)));
  const msg = request(parts);
  const out = outboundJson(SendMessageRequestSchema, msg);
  const body = out.body({ result: out.json });
  tt.same(
    JSON.parse(Buffer.concat([...(body as PiecedBody)]).toString()),
    { result: writeJson(SendMessageRequestSchema, msg) },
    '40 large parts, each its own',
  );
  tt.throws(() => out.body({ a: out.json, b: out.json }), /not once/, 'a marker twice in the text is refused');
  tt.throws(() => out.body({ none: true }), /not once/, 'a marker missing from the text is refused');
});

/** What the plain path (the whole body parsed, then protobuf-es) makes of a body: a message or an error. */
function plain(schema: DescMessage, body: Buffer): unknown {
  try {
    return readJson(schema, parseJsonBody(body));
  } catch (e) {
    return describe(e);
  }
}
function lazy(schema: DescMessage, body: Buffer): unknown {
  try {
    const { value, strings } = readJsonBody(body);
    return strings.read(schema, value);
  } catch (e) {
    return describe(e);
  }
}
const isMessage = (v: unknown): v is Message => typeof v === 'object' && v !== null && '$typeName' in v;
function describe(e: unknown): unknown {
  if (e instanceof ProtoJsonError) return { violations: e.violations };
  if (e instanceof A2AError) return { error: e.errorName, message: e.message, details: e.details };
  throw e;
}

t.test('a body read with its long strings apart: what the whole parse reads', async (tt) => {
  const b64 = Buffer.from(LARGE).toString('base64');
  const long = 'x'.repeat(70_000);
  const part = (p: string): string => `{"message":{"messageId":"m","role":"ROLE_USER","parts":[${p}]}}`;
  const bodies: Record<string, string> = {
    'padded base64': part(`{"raw":"${b64}"}`),
    'unpadded base64url': part(`{"raw":"${Buffer.from(LARGE).toString('base64url')}"}`),
    'escaped slashes ("\\/")': part(`{"raw":"${b64.replace(/\//g, '\\/')}"}`),
    'two base64 texts concatenated (inner padding)': part(`{"raw":"${b64}${b64}"}`),
    'a dangling base64 character': part(`{"raw":"${b64.replace(/=+$/, '')}AAAAB"}`),
    'invalid base64': part(`{"raw":"${b64.slice(0, -8)}!!!!!!!!"}`),
    'two raw keys': part(`{"raw":"${b64}","raw":"${b64.slice(4)}"}`),
    'two large parts and a small one': part(`{"raw":"${b64}"},{"raw":"AQID"},{"raw":"${b64.slice(0, 100_000)}"}`),
    'a long text with escapes': part(`{"text":"${long}\\n\\u2713\\"q\\""}`),
    'a bad escape in a long text': part(`{"text":"${long}\\x"}`),
    'a bad \\u escape in a long text': part(`{"text":"${long}\\u12G4"}`),
    'a long metadata value': `{"message":{"messageId":"m","parts":[{"text":"a"}],"metadata":{"k":"${long}"}}}`,
    'a long extension URI (repeated string)': `{"message":{"messageId":"m","parts":[],"extensions":["${long}"]}}`,
    'a long enum name': `{"message":{"messageId":"m","role":"${long}","parts":[]}}`,
    'a long tenant': `{"tenant":"${long}","message":{"messageId":"m","parts":[]}}`,
    'a long unknown field': `{"unknown":"${long}","message":{"messageId":"m","parts":[{"raw":"${b64}"}]}}`,
    'a long key': `{"message":{"messageId":"m","parts":[],"metadata":{"${long}":1}}}`,
    'a control character in a long string': part(`{"raw":"${b64.slice(0, 100_000)}\t"}`),
    'a syntax error after a long string': `${part(`{"raw":"${b64}"}`)}}`,
  };
  for (const [name, text] of Object.entries(bodies)) {
    const expected = plain(SendMessageRequestSchema, Buffer.from(text));
    const got = lazy(SendMessageRequestSchema, Buffer.from(text));
    if (isMessage(expected) && isMessage(got))
      tt.ok(equals(SendMessageRequestSchema, got as never, expected as never), `${name}: the same request`);
    else tt.same(got, expected, `${name}: the same error`);
  }
});

t.test('a large raw part is decoded in the body, not into a buffer of its own', async (tt) => {
  const body = Buffer.from(
    `{"message":{"messageId":"m","parts":[{"raw":"${Buffer.from(LARGE).toString('base64')}"}]}}`,
  );
  const { value, strings } = readJsonBody(body);
  const msg = strings.read(SendMessageRequestSchema, value);
  const got = msg.message!.parts[0]!.content.value as Uint8Array;
  tt.ok(Buffer.from(got).equals(Buffer.from(LARGE)), 'the bytes');
  tt.equal(got.buffer, body.buffer, "in the body's own memory");
});
