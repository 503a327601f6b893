// A request answered by its head and a pulled body (src/upstream/pulled-answer.ts)
// against a real node:http server on 127.0.0.1, after the head: the reader
// dropping the body, the caller leaving, the agent breaking the body off, each
// ending the agent's answer and giving the budget back exactly once; a small
// answer of declared length whole; and getWithin's whole-fetch timeout and
// size cap.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import t from 'tap';
import { Pool } from 'undici';
import { getWithin, requestPulled, type PulledOptions } from '../../src/upstream/pulled-answer.js';
import { CallSignal } from '../../src/util/call-signal.js';
import { waitFor } from '../helpers/wait.js';

const answers: ServerResponse[] = [];
let closedAnswers = 0;
const server = createServer((req, res) => {
  answers.push(res);
  res.on('close', () => closedAnswers++);
  if (req.url === '/small') return void res.writeHead(200, { 'content-length': '5' }).end('small');
  if (req.url === '/trickle') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.write('{');
  }
  if (req.url === '/big') return void res.writeHead(200).end('x'.repeat(2000));
  // an endless body, written as the reader takes it
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write('data: first\n\n');
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const pool = new Pool(origin);
t.teardown(async () => {
  for (const res of answers) res.destroy();
  await pool.close();
  await new Promise((r) => server.close(r));
});

/** Options whose budget release counts, and whose failures say their stage. */
function options(signal = new CallSignal()): PulledOptions & { released: number } {
  const o = {
    signal,
    timeoutMs: 5000,
    released: 0,
    admit: () => () => void o.released++,
    failure: (e: Error, _timedOut: boolean, stage: 'request' | 'body') =>
      new Error(`${stage}: ${signal.aborted ? 'caller gone' : e.message}`),
  };
  return o;
}
const get = (path: string) => ({ method: 'GET' as const, path });
/** The error `p` rejects with (the test fails if it resolves). */
async function rejection(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: Error) => e,
  );
}

t.test('the reader drops the body: the agent answer ends, the budget back once', async (tt) => {
  const o = options();
  const before = closedAnswers;
  const a = await requestPulled(pool, get('/endless'), o);
  const body = a.body as Readable;
  let first: unknown;
  for await (const chunk of body) {
    first = chunk;
    break; // the reader leaves: the body is destroyed
  }
  tt.match(String(first), /data: first/, 'the first chunk came');
  await waitFor(() => closedAnswers > before, "the agent's answer closed");
  tt.equal(o.released, 1);
});

t.test('the caller leaves after the head: the body fails, the budget back once', async (tt) => {
  const signal = new CallSignal();
  const o = options(signal);
  const a = await requestPulled(pool, get('/endless'), o);
  const body = a.body as Readable;
  const failed = new Promise<Error>((resolve) => body.once('error', resolve));
  signal.abort();
  tt.equal((await failed).message, 'body: caller gone');
  tt.equal(o.released, 1);
  body.destroy();
  tt.equal(o.released, 1, 'a later destroy gives nothing back again');
});

t.test('the agent breaks the body off: a body failure, the budget back once', async (tt) => {
  const o = options();
  const a = await requestPulled(pool, get('/endless'), o);
  const body = a.body as Readable;
  const failed = new Promise<Error>((resolve) => body.once('error', resolve));
  answers.at(-1)!.socket!.destroy();
  tt.match((await failed).message, /^body: /);
  tt.equal(o.released, 1);
});

t.test('a small answer of declared length comes whole', async (tt) => {
  const o = options();
  const a = await requestPulled(pool, get('/small'), { ...o, wholeMax: 64 });
  tt.ok(Buffer.isBuffer(a.body), 'one buffer');
  tt.equal(String(a.body), 'small');
  tt.equal(o.released, 1);
});

t.test('getWithin: the whole answer within its time, its body capped', async (tt) => {
  const ok = await getWithin(pool, `${origin}/small`, {}, 5000, 100);
  tt.same({ status: ok.status, body: String(ok.body) }, { status: 200, body: 'small' });
  const slow = await rejection(getWithin(pool, `${origin}/trickle`, {}, 200, 100));
  tt.equal(slow.message, `${origin}/trickle did not answer within 200 ms`, 'a body that never ends: the timeout');
  const big = await rejection(getWithin(pool, `${origin}/big`, {}, 5000, 100));
  tt.match(big.message, /exceeds maxResponseBytes \(100 bytes\)/);
});
