// The Uint8Array base64 methods installed on runtimes without them
// (src/util/base64.ts) against Buffer's codec and protobuf-es's own JSON
// round trip of a Part's raw bytes, including the inputs they leave to
// protobuf-es's fallback (base64url, whitespace).
import t from 'tap';
import '../../src/util/base64.js';
import { create, fromJson, toJson } from '@bufbuild/protobuf';
import { PartSchema } from '../../src/gen/a2a_pb.js';

type WithBase64 = Uint8Array & {
  toBase64(o?: { alphabet?: string; omitPadding?: boolean }): string;
  setFromBase64(s: string): { read: number; written: number };
};

t.test('toBase64 matches Buffer for every length and option', async (t) => {
  for (let n = 0; n < 12; n++) {
    const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 97 + 251) & 255) as WithBase64;
    const b = Buffer.from(bytes);
    t.equal(bytes.toBase64(), b.toString('base64'), `std ${n}`);
    t.equal(bytes.toBase64({ omitPadding: true }), b.toString('base64').replace(/=+$/, ''), `std raw ${n}`);
    t.equal(bytes.toBase64({ alphabet: 'base64url', omitPadding: true }), b.toString('base64url'), `url ${n}`);
  }
  const sub = Uint8Array.from([1, 2, 3, 4, 5]).subarray(1, 4) as WithBase64;
  t.equal(sub.toBase64(), Buffer.from([2, 3, 4]).toString('base64'), 'a view encodes only its own bytes');
});

t.test('setFromBase64 decodes standard base64 and refuses the rest', async (t) => {
  const target = new Uint8Array(4) as WithBase64;
  t.same(target.setFromBase64('AQID'), { read: 4, written: 3 });
  t.same([...target.subarray(0, 3)], [1, 2, 3]);
  t.same((new Uint8Array(2) as WithBase64).setFromBase64('AQI='), { read: 4, written: 2 }, 'padded');
  t.same((new Uint8Array(2) as WithBase64).setFromBase64('AQI'), { read: 3, written: 2 }, 'unpadded');
  for (const bad of ['AQ-_', 'AQ I=', 'A', 'AQ=I', '****'])
    t.throws(() => (new Uint8Array(8) as WithBase64).setFromBase64(bad), `refused: ${JSON.stringify(bad)}`);
  t.throws(() => (new Uint8Array(1) as WithBase64).setFromBase64('AQID'), 'a target too small');
});

t.test('protobuf-es round-trips raw parts, lenient forms through its fallback', async (t) => {
  const raw = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 31) & 255);
  const json = toJson(PartSchema, create(PartSchema, { content: { case: 'raw', value: raw } }));
  t.equal((json as { raw: string }).raw, Buffer.from(raw).toString('base64'));
  const back = fromJson(PartSchema, json);
  t.ok(Buffer.from(back.content.value as Uint8Array).equals(Buffer.from(raw)), 'the same bytes back');
  const url = fromJson(PartSchema, { raw: Buffer.from([251, 255]).toString('base64url') });
  t.same([...(url.content.value as Uint8Array)], [251, 255], 'base64url still accepted');
  const spaced = fromJson(PartSchema, { raw: 'AQ ID' });
  t.same([...(spaced.content.value as Uint8Array)], [1, 2, 3], 'whitespace still accepted');
});
