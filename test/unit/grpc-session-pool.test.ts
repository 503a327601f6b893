// The gRPC upstream client's sessions to one agent (src/upstream/grpc-session.ts)
// against a raw node:http2 agent that allows two calls open at once per
// connection (SETTINGS_MAX_CONCURRENT_STREAMS, as nginx sends 128): with two
// streams held open, a third call goes out on a second connection at once
// (node:http2 would hold it on the first until a stream ended); the oldest
// connection stays when its calls end, the extra one closes after idleMs
// without a call, and a call after that goes on the oldest again; a call made
// in the very turn an idle extra connection closes, the oldest full, goes on
// a new connection (never on the closing one). A call's
// stream that node:http2 holds unsent (the agent's streams all taken on its
// connection) ends at once when the gateway cancels it, not when it is sent.
import { connect, createServer as createH2Server, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { cancelStream } from '../../src/upstream/grpc-failures.js';
import { GrpcSession, type GrpcCallOptions } from '../../src/upstream/grpc-session.js';
import { waitFor } from '../helpers/wait.js';

const PATH = '/lf.a2a.v1.A2AService/SendMessage';
const ANSWER = Buffer.from('answer');
const framed = (b: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, 0, b.length]), b]);

const held: ServerHttp2Stream[] = [];
/** The bodies of the calls the agent answered at once (not held). */
const answered: string[] = [];
const sessions: ServerHttp2Session[] = [];
const agent = createH2Server({ settings: { maxConcurrentStreams: 2 } });
agent.on('session', (s) => void sessions.push(s));
agent.on('stream', (stream, headers) => {
  stream.resume();
  stream.on('end', () => {
    if (headers['x-hold'] === '1') return void held.push(stream);
    answered.push(String(headers['x-body'] ?? ''));
    answer(stream);
  });
});
function answer(stream: ServerHttp2Stream): void {
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
  stream.end(framed(ANSWER));
}
await new Promise<void>((r) => agent.listen(0, '127.0.0.1', r));
const address = `127.0.0.1:${(agent.address() as AddressInfo).port}`;
const open = (): ServerHttp2Session[] => sessions.filter((s) => !s.closed && !s.destroyed);

const session = new GrpcSession(address, undefined, 20_000, 50);
t.teardown(async () => {
  session.close();
  for (const s of held) if (!s.closed) s.close();
  await new Promise((r) => agent.close(r));
});

const opts = (hold: boolean): GrpcCallOptions => ({
  metadata: hold ? { 'x-hold': '1' } : ({} as Record<string, string>),
  maxMessageBytes: 1000,
  signal: new AbortController().signal,
});
// (a deadline only so that a call held behind the streams fails rather than hangs)
const unary = (): Promise<Buffer> =>
  session.unary(PATH, [Buffer.from('q')], { ...opts(false), timeoutMs: 10_000 }, (m) => m);

t.test('a call beyond what the agent allows open on a connection goes on another one at once', async (tt) => {
  tt.same(await unary(), ANSWER, 'a first call opens the first connection');
  const a = session.call(PATH, [Buffer.from('a')], opts(true));
  const b = session.call(PATH, [Buffer.from('b')], opts(true));
  const firstA = a.next();
  const firstB = b.next();
  await waitFor(() => held.length === 2, 'the agent holds two streams');
  tt.equal(open().length, 1, 'both on the first connection');
  tt.same(await unary(), ANSWER, 'a third call is answered while both streams are held');
  tt.equal(open().length, 2, 'on a second connection');
  for (const s of held.splice(0)) answer(s);
  tt.same((await firstA).value, ANSWER);
  tt.same((await firstB).value, ANSWER);
  tt.equal((await a.next()).done, true);
  tt.equal((await b.next()).done, true);
});

t.test('the extra connection closes once idle; the oldest stays and takes the next call', async (tt) => {
  await waitFor(() => open().length === 1, 'the extra connection closed after idleMs');
  const oldest = open()[0];
  tt.same(await unary(), ANSWER);
  tt.same(open(), [oldest], 'the next call went on the oldest connection');
  tt.equal(sessions.length, 2, 'no connection was opened for it');
});

t.test('a stream node:http2 holds unsent is ended at once by a cancel (not when a slot frees)', async (tt) => {
  const client = connect(`http://${address}`);
  tt.teardown(() => client.close());
  await once(client, 'remoteSettings');
  const hold = (n: number) => {
    const s = client.request({ ':path': PATH, 'x-hold': '1' });
    s.on('error', () => undefined);
    s.end(framed(Buffer.from(`h${n}`)));
  };
  hold(1);
  hold(2);
  await waitFor(() => held.length === 2, 'the agent holds both streams it allows');
  const queued = client.request({ ':path': PATH, 'x-body': 'queued' });
  queued.on('error', () => undefined); // (node:http2 fails a write to a stream it holds unsent)
  const closed = new Promise((r) => queued.once('close', r));
  queued.end(framed(Buffer.from('q')));
  cancelStream(queued);
  await closed;
  tt.equal(held.length, 2, 'closed while the agent still held both streams');
  for (const s of held.splice(0)) answer(s);
  // a call after the slots are free: the cancelled one, had it been held for sending, would have gone before it
  const after = client.request({ ':path': PATH, 'x-body': 'after' });
  after.on('error', () => undefined);
  after.end(framed(Buffer.from('a')));
  after.resume();
  await new Promise((r) => after.once('close', r));
  tt.same(answered.slice(-1), ['after'], 'the agent got the next call');
  tt.notOk(answered.includes('queued'), 'and never the cancelled one');
});

t.test('a call made just as an idle extra connection closes, the oldest full, goes on a new one', async (tt) => {
  // (ClientHttp2Session, whose close() is watched below, is not exported: taken from a connection of the test's own)
  const probe = connect(`http://${address}`);
  const seen = sessions.length;
  await waitFor(() => sessions.length === seen + 1, 'the probe connection at the agent');
  const proto = Object.getPrototypeOf(probe) as { close(this: unknown, ...a: unknown[]): unknown };
  probe.close();
  const a = session.call(PATH, [Buffer.from('a')], opts(true));
  const b = session.call(PATH, [Buffer.from('b')], opts(true));
  const firstA = a.next();
  const firstB = b.next();
  await waitFor(() => held.length === 2, 'the agent holds two streams on the oldest connection');
  const before = sessions.length;
  tt.same(await unary(), ANSWER, 'a third call is answered');
  tt.equal(sessions.length, before + 1, 'on an extra connection, idle after it');
  // a call in the same turn as the idle extra connection's close(), its 'close' event still to come
  const close = proto.close;
  let during: Promise<Buffer> | undefined;
  proto.close = function (this: unknown, ...args: unknown[]) {
    const done = close.apply(this, args);
    during ??= unary();
    return done;
  };
  try {
    const call = await waitFor(() => during, 'the extra connection closed after idleMs');
    tt.same(await call, ANSWER, 'the call made as it closed is answered');
  } finally {
    proto.close = close;
  }
  tt.equal(sessions.length, before + 2, 'on a connection of its own');
  for (const s of held.splice(0)) answer(s);
  tt.same((await firstA).value, ANSWER);
  tt.same((await firstB).value, ANSWER);
  await Promise.all([a.next(), b.next()]);
});
