// ops/line-batch.ts: the lines written in one event-loop turn reach the
// destination in one write, in their order; a later turn's in another; a line
// after the destination closed is dropped; flush() writes what waits.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { LineBatch } from '../../src/ops/line-batch.js';

t.test("one turn's lines go in one write, in order; the next turn's in the next", async (t) => {
  const writes: string[] = [];
  const batch = new LineBatch({ write: (text: string) => writes.push(text) });
  t.equal(batch.write('{"n":1}\n'), true, 'never asks the writer to wait');
  batch.write('{"n":2}\n');
  batch.write('{"n":3}\n');
  t.same(writes, [], 'nothing written within the turn');
  await new Promise((r) => setImmediate(r));
  t.same(writes, ['{"n":1}\n{"n":2}\n{"n":3}\n'], 'one write with the three lines');
  batch.write('{"n":4}\n');
  await new Promise((r) => setImmediate(r));
  t.same(writes, ['{"n":1}\n{"n":2}\n{"n":3}\n', '{"n":4}\n'], 'a later line: a write of its own');
});

t.test(
  'a line after the log is closed is dropped, not thrown (sonic-boom throws on a write once closed)',
  async (t) => {
    const dir = t.testdir();
    const dest = pino.destination({ dest: join(dir, 'log'), sync: false, minLength: 8192 });
    await once(dest, 'ready');
    const batch = new LineBatch(dest);
    batch.write('{"n":1}\n');
    batch.flush(); // written now, and the destination's buffer flushed
    dest.end();
    await once(dest, 'close');
    t.throws(() => dest.write('{"n":0}\n'), /destroyed/, 'the destination itself throws now');
    batch.write('{"n":2}\n');
    await new Promise((r) => setImmediate(r)); // an uncaught throw in the batch's microtask would fail the test
    t.equal(readFileSync(join(dir, 'log'), 'utf8'), '{"n":1}\n', 'the line before the close is in the file');
  },
);

t.test('flush() writes the waiting lines at once, then flushes the destination', async (t) => {
  const writes: string[] = [];
  let flushed = 0;
  const batch = new LineBatch({
    write: (text: string) => writes.push(text),
    flush: (cb) => {
      flushed++;
      cb?.();
    },
  });
  batch.write('{"n":1}\n');
  await new Promise<void>((resolve) => batch.flush(() => resolve()));
  t.same(writes, ['{"n":1}\n'], 'the waiting line written');
  t.equal(flushed, 1, "the destination's flush ran");
});
