// The gRPC upstream client of translated calls (src/bindings/grpc/outbound.ts
// over src/upstream/grpc-session.ts, node:http2) against a real grpc-js
// server and a raw node:http2 server on 127.0.0.1 (spec §10): an answer with
// the service parameters as metadata, an error status with details, a
// trailers-only error, a non-200 HTTP status, a stream whose messages are
// split across DATA frames or share one, a compressed or oversized message,
// the deadline, the caller leaving (the agent sees the stream cancelled), an
// answer while a large request waits to be sent on the same session, a
// refused connection, a call or a stream refused unprocessed (sent once
// more), a stream whose caller leaves while the agent is silent, messages
// before a refused one, a stream left while paused after the agent ended it
// (closed all the same), and a new session after the agent restarts — with
// the origin's budgets given back.
import {
  constants,
  createServer as createH2Server,
  type ClientHttp2Stream,
  type Http2Server,
  type ServerHttp2Stream,
} from 'node:http2';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import t from 'tap';
import { GrpcUpstream } from '../../src/bindings/grpc/outbound.js';
import { DEFAULT_LIMITS } from '../../src/config/types.js';
import { envelopeOf, serviceParameters } from '../../src/core/envelope.js';
import { methodInfo, type MethodName } from '../../src/core/methods.js';
import type { UpstreamTarget } from '../../src/core/upstream.js';
import { A2AError, ERROR_INFO_TYPE } from '../../src/errors/a2a-error.js';
import {
  GetTaskRequestSchema,
  StreamResponseSchema,
  SubscribeToTaskRequestSchema,
  TaskSchema,
} from '../../src/gen/a2a_pb.js';
import { statusToBinary } from '../../src/proto/json.js';
import { GrpcStatusError, statusOf } from '../../src/upstream/grpc-messages.js';
import { GrpcSession } from '../../src/upstream/grpc-session.js';
import { UpstreamRegistry, type ClientFactories } from '../../src/upstream/registry.js';
import { refusedPort } from '../helpers/broken-upstreams.js';
import { waitFor } from '../helpers/wait.js';
import { failure } from '../helpers/failure.js';

const SERVICE = '/lf.a2a.v1.A2AService';
const id = (b: Buffer): Buffer => b;
const method = (path: string, responseStream: boolean): grpc.MethodDefinition<Buffer, Buffer> => ({
  path,
  requestStream: false,
  responseStream,
  requestSerialize: id,
  requestDeserialize: id,
  responseSerialize: id,
  responseDeserialize: id,
});
const task = (taskId: string, note = ''): Buffer =>
  Buffer.from(toBinary(TaskSchema, create(TaskSchema, { id: taskId, contextId: note })));
const event = (taskId: string): Uint8Array =>
  toBinary(StreamResponseSchema, create(StreamResponseSchema, { payload: { case: 'task', value: { id: taskId } } }));

/** What the grpc-js agent saw: the version header of the last call, calls it saw cancelled, calls it holds. */
const seen = { version: '', cancelled: 0, held: [] as Array<() => void> };

async function grpcAgent(port = 0): Promise<{ port: number; close(): void }> {
  const server = new grpc.Server();
  server.addService(
    { GetTask: method(`${SERVICE}/GetTask`, false), SubscribeToTask: method(`${SERVICE}/SubscribeToTask`, true) },
    {
      GetTask: (call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => {
        seen.version = String(call.metadata.get('a2a-version')[0] ?? '');
        call.on('cancelled', () => seen.cancelled++);
        const ask = fromBinary(GetTaskRequestSchema, call.request).id;
        if (ask === 'hold') return void seen.held.push(() => cb(null, task('late')));
        if (ask === 'big') return cb(null, task('big', 'x'.repeat(5000)));
        if (ask === 'missing') {
          const metadata = new grpc.Metadata();
          const details = [{ '@type': ERROR_INFO_TYPE, reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }];
          metadata.set('grpc-status-details-bin', Buffer.from(statusToBinary(5, 'no task "missing"', details)));
          return cb({ code: grpc.status.NOT_FOUND, details: 'no task "missing"', metadata });
        }
        cb(null, task(ask));
      },
      SubscribeToTask: (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
        call.on('cancelled', () => seen.cancelled++);
        // far more than the HTTP/2 windows hold: the agent can only finish if the client reads
        for (let i = 0; i < 2000; i++) call.write(Buffer.from(event(`e${i}`.padEnd(200, '.'))));
      },
    },
  );
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (e, p) =>
      e ? reject(e) : resolve(p),
    ),
  );
  return { port: bound, close: () => server.forceShutdown() };
}

/** A raw HTTP/2 agent: each SubscribeToTask/GetTask answer is written by hand. */
/** How often each refusing case was called. */
const refusals = { once: 0, always: 0, afterHeaders: 0, streamOnce: 0 };
/** Streams the raw agent holds open after one event ("hold-stream"), and whether each was reset. */
const heldStreams: ServerHttp2Stream[] = [];
/** Streams that sent a good message and then a compressed one ("good-then-compressed"). */
const tornStreams: ServerHttp2Stream[] = [];
/** One length-prefixed message. */
function frameOf(message: Uint8Array): Buffer {
  const f = Buffer.alloc(5 + message.length);
  f.writeUInt32BE(message.length, 1);
  f.set(message, 5);
  return f;
}
const RAW: Record<string, (s: ServerHttp2Stream) => void> = {
  'trailers-only': (s) =>
    s.respond(
      {
        ':status': 200,
        'content-type': 'application/grpc',
        'grpc-status': '7',
        'grpc-message': 'not%20yours%20%E2%9C%8B',
      },
      { endStream: true },
    ),
  'http-503': (s) => s.respond({ ':status': 503, 'content-type': 'text/plain' }, { endStream: true }),
  // what a grpc-js agent answers when its own backend is down: the text names ECONNREFUSED, the call was taken
  'unavailable-refused-text': (s) =>
    s.respond(
      {
        ':status': 200,
        'content-type': 'application/grpc',
        'grpc-status': '14',
        'grpc-message': 'No connection established. Last error: connect ECONNREFUSED 10.0.0.7:9000',
      },
      { endStream: true },
    ),
  // RST_STREAM REFUSED_STREAM: the agent did not process the call (RFC 9113 §8.7)
  'refused-once': (s) => {
    if (refusals.once++ === 0) return void s.close(constants.NGHTTP2_REFUSED_STREAM);
    s.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0' }));
    s.end(frameOf(task('second')));
  },
  'refused-once-stream': (s) => {
    if (refusals.streamOnce++ === 0) return void s.close(constants.NGHTTP2_REFUSED_STREAM);
    s.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0' }));
    s.end(Buffer.concat([frameOf(event('first')), frameOf(event('second'))]));
  },
  // ~80 KiB of messages and the status at once: more than the client reads ahead before it pauses the stream
  'flood-end': (s) => {
    s.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0' }));
    s.end(Buffer.concat(Array.from({ length: 40 }, (_, i) => frameOf(event(`f${i}`.padEnd(2000, '.'))))));
  },
  // a good message, then a compressed one in the next DATA frame
  'good-then-compressed': (s) => {
    s.respond({ ':status': 200, 'content-type': 'application/grpc' });
    const bad = frameOf(event('bad'));
    bad[0] = 1;
    s.write(frameOf(event('good')), () => s.write(bad));
    tornStreams.push(s);
  },
  'hold-stream': (s) => {
    s.respond({ ':status': 200, 'content-type': 'application/grpc' });
    s.write(frameOf(event('held')));
    heldStreams.push(s);
  },
  'refused-always': (s) => {
    refusals.always++;
    s.close(constants.NGHTTP2_REFUSED_STREAM);
  },
  'refused-after-headers': (s) => {
    refusals.afterHeaders++;
    s.respond({ ':status': 200, 'content-type': 'application/grpc' });
    s.close(constants.NGHTTP2_REFUSED_STREAM);
  },
  compressed: (s) => {
    s.respond({ ':status': 200, 'content-type': 'application/grpc' });
    const body = task('c');
    const prefix = Buffer.alloc(5);
    prefix[0] = 1;
    prefix.writeUInt32BE(body.length, 1);
    s.write(Buffer.concat([prefix, body]));
  },
  answer: (s) => {
    s.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0' }));
    s.end(frameOf(task('answered')));
  },
  split: (s) => {
    s.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0' }));
    const frames = ['a', 'b', 'c'].map((x) => {
      const m = event(x);
      const f = Buffer.alloc(5 + m.length);
      f.writeUInt32BE(m.length, 1);
      f.set(m, 5);
      return f;
    });
    // the first message in three DATA frames (inside its prefix, then its body), the next two in one
    s.write(frames[0]!.subarray(0, 3), () =>
      s.write(frames[0]!.subarray(3, 8), () =>
        s.write(frames[0]!.subarray(8), () => s.end(Buffer.concat([frames[1]!, frames[2]!]))),
      ),
    );
  },
};
/** Calls the raw agent holds without reading their request ("stall"): what was sent waits in the client's session. */
const stalled: ServerHttp2Stream[] = [];
const raw: Http2Server = createH2Server();
raw.on('stream', (s, headers) => {
  s.on('error', () => undefined); // a stream this server resets itself errors on its side too
  if (headers['x-case'] === 'stall') return void stalled.push(s);
  s.resume();
  s.on('end', () => RAW[String(headers['x-case'])]!(s));
});
await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
const rawAddress = `127.0.0.1:${(raw.address() as AddressInfo).port}`;

let agent = await grpcAgent();
const registry = new UpstreamRegistry({} as ClientFactories, { ...DEFAULT_LIMITS, upstreamConnections: 2 });
t.teardown(async () => {
  for (const release of seen.held) release();
  agent.close();
  await registry.close();
  await new Promise((r) => raw.close(r));
});

const target = (url: string, timeoutMs = 30_000): UpstreamTarget => ({
  url,
  version: '1.0',
  timeoutMs,
  maxSseEventBytes: 1024,
  maxResponseBytes: 1000,
  tls: undefined,
});
const client = (url: string, timeoutMs?: number) => new GrpcUpstream(target(url, timeoutMs), registry);
const envelope = (name: MethodName, taskId: string, rawCase = '') =>
  envelopeOf(
    methodInfo(name),
    name === 'SubscribeToTask'
      ? create(SubscribeToTaskRequestSchema, { id: taskId })
      : create(GetTaskRequestSchema, { id: taskId }),
    '',
    serviceParameters('1.0', [], rawCase ? { 'x-case': rawCase } : {}),
  );
const live = () => new AbortController().signal;

async function drain(it: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const x of it) out.push(x);
  return out;
}
/** Budgets are given back: as many calls as the budget allows still go through. */
async function budgetBack(tt: { equal: (a: unknown, b: unknown, m: string) => void }, url: string): Promise<void> {
  const c = client(url);
  const answers = await Promise.all([1, 2].map(() => c.unary(envelope('GetTask', 'ok'), live())));
  tt.equal(answers.length, 2, 'the budget was given back');
}

t.test('an answer, the service parameters sent as metadata', async (tt) => {
  const answer = await client(`127.0.0.1:${agent.port}`).unary(envelope('GetTask', 't-1'), live());
  tt.equal((answer as { id?: string }).id, 't-1');
  tt.equal(seen.version, '1.0', 'A2A-Version reached the agent');
  await budgetBack(tt, `127.0.0.1:${agent.port}`);
});

t.test('an error status with details: the error they name, with its details', async (tt) => {
  const e = await failure(client(`grpc://127.0.0.1:${agent.port}`).unary(envelope('GetTask', 'missing'), live()));
  tt.equal(e.errorName, 'TASK_NOT_FOUND');
  tt.equal(e.message, 'no task "missing"');
  tt.ok(
    e.details.some((d) => d.reason === 'TASK_NOT_FOUND'),
    'the ErrorInfo is kept',
  );
});

t.test('a trailers-only error and a non-200 HTTP status', async (tt) => {
  const c = client(rawAddress);
  const denied = await failure(c.unary(envelope('GetTask', 'x', 'trailers-only'), live()));
  tt.equal(denied.errorName, 'PERMISSION_DENIED', 'grpc-status from the only header block');
  tt.equal(denied.message, 'not yours ✋', 'grpc-message percent-decoded');
  const down = await failure(c.unary(envelope('GetTask', 'x', 'http-503'), live()));
  tt.equal(down.errorName, 'UPSTREAM_UNAVAILABLE', 'HTTP 503 → UNAVAILABLE');
  const theirs = await failure(c.unary(envelope('GetTask', 'x', 'unavailable-refused-text'), live()));
  tt.equal(theirs.errorName, 'UPSTREAM_UNAVAILABLE');
  tt.equal(theirs.connectionRefused, false, "an agent's status naming ECONNREFUSED is no refused connection");
});

t.test("a trailers-only status's metadata: the agent's own keys, not HTTP's or gRPC's", async (tt) => {
  const status = statusOf(
    {
      ':status': '200',
      'content-type': 'application/grpc',
      'content-length': '0',
      date: 'Sat, 05 Dec 2026 03:00:00 GMT',
      te: 'trailers',
      'grpc-status': '7',
      'grpc-message': 'no',
      'grpc-encoding': 'identity',
      'grpc-status-details-bin': Buffer.from(statusToBinary(7, 'no', [])).toString('base64'),
      'x-agent-note': 'kept',
      'trace-bin': 'AAEC',
      'broken-bin': '%%%',
    },
    undefined,
  );
  tt.same(
    Object.keys(status?.metadata?.getMap() ?? {}).sort(),
    ['grpc-status-details-bin', 'trace-bin', 'x-agent-note'],
    'custom keys and the status details only; a binary value that is no base64 left out',
  );
  tt.same(status?.metadata?.get('trace-bin'), [Buffer.from([0, 1, 2])]);
});

t.test('an answer while 11 MiB of another call wait to be sent on the session: read, not refused', async (tt) => {
  const c = client(rawAddress);
  const ac = new AbortController();
  tt.teardown(() => ac.abort()); // the held call ends whatever happens below
  const large = envelopeOf(
    methodInfo('GetTask'),
    create(GetTaskRequestSchema, { id: 'x'.repeat(11 * 2 ** 20) }),
    '',
    serviceParameters('1.0', [], { 'x-case': 'stall' }),
  );
  const held = failure(c.unary(large, ac.signal));
  await waitFor(() => stalled.length > 0, 'the agent holds the large call, its request unread');
  // Node's default session memory (10 MB) would reset this call as its answer's headers arrive (ENHANCE_YOUR_CALM)
  const answer = await c.unary(envelope('GetTask', 'x', 'answer'), live());
  tt.equal((answer as { id?: string }).id, 'answered', 'the other call is answered');
  ac.abort();
  tt.equal((await held).errorName, 'CANCELLED', 'the large call ends when its caller leaves');
});

t.test('a stream: a message split across DATA frames, two in one', async (tt) => {
  const events = await drain(client(rawAddress).stream(envelope('SubscribeToTask', 'x', 'split'), live()));
  tt.same(
    events.map((e) => (e as { payload: { value: { id: string } } }).payload.value.id),
    ['a', 'b', 'c'],
  );
});

t.test('a stream the caller stops reading is cancelled at the agent', async (tt) => {
  const before = seen.cancelled;
  let n = 0;
  for await (const _ of client(`127.0.0.1:${agent.port}`).stream(envelope('SubscribeToTask', 'x'), live()))
    if (++n === 3) break;
  await waitFor(() => seen.cancelled > before, 'the agent sees the stream cancelled');
  tt.equal(n, 3);
});

t.test('a compressed message or one over maxResponseBytes: INVALID_AGENT_RESPONSE', async (tt) => {
  const compressed = await failure(client(rawAddress).unary(envelope('GetTask', 'x', 'compressed'), live()));
  tt.equal(compressed.errorName, 'INVALID_AGENT_RESPONSE');
  tt.match(compressed.message, /compressed/);
  const big = await failure(client(`127.0.0.1:${agent.port}`).unary(envelope('GetTask', 'big'), live()));
  tt.equal(big.errorName, 'INVALID_AGENT_RESPONSE');
  tt.match(big.message, /exceeds maxResponseBytes/);
  await budgetBack(tt, `127.0.0.1:${agent.port}`);
});

t.test('no answer before the deadline: UPSTREAM_TIMEOUT, the agent sees the call cancelled', async (tt) => {
  const before = seen.cancelled;
  const e = await failure(client(`127.0.0.1:${agent.port}`, 200).unary(envelope('GetTask', 'hold'), live()));
  tt.equal(e.errorName, 'UPSTREAM_TIMEOUT');
  await waitFor(() => seen.cancelled > before, 'the agent sees the call end');
  await budgetBack(tt, `127.0.0.1:${agent.port}`);
});

t.test('the caller leaves: CANCELLED, the stream reset', async (tt) => {
  const before = seen.cancelled;
  const held = seen.held.length;
  const ac = new AbortController();
  const call = failure(client(`127.0.0.1:${agent.port}`).unary(envelope('GetTask', 'hold'), ac.signal));
  await waitFor(() => seen.held.length > held, 'the agent holds the call');
  ac.abort();
  tt.equal((await call).errorName, 'CANCELLED');
  await waitFor(() => seen.cancelled > before, 'the agent sees the stream reset');
  await budgetBack(tt, `127.0.0.1:${agent.port}`);
});

t.test('a refused connection: UPSTREAM_UNAVAILABLE, flagged, no address answered', async (tt) => {
  const port = await refusedPort();
  const e = await failure(client(`127.0.0.1:${port}`).unary(envelope('GetTask', 'ok'), live()));
  tt.equal(e.errorName, 'UPSTREAM_UNAVAILABLE');
  tt.equal(e.connectionRefused, true, 'the scale-out retry reads it');
  tt.notMatch(e.message, String(port), 'the port is not answered');
  tt.notMatch(e.message, '127.0.0.1', 'the address is not answered');
  tt.match(e.internal ?? '', /ECONNREFUSED/, 'the log keeps the reason');
});

t.test('the agent restarts: a new session serves the next calls', async (tt) => {
  const c = client(`127.0.0.1:${agent.port}`);
  tt.equal(((await c.unary(envelope('GetTask', 'before'), live())) as { id?: string }).id, 'before');
  const port = agent.port;
  agent.close();
  agent = await grpcAgent(port);
  const after = await waitFor(async () => {
    try {
      return (await c.unary(envelope('GetTask', 'after'), live())) as { id?: string };
    } catch (e) {
      // a call racing the old connection's close may see it go; it must not stick
      if (e instanceof A2AError && e.errorName === 'UPSTREAM_UNAVAILABLE') return undefined;
      throw e;
    }
  }, 'a call after the restart is answered');
  tt.equal(after.id, 'after');
});

t.test('a call the agent refused unprocessed (REFUSED_STREAM) is sent once more, and only then', async (tt) => {
  const c = client(rawAddress);
  const answer = await c.unary(envelope('GetTask', 'x', 'refused-once'), live());
  tt.equal((answer as { id?: string }).id, 'second', 'the second attempt answered');
  tt.equal(refusals.once, 2, 'two streams reached the agent');
  const twice = await failure(c.unary(envelope('GetTask', 'x', 'refused-always'), live()));
  tt.equal(twice.errorName, 'UPSTREAM_UNAVAILABLE', 'refused again: unavailable');
  tt.equal(refusals.always, 2, 'after one retry, not more');
  const answered = await failure(c.unary(envelope('GetTask', 'x', 'refused-after-headers'), live()));
  tt.equal(answered.errorName, 'UPSTREAM_UNAVAILABLE');
  tt.equal(refusals.afterHeaders, 1, 'a stream the agent had answered is never sent again');
  await budgetBack(tt, `127.0.0.1:${agent.port}`);
});

t.test('a stream the agent refused unprocessed is sent once more, its events read from the second', async (tt) => {
  const events = await drain(
    client(rawAddress).stream(envelope('SubscribeToTask', 'x', 'refused-once-stream'), live()),
  );
  tt.same(
    events.map((e) => (e as { payload: { value: { id: string } } }).payload.value.id),
    ['first', 'second'],
  );
  tt.equal(refusals.streamOnce, 2, 'two streams reached the agent');
});

t.test('a stream whose caller leaves while the agent is silent: CANCELLED, the stream reset', async (tt) => {
  // one stream at a time to the agent: a stream whose budget is not given back would refuse the next one
  const tight = new UpstreamRegistry({} as ClientFactories, { ...DEFAULT_LIMITS, upstreamStreams: 1 });
  tt.teardown(() => tight.close());
  const one = new GrpcUpstream(target(rawAddress), tight);
  const ac = new AbortController();
  const events = one.stream(envelope('SubscribeToTask', 'x', 'hold-stream'), ac.signal);
  const it = events[Symbol.asyncIterator]();
  const first = await it.next();
  tt.equal((first.value as { payload: { value: { id: string } } }).payload.value.id, 'held');
  const waiting = it.next(); // the agent sends nothing more
  await waitFor(() => heldStreams.length === 1, 'the agent holds the stream');
  ac.abort();
  const e = await failure(waiting);
  tt.equal(e.errorName, 'CANCELLED', 'the waiting pull fails as the caller left');
  const held = heldStreams[0]!;
  await waitFor(() => held.closed, 'the agent sees the stream end');
  tt.equal(held.rstCode, constants.NGHTTP2_CANCEL, 'reset with CANCEL');
  tt.same(await it.next(), { done: true, value: undefined }, 'then done');
  const next = await drain(one.stream(envelope('SubscribeToTask', 'x', 'split'), live()));
  tt.equal(next.length, 3, 'the stream budget was given back: the next stream goes');
});

t.test('messages read before a refused one are pulled first; then INVALID_AGENT_RESPONSE', async (tt) => {
  const session = new GrpcSession(rawAddress, undefined);
  tt.teardown(() => session.close());
  const opts = { metadata: { 'x-case': 'good-then-compressed' }, maxMessageBytes: 1 << 20, signal: live() };
  const answer = session.call(`${SERVICE}/SubscribeToTask`, [new Uint8Array(0)], opts);
  await waitFor(() => tornStreams[0]?.closed, 'the client read both messages and reset the stream');
  tt.equal(tornStreams[0]!.rstCode, constants.NGHTTP2_CANCEL, 'reset with CANCEL');
  const first = await answer.next();
  tt.same(fromBinary(StreamResponseSchema, first.value as Buffer).payload.value, create(TaskSchema, { id: 'good' }));
  const e = await failure(answer.next());
  tt.equal(e.errorName, 'INVALID_AGENT_RESPONSE');
  tt.match(e.message, /compressed/);
});

t.test('a stream left while paused after the agent ended it is closed (its session count goes down)', async (tt) => {
  const session = new GrpcSession(rawAddress, undefined);
  tt.teardown(() => session.close());
  const opts = { metadata: { 'x-case': 'flood-end' }, maxMessageBytes: 1 << 20, signal: live() };
  const answer = session.call(`${SERVICE}/SubscribeToTask`, [new Uint8Array(0)], opts);
  const stream = (answer as unknown as { stream: ClientHttp2Stream }).stream; // what the call reads from
  tt.equal((await answer.next()).done, false, 'a first message');
  await waitFor(() => stream.closed, 'the agent has ended the stream (the rest unread, the stream paused)');
  tt.ok(stream.isPaused(), 'paused with messages read ahead');
  await answer.return!();
  await waitFor(() => stream.destroyed, 'the stream is destroyed once the call is left');
});

t.test(
  'a connection that never comes up (TLS handshake unanswered) fails a stream, which has no deadline',
  async (tt) => {
    const sockets: Socket[] = [];
    const silent = createTcpServer((socket) => void sockets.push(socket)); // accepts, never speaks
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    tt.teardown(() => {
      for (const socket of sockets) socket.destroy();
      silent.close();
    });
    const ca = new URL('../fixtures/tls/ca.pem', import.meta.url).pathname;
    const session = new GrpcSession(
      `127.0.0.1:${(silent.address() as AddressInfo).port}`,
      { ca, cert: undefined, key: undefined, servername: undefined },
      200,
    );
    tt.teardown(() => session.close());
    const opts = { metadata: {}, maxMessageBytes: 1000, signal: new AbortController().signal };
    let failed: unknown;
    try {
      for await (const message of session.call(`${SERVICE}/SubscribeToTask`, [new Uint8Array(0)], opts))
        tt.fail(String(message));
    } catch (e) {
      failed = e;
    }
    tt.ok(failed instanceof GrpcStatusError, 'the call ends with a status');
    tt.equal((failed as GrpcStatusError).status.code, grpc.status.UNAVAILABLE, 'UNAVAILABLE');
    tt.match((failed as GrpcStatusError).status.details, /ETIMEDOUT: no connection within 200 ms/, 'says why');
    tt.equal(sockets.length, 1, 'the TCP connection was made: it is the handshake that never came');
  },
);
