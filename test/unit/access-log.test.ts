// The access log writer (src/ops/access-log.ts): the lines of one event-loop
// turn are written on the next one, each with what the edge recorded of its
// answer by then (path, status, bytes out), in the order of the calls; the
// tap reads the same lines; nothing needs a line when nothing reads it.
import { pino, type Logger } from 'pino';
import t from 'tap';
import type { Wire } from '../../src/http/request.js';
import { AccessLog, type AccessLine, type AnsweredLine } from '../../src/ops/access-log.js';

function capture(level: string): { log: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino({ level }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
  return { log, lines };
}

const line = (requestId: string): AccessLine => ({
  requestId,
  client: '127.0.0.1',
  method: 'SendMessage',
  route: 'r',
  inbound: 'JSONRPC',
  upstream: 'GRPC',
  outcome: 'OK',
  durationMs: 1.5,
  bytesIn: 42,
});

t.test("a turn's lines are written on the next turn, with what the edge wrote by then, in order", async (t) => {
  const { log, lines } = capture('info');
  const tapped: AnsweredLine[] = [];
  const access = new AccessLog(log, (l) => tapped.push(l));
  const a: Wire = { path: '/a', status: 0, bytesOut: 0 };
  const b: Wire = { path: '/b', status: 0, bytesOut: 0 };
  access.write(line('one'), a);
  access.write(line('two'), b);
  access.write(line('three'), undefined);
  // the edge answers after the pipeline has ended the call, in the same turn
  a.status = 200;
  a.bytesOut = 120;
  b.status = 404;
  b.bytesOut = 7;
  t.equal(lines.length, 0, 'nothing written yet');
  await new Promise((r) => setImmediate(r));
  t.same(
    lines.map((l) => [l.requestId, l.path, l.status, l.bytesOut, l.msg]),
    [
      ['one', '/a', 200, 120, 'call'],
      ['two', '/b', 404, 7, 'call'],
      ['three', undefined, undefined, undefined, 'call'],
    ],
  );
  t.same(
    tapped.map((l) => l.requestId),
    ['one', 'two', 'three'],
    'the tap reads the same lines',
  );
  access.write(line('four'), undefined);
  await new Promise((r) => setImmediate(r));
  t.same(
    lines.map((l) => l.requestId),
    ['one', 'two', 'three', 'four'],
    'a later turn writes its own',
  );
});

t.test('lines are wanted when the level writes them or a tap reads them', async (t) => {
  t.equal(new AccessLog(capture('info').log).wanted, true, 'info');
  t.equal(new AccessLog(capture('warn').log).wanted, false, 'warn, no tap');
  t.equal(new AccessLog(capture('warn').log, () => undefined).wanted, true, 'warn with a tap');
  const { log, lines } = capture('warn');
  const tapped: string[] = [];
  const access = new AccessLog(log, (l) => tapped.push(l.requestId));
  access.write(line('x'), undefined);
  await new Promise((r) => setImmediate(r));
  t.same(lines, [], 'warn writes no call line');
  t.same(tapped, ['x'], 'the tap still reads it');
});
