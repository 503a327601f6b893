// The HTTP upstream requests (src/upstream/http-pool.ts, undici's dispatch
// API) against a real node:http server on 127.0.0.1: the answer as text, the
// size cap, the timeout, a caller gone before or during the call — each with
// the error the pipeline maps, the origin's budget given back, and (for a
// caller already gone) nothing sent; and an agent that leaves the connection
// unanswered (a TLS handshake it never answers): the timeout and the caller's
// leaving end a unary call and a stream while undici is still connecting.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { DEFAULT_LIMITS } from '../../src/config/types.js';
import type { UpstreamTarget } from '../../src/core/upstream.js';
import { A2AError } from '../../src/errors/a2a-error.js';
import { HttpPool } from '../../src/upstream/http-pool.js';
import { UpstreamRegistry, type ClientFactories } from '../../src/upstream/registry.js';
import { failure } from '../helpers/failure.js';
import { handshakeNever } from '../helpers/handshake-never.js';
import { waitFor } from '../helpers/wait.js';

let requests = 0;
const held: Array<() => void> = [];
const server: Server = createServer((req, res) => {
  requests++;
  req.resume();
  req.on('end', () => {
    if (req.url === '/big') return res.writeHead(200, { 'content-type': 'application/json' }).end('x'.repeat(5000));
    if (req.url === '/slow') return void held.push(() => res.end('late'));
    if (req.url === '/stall-body') {
      res.writeHead(200, { 'content-type': 'application/json' }).write('{"part');
      return void held.push(() => res.end('"}'));
    }
    if (req.url === '/chunked-big') {
      res.writeHead(200, { 'content-type': 'application/json' }); // no length: chunked
      for (let i = 0; i < 5; i++) res.write('x'.repeat(1000));
      return void res.end();
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end('{"ok":true}');
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const registry = new UpstreamRegistry({} as ClientFactories, { ...DEFAULT_LIMITS, upstreamConnections: 1 });
t.teardown(async () => {
  for (const release of held) release();
  // the silent agent first answers its connections (undici's connects fail at once: see handshake-never.ts)
  await silent.close();
  await registry.close();
  await stalledRegistry.close();
  await new Promise((r) => server.close(r));
});

// a timeout far above any wait under load where the test wants an answer or a cancel; `quick` where it wants the timeout
const target: UpstreamTarget = {
  url,
  version: '1.0',
  timeoutMs: 60_000,
  maxSseEventBytes: 1024,
  maxResponseBytes: 1000,
  tls: undefined,
};
const pool = new HttpPool(target, registry);
const quick = new HttpPool({ ...target, timeoutMs: 300 }, registry);
const post = (path: string) => ({
  method: 'POST' as const,
  path,
  headers: { 'content-type': 'application/json' },
  body: '{}',
});

t.test('an answer: status, content type and body', async (tt) => {
  const a = await pool.request(post('/ok'), new AbortController().signal);
  tt.same(
    { ...a, body: a.body.toString() },
    { status: 200, contentType: 'application/json; charset=utf-8', body: '{"ok":true}' },
  );
});

t.test('an answer over maxResponseBytes: INVALID_AGENT_RESPONSE', async (tt) => {
  const e = await failure(pool.request(post('/big'), new AbortController().signal));
  tt.ok(e instanceof A2AError, 'a gateway error');
  tt.equal(e.errorName, 'INVALID_AGENT_RESPONSE');
  tt.match(e.message, /maxResponseBytes \(1000 bytes\)/);
});

t.test('no answer within the timeout: UPSTREAM_TIMEOUT', async (tt) => {
  const e = await failure(quick.request(post('/slow'), new AbortController().signal));
  tt.equal(e.errorName, 'UPSTREAM_TIMEOUT');
});

t.test('a head, then a body that stops coming: UPSTREAM_TIMEOUT (the timeout covers the whole answer)', async (tt) => {
  const e = await failure(quick.request(post('/stall-body'), new AbortController().signal));
  tt.equal(e.errorName, 'UPSTREAM_TIMEOUT');
});

t.test('a chunked answer (no declared length) past maxResponseBytes: INVALID_AGENT_RESPONSE', async (tt) => {
  const e = await failure(pool.request(post('/chunked-big'), new AbortController().signal));
  tt.equal(e.errorName, 'INVALID_AGENT_RESPONSE');
});

t.test('the caller leaves during the call: CANCELLED', async (tt) => {
  const ac = new AbortController();
  const before = requests;
  const p = pool.request(post('/slow'), ac.signal);
  while (requests === before) await new Promise((r) => setImmediate(r)); // the upstream has the request
  ac.abort();
  tt.equal((await failure(p)).errorName, 'CANCELLED');
});

t.test('a caller already gone: CANCELLED, nothing sent', async (tt) => {
  const ac = new AbortController();
  ac.abort();
  const before = requests;
  tt.equal((await failure(pool.request(post('/ok'), ac.signal))).errorName, 'CANCELLED');
  tt.equal(requests, before, 'the upstream saw no request');
});

t.test('every call gave its budget back (a budget of one connection still admits a call)', async (tt) => {
  const a = await pool.request(post('/ok'), new AbortController().signal);
  tt.equal(a.status, 200);
});

// An agent that never answers the TLS handshake (helpers/handshake-never.ts): undici keeps connecting for its 10 s
// connect timeout. The call must end at its own timeout (or when its caller leaves) with the connection still open,
// and the agent's budget (two calls and one stream here) stays taken until undici lets go of the request.
const silent = await handshakeNever();
const stalledRegistry = new UpstreamRegistry({} as ClientFactories, {
  ...DEFAULT_LIMITS,
  upstreamConnections: 2,
  upstreamStreams: 1,
});
const stalled = new HttpPool({ ...target, url: silent.url, timeoutMs: 300 }, stalledRegistry);
const stalledPatient = new HttpPool({ ...target, url: silent.url }, stalledRegistry);

t.test(
  'an agent that never answers the TLS handshake: UPSTREAM_TIMEOUT at the call timeout, still connecting',
  async (tt) => {
    const e = await failure(stalled.request(post('/ok'), new AbortController().signal));
    tt.equal(e.errorName, 'UPSTREAM_TIMEOUT');
    tt.ok(await silent.stillConnecting(), 'answered before undici gave up connecting');
  },
);

t.test('a caller that leaves while undici is connecting: CANCELLED at once', async (tt) => {
  const ac = new AbortController();
  const before = silent.sockets.length;
  const p = stalledPatient.request(post('/ok'), ac.signal);
  await waitFor(() => silent.sockets.length > before, "undici's second connection"); // undici is connecting
  ac.abort();
  tt.equal((await failure(p)).errorName, 'CANCELLED');
  tt.ok(await silent.stillConnecting(), 'answered before undici gave up connecting');
});

t.test(
  'while undici still holds both requests, the agent has no budget left: nothing queues behind them',
  async (tt) => {
    const e = await failure(stalled.request(post('/ok'), new AbortController().signal));
    tt.equal(e.errorName, 'UPSTREAM_OVERLOADED');
  },
);

t.test('a stream whose agent never answers the handshake: UPSTREAM_TIMEOUT at the call timeout', async (tt) => {
  const e = await failure(stalled.open(post('/stream'), new AbortController().signal));
  tt.equal(e.errorName, 'UPSTREAM_TIMEOUT');
  tt.ok(await silent.stillConnecting(), 'answered before undici gave up connecting');
  const again = await failure(stalled.open(post('/stream'), new AbortController().signal));
  tt.equal(again.errorName, 'UPSTREAM_OVERLOADED', "the stream's budget is held while undici holds the request");
});

t.test('once undici lets go of them (its connects fail), the budgets are back', async (tt) => {
  await silent.release();
  const e = await failure(stalled.request(post('/ok'), new AbortController().signal));
  tt.equal(e.errorName, 'UPSTREAM_UNAVAILABLE', 'admitted: its connect fails on the bytes that are not TLS');
  const s = await failure(stalled.open(post('/stream'), new AbortController().signal));
  tt.equal(s.errorName, 'UPSTREAM_UNAVAILABLE', 'a stream admitted too');
});

t.test("a stream's caller that leaves while undici is connecting: CANCELLED at once", async (tt) => {
  const more = await handshakeNever();
  const registry = new UpstreamRegistry({} as ClientFactories, { ...DEFAULT_LIMITS, upstreamStreams: 1 });
  tt.teardown(async () => {
    await more.close();
    await registry.close();
  });
  const ac = new AbortController();
  const p = new HttpPool({ ...target, url: more.url, timeoutMs: 60_000 }, registry).open(post('/stream'), ac.signal);
  await waitFor(() => more.sockets.length > 0, 'undici connecting');
  ac.abort();
  tt.equal((await failure(p)).errorName, 'CANCELLED');
  tt.ok(await more.stillConnecting(), 'answered before undici gave up connecting');
});
