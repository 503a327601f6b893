// The tests' own SSE parser (test/helpers/sse.ts), which the stream helpers
// use instead of the gateway's: the WHATWG cases by hand, cut at every byte,
// and then differentially against the gateway's reader (src/sse/reader.ts) on
// random streams cut at random places — two parsers written apart that must
// agree, so a bug in either shows. Where the gateway's reader departs from
// the standard on purpose (the event a body ends in is delivered, its last
// line taken as ended, as the SDK clients read it), the standard's parser is
// given that blank line.
import fc from 'fast-check';
import t from 'tap';
import { readSse } from '../../src/sse/reader.js';
import { cutAt, TestSseParser, type TestSseEvent } from '../helpers/sse.js';

function parseAll(parts: Array<Uint8Array | string>): { events: TestSseEvent[]; comments: string[] } {
  const p = new TestSseParser();
  const events = parts.flatMap((part) => p.push(part));
  events.push(...p.end());
  return { events, comments: p.comments };
}

const enc = (s: string) => Buffer.from(s, 'utf8');

const STREAM =
  '\ufeff: first a comment\n' +
  'data: one\n\n' +
  'event: update\r\n' +
  'id: 7\r\n' +
  'data:two\r\n' +
  'data:  three\r\n\r\n' +
  'data\r\r' +
  'event: dropped with no data\n\n' +
  ': keep-alive\n\n' +
  'id: a\u0000b\n' +
  'data: {"é":"ünïcödé ✓"}\n' +
  'retry: 10\n' +
  'unknown: field\n\n' +
  'event: error\n' +
  'data: last\n\n' +
  'data: never terminated';

const EXPECTED: TestSseEvent[] = [
  { event: 'message', data: 'one', id: '' },
  { event: 'update', data: 'two\n three', id: '7' },
  { event: 'message', data: '', id: '7' },
  { event: 'message', data: '{"é":"ünïcödé ✓"}', id: '7' },
  { event: 'error', data: 'last', id: '7' },
];

t.test('the WHATWG rules, in one chunk', async (tt) => {
  const { events, comments } = parseAll([enc(STREAM)]);
  tt.same(events, EXPECTED);
  tt.same(comments, [' first a comment', ' keep-alive'], 'comments seen, BOM dropped');
});

t.test('the same events however the bytes are cut', async (tt) => {
  const bytes = enc(STREAM);
  for (let i = 0; i <= bytes.length; i++) {
    const { events } = parseAll([bytes.subarray(0, i), bytes.subarray(i)]);
    if (JSON.stringify(events) !== JSON.stringify(EXPECTED)) {
      tt.same(events, EXPECTED, `cut at byte ${i}`);
      return;
    }
  }
  tt.same(parseAll([...bytes].map((b) => Uint8Array.of(b))).events, EXPECTED, 'one byte at a time');
  tt.pass(`all ${bytes.length + 1} cuts agree`);
});

t.test('CR at the end of a chunk, LF at the start of the next: one line end', async (tt) => {
  tt.same(parseAll(['data: a\r', '\ndata: b\r', '\n\r', '\n']).events, [{ event: 'message', data: 'a\nb', id: '' }]);
  tt.same(parseAll(['data: a\r', '\r']).events, [{ event: 'message', data: 'a', id: '' }], 'CR CR: an empty line');
  tt.same(parseAll(['data: a\n\r']).events, [{ event: 'message', data: 'a', id: '' }], 'a final CR ends a line');
});

/** Random streams of SSE lines, with every kind of line end, as UTF-8 bytes cut at random places. */
const line = fc.oneof(
  fc.constant(''),
  fc.constant(': keep-alive'),
  fc
    .tuple(
      fc.constantFrom('data', 'event', 'id', 'retry', 'other', ''),
      fc.constantFrom(':', ': ', ':  ', ''),
      fc.string({ unit: fc.constantFrom('a', ' ', ':', 'é', '✓', '😀', '\u0000', '\ufeff'), maxLength: 6 }),
    )
    .map(([f, sep, v]) => f + sep + v),
);
const stream = fc
  .tuple(fc.boolean(), fc.array(fc.tuple(line, fc.constantFrom('\n', '\r', '\r\n')), { maxLength: 30 }))
  .map(([bom, lines]) => enc((bom ? '\ufeff' : '') + lines.map(([l, eol]) => l + eol).join('')));
const cuts = fc.array(fc.nat(), { maxLength: 6 });

t.test('agrees with the gateway reader on random streams', async (tt) => {
  await fc.assert(
    fc.asyncProperty(stream, cuts, async (bytes, at) => {
      const parts = cutAt(bytes, at);
      const ours = parseAll([...parts, enc('\n\n')]).events; // what the gateway's reader takes the end for
      const theirs: TestSseEvent[] = [];
      for await (const ev of readSse(
        (async function* () {
          yield* parts;
        })(),
        1 << 20,
      ))
        theirs.push({ event: ev.event, data: ev.data, id: ev.id ?? '' });
      return JSON.stringify(ours) === JSON.stringify(theirs);
    }),
    { numRuns: 500 },
  );
  tt.pass('500 random streams, the same events from both');
});
