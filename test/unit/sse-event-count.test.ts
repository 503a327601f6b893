// The count of a relayed SSE body's events (src/sse/event-count.ts) against
// the gateway's own SSE reader (src/sse/reader.ts) as the oracle: for any
// body made of data, other fields, comments and blank lines, with any line
// ends, a leading BOM or part of one, cut into any chunks, the count is the
// number of events the reader delivers; and a recorded body, byte by byte.
import fc from 'fast-check';
import t from 'tap';
import { SseEventCount } from '../../src/sse/event-count.js';
import { readSse } from '../../src/sse/reader.js';
import { cutAt } from '../helpers/sse.js';

async function readerCount(chunks: Buffer[]): Promise<number> {
  let n = 0;
  for await (const _ of readSse(
    (async function* () {
      yield* chunks;
    })(),
    2 ** 30,
  ))
    n++;
  return n;
}

function counted(chunks: Buffer[]): number {
  const c = new SseEventCount();
  for (const chunk of chunks) c.feed(chunk);
  return c.events;
}

const line = fc.oneof(
  fc.constant(''),
  fc.constant(''),
  fc.constantFrom('data: {"a":1}', 'data', 'data:', 'data:x', 'dat', 'database: no', 'Data: no', ' data: no'),
  fc.constantFrom(': keep-alive', 'event: update', 'id: 7', 'retry: 100', 'x'),
  fc.string({ maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, '')),
);
const body = fc
  .tuple(
    fc.constantFrom('', '\ufeff', '\xef', '\xef\xbb'),
    fc.array(fc.tuple(line, fc.constantFrom('\n', '\r\n', '\r')), { maxLength: 30 }),
    fc.boolean(),
  )
  .map(([bom, lines, lastEnded]) => {
    const text = lines.map(([l, end], i) => l + (i < lines.length - 1 || lastEnded ? end : '')).join('');
    // the partial BOMs as raw bytes (a lone 0xEF is no UTF-8 text)
    return bom.startsWith('\ufeff') || bom === ''
      ? Buffer.from(bom + text)
      : Buffer.concat([Buffer.from(bom, 'latin1'), Buffer.from(text)]);
  });

t.test('the count is what the reader delivers, for any body in any chunks', async (t) => {
  await fc.assert(
    fc.asyncProperty(body, fc.array(fc.nat(), { maxLength: 8 }), async (b, at) => {
      const chunks = cutAt(b, at);
      const want = await readerCount(chunks);
      const got = counted(chunks);
      if (got !== want) throw new Error(`counted ${got}, the reader delivered ${want}: ${JSON.stringify(String(b))}`);
    }),
    { numRuns: 2000 },
  );
  t.pass('2,000 bodies');
});

t.test('a recorded body, whole and byte by byte', async (t) => {
  const recorded = Buffer.from(
    '\ufeff: hello\n\nevent: status\r\ndata: {"a":1}\r\n\r\n: keep-alive\n\ndata: one\ndata: two\n\rdata: last',
  );
  t.equal(counted([recorded]), 3, 'two ended events and the one the body ends in');
  t.equal(counted([...recorded].map((x) => Buffer.from([x]))), 3, 'byte by byte');
  t.equal(await readerCount([recorded]), 3, 'as the reader reads it');
  t.equal(counted([Buffer.from(': keep-alive\n\n: keep-alive\n\n')]), 0, 'keep-alive comments are no events');
});
