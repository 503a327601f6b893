// The upstream SSE reader against a recorded stream with every feature the
// issue lists, cut at every byte offset (and into single bytes), plus the
// event size limit, a reader left early (its body returned, read no further)
// and a body that fails; a large event's data kept as bytes. The event a body
// ends in is delivered, its last line taken as ended (as the SDK clients
// read it): a cut stream is never a silent clean end.
import t from 'tap';
import { readSse, SseParser, type SseEvent } from '../../src/sse/reader.js';

const RECORDED =
  '\ufeff: a comment first\n' +
  'retry: 3000\n' +
  'id: 1\n' +
  'data: {"a":1}\n\n' +
  'event: update\r\n' +
  'data: line one\r\n' +
  'data: line two\r\n\r\n' +
  'data:no-space\r\r' +
  ': keep-alive\n\n' +
  'id: 7\n' +
  'data: {"é":"ünïcödé ✓"}\n' +
  'data\n\n' +
  'event: error\n' +
  'data: {"error":{"code":500}}\n\n' +
  'data: unterminated';

const EXPECTED: SseEvent[] = [
  { event: 'message', data: '{"a":1}', id: '1', retry: 3000 },
  { event: 'update', data: 'line one\nline two', id: '1' },
  { event: 'message', data: 'no-space', id: '1' },
  { event: 'message', data: '{"é":"ünïcödé ✓"}\n', id: '7' },
  { event: 'error', data: '{"error":{"code":500}}', id: '7' },
  { event: 'message', data: 'unterminated', id: '7' },
];

async function* chunks(parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield p;
}

async function parse(parts: Uint8Array[], max = 1 << 20): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const ev of readSse(chunks(parts), max)) out.push(ev);
  return out;
}

t.test('the recorded stream in one chunk', async (tt) => {
  tt.same(await parse([Buffer.from(RECORDED)]), EXPECTED);
});

t.test('cut at every byte offset', async (tt) => {
  const bytes = Buffer.from(RECORDED);
  let failures = 0;
  for (let cut = 1; cut < bytes.length; cut++) {
    const got = await parse([bytes.subarray(0, cut), bytes.subarray(cut)]);
    if (JSON.stringify(got) !== JSON.stringify(EXPECTED)) {
      failures++;
      tt.same(got, EXPECTED, `cut at byte ${cut}`);
    }
  }
  tt.equal(failures, 0, `${bytes.length - 1} two-chunk cuts all parse the same`);
  const single = [...bytes].map((b) => Uint8Array.of(b));
  tt.same(await parse(single), EXPECTED, 'one byte per chunk (UTF-8 split inside characters too)');
});

t.test('the event a body ends in', async (tt) => {
  const last = async (text: string) => (await parse([Buffer.from(text)])).map((e) => e.data);
  tt.same(await last('data: 1\n\ndata: 2\n'), ['1', '2'], 'no blank line after the last event: still delivered');
  tt.same(
    await last('data: 1\n\ndata: {"cut'),
    ['1', '{"cut'],
    'cut in a data line: the cut data, for its reader to refuse',
  );
  tt.same(await last('data: a\ndata: b\r'), ['a\nb'], 'several lines, the last ended by CR');
  tt.same(await last('data: 1\n\n: keep-alive'), ['1'], 'a cut comment is no event');
  tt.same(await last('data: 1\n\nevent: x\n'), ['1'], 'fields without data are no event');
  tt.same(await last('data: 1\n\n'), ['1'], 'a complete stream: nothing more');
  await tt.rejects(parse([Buffer.from(`data: ${'z'.repeat(5000)}`)], 4096), { message: /maximum size/ });
});

t.test('several events in one chunk are all delivered', async (tt) => {
  const p = new SseParser(1024);
  tt.same(
    p.push('data: 1\n\ndata: 2\n\ndata: 3\n\n').map((e) => e.data),
    ['1', '2', '3'],
  );
});

t.test('an event over the size limit fails clearly', async (tt) => {
  const big = `data: ${'x'.repeat(5000)}\n\n`;
  await tt.rejects(parse([Buffer.from(big)], 4096), { limit: 4096, message: /maximum size/ }, 'one long data line');
  const manyLines = Array.from({ length: 100 }, () => `data: ${'y'.repeat(100)}\n`).join('');
  await tt.rejects(parse([Buffer.from(manyLines)], 4096), { message: /maximum size of 4096 bytes/ });
  const noNewline = 'data: '.concat('z'.repeat(10_000));
  await tt.rejects(
    parse([Buffer.from(noNewline.slice(0, 5000)), Buffer.from(noNewline.slice(5000))], 4096),
    { message: /maximum size/ },
    'a line that never ends',
  );
});

t.test('events before an oversize one in the same chunk are still delivered', async (tt) => {
  const got: string[] = [];
  const stream = readSse(chunks([Buffer.from(`data: a\n\ndata: b\n\ndata: ${'x'.repeat(5000)}\n\n`)]), 4096);
  await tt.rejects(
    (async () => {
      for await (const ev of stream) got.push(ev.data);
    })(),
    { message: /maximum size/ },
  );
  tt.same(got, ['a', 'b']);
});

t.test('a reader left early returns its body; a failing body fails the reader after its events', async (tt) => {
  let returned = 0;
  let pulls = 0;
  const endless: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: () => Promise.resolve({ done: false, value: Buffer.from(`data: ${++pulls}\n\n`) }),
      return: () => {
        returned++;
        return Promise.resolve({ done: true, value: undefined });
      },
    }),
  };
  const got: string[] = [];
  for await (const ev of readSse(endless, 1024)) if (got.push(ev.data) === 3) break;
  tt.same(got, ['1', '2', '3']);
  tt.equal(returned, 1, 'the body is returned once');
  tt.equal(pulls, 3, 'and read no further than the events pulled');

  async function* failing(): AsyncGenerator<Uint8Array> {
    yield Buffer.from('data: one\n\ndata: tw');
    throw new Error('connection reset');
  }
  const seen: string[] = [];
  await tt.rejects(
    (async () => {
      for await (const ev of readSse(failing(), 1024)) seen.push(ev.data);
    })(),
    { message: 'connection reset' },
  );
  tt.same(seen, ['one'], 'the event before the failure, not the torn one');
});

t.test('a body that yields something other than bytes fails the pull instead of leaving it waiting', async (tt) => {
  async function* strings(): AsyncGenerator<Uint8Array> {
    yield 'data: text\n\n' as unknown as Uint8Array;
  }
  await tt.rejects(readSse(strings(), 1024).next(), TypeError);
});

t.test('a large event stays bytes: a view of what came, its text only if read', async (tt) => {
  const big = 'A'.repeat(100_000); // a multi-KiB base64 text, as a large raw part's
  const stream = Buffer.from(`event: status\ndata: {"raw":"${big}"}\ndata: second line\n\ndata: small\n\n`);
  // cut into 16 KiB chunks, as a socket delivers it
  const parts: Buffer[] = [];
  for (let at = 0; at < stream.length; at += 16_384) parts.push(stream.subarray(at, at + 16_384));
  const [large, small] = await parse(parts);
  if (!large?.bytes) return void tt.fail('the large event has no bytes');
  tt.equal(large.bytes.length, `{"raw":"${big}"}\nsecond line`.length, 'its lines and the LF between them');
  tt.equal(large.bytes.toString('latin1', 0, 8), '{"raw":"', 'the data, as bytes');
  tt.equal(large.data, `{"raw":"${big}"}\nsecond line`, 'its data, decoded when read');
  tt.equal(large.event, 'status', 'its event name');
  tt.same({ ...small }, { event: 'message', data: 'small' }, 'a small event: text only');
  // one line of one chunk stays a view of that chunk (no copy)
  const one = await parse([Buffer.from(`data: ${big}\n\n`)]);
  tt.equal(one[0]!.bytes!.byteOffset, 6, 'a view of the chunk it came in, after "data: "');
});

t.test('the size limit counts bytes, not characters', async (tt) => {
  const event = `data: ${'é'.repeat(600)}\n\n`; // 600 characters, 1,200 bytes
  await tt.rejects(parse([Buffer.from(event)], 1000), { message: /maximum size of 1000 bytes/ });
  tt.same((await parse([Buffer.from(event)], 2000))[0]?.data, 'é'.repeat(600), 'within a larger limit');
});
