// ops/line-batch.ts: the lines written in one event-loop turn reach the
// destination in one write, in their order; a later turn's in another.
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
