// The gRPC listener's limits on its callers (src/bindings/grpc/call-limits.ts,
// src/server/grpc-listener.ts), from raw node:http2 callers: the calls open on
// one connection are capped (SETTINGS_MAX_CONCURRENT_STREAMS); a request that
// does not arrive whole within limits.bodyTimeoutMs — part of a 10 MiB
// message, or headers only — is REQUEST_TIMEOUT, its stream reset, nothing
// sent upstream, and the connection then closes as idle; a caller that stops
// reading is reset at its deadline, and so is the agent's stream (translated
// and pass-through); a deadline already passed is refused before anything
// goes upstream; and one of 24.8 days or more (grpc-go sends 2592000S for 30
// days) is a long deadline, not an expired one.
import http2 from 'node:http2';
import { Writable } from 'node:stream';
import { fromJson, toBinary, type JsonValue } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import t from 'tap';
import { DEFAULT_LIMITS } from '../../src/config/types.js';
import { methodInfo } from '../../src/core/methods.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { drained } from '../../src/util/drained.js';
import { requestBytes, statusJson, streamEventBytes } from '../helpers/codec.js';
import { frame } from '../helpers/agent-answers-grpc.js';
import { gatewayConfig, userMessage } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

/** Events expected within a second or two; the bound only turns a hang into a failure. */
const BOUND = 10_000;
const STREAMS = 8;

// The agent: records every request it receives (its bytes as text), answers SendMessage, and streams events
// for as long as the caller takes them, recording the streams that end cancelled.
const received: string[] = [];
const cancelled: string[] = [];
const raw = (b: Buffer): Buffer => b;
const method = (name: string, responseStream: boolean): grpc.MethodDefinition<Buffer, Buffer> => ({
  path: `/lf.a2a.v1.A2AService/${name}`,
  requestStream: false,
  responseStream,
  requestSerialize: raw,
  requestDeserialize: raw,
  responseSerialize: raw,
  responseDeserialize: raw,
});
const responseSchema = methodInfo('SendMessage').responseSchema;
const ANSWER = Buffer.from(
  toBinary(responseSchema, fromJson(responseSchema, { message: userMessage('ok') } as unknown as JsonValue)),
);
const EVENT = streamEventBytes({
  statusUpdate: {
    taskId: 't',
    contextId: 'c',
    status: { state: 'TASK_STATE_WORKING' },
    metadata: { pad: 'x'.repeat(16384) },
  },
});
const agent = new grpc.Server();
agent.addService(
  { SendMessage: method('SendMessage', false), SendStreamingMessage: method('SendStreamingMessage', true) },
  {
    SendMessage: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
      received.push(call.request.toString('latin1'));
      done(null, ANSWER);
    },
    SendStreamingMessage: (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
      const text = call.request.toString('latin1');
      received.push(text);
      call.on('cancelled', () => cancelled.push(text));
      void (async () => {
        while (!call.cancelled) if (!call.write(EVENT)) await drained(call, 'cancelled');
      })();
    },
  },
);
const agentPort = await new Promise<number>((resolve, reject) =>
  agent.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
);

type Line = Record<string, unknown>;
const lines: Line[] = [];
const sink = new Writable({
  write(c: Buffer, _e, cb) {
    for (const l of c.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line);
    cb();
  },
});
const upstream = { url: `127.0.0.1:${agentPort}`, binding: 'GRPC' as const };
const gw = await startGateway(
  gatewayConfig(
    [
      { name: 'translated', upstream },
      { name: 'relay', match: { tenant: 'relay' }, upstream, passThrough: true },
    ],
    {
      limits: { ...DEFAULT_LIMITS, bodyTimeoutMs: 300, idleTimeoutMs: 1000, grpcStreamsPerConnection: STREAMS },
    },
  ),
  pino({ level: 'info' }, sink),
);
const sessions: http2.ClientHttp2Session[] = [];
t.teardown(async () => {
  for (const s of sessions) s.destroy();
  await gw.close();
  agent.forceShutdown();
});

function connect(settings: http2.Settings = {}): http2.ClientHttp2Session {
  const session = http2.connect(`http://${gw.grpcAddress}`, { settings });
  session.on('error', () => undefined); // the test looks at what closed, not why
  sessions.push(session);
  return session;
}

/** `p`, or a failure naming `what` once BOUND has passed. */
async function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_r, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${BOUND} ms`)), BOUND);
  });
  try {
    return await Promise.race([p, bound]);
  } finally {
    clearTimeout(timer);
  }
}

interface Ended {
  /** grpc-status, from the trailers or a trailers-only answer. */
  status: string | undefined;
  details: JsonObject;
  /** The RST_STREAM code the stream closed with (0: NO_ERROR). */
  rstCode: number;
}

/** A raw call on `session` (its answer read unless `read` is false): the stream, and how it ended once it closed. */
function rawCall(
  session: http2.ClientHttp2Session,
  rpc: string,
  headers: Record<string, string> = {},
  read = true,
): { stream: http2.ClientHttp2Stream; ended: Promise<Ended> } {
  const stream = session.request({
    ':method': 'POST',
    ':path': `/lf.a2a.v1.A2AService/${rpc}`,
    'content-type': 'application/grpc',
    te: 'trailers',
    'a2a-version': '1.0',
    ...headers,
  });
  const ended = new Promise<Ended>((resolve) => {
    let last: http2.IncomingHttpHeaders = {};
    stream.on('response', (h) => (last = h));
    stream.on('trailers', (h) => (last = h));
    stream.on('error', () => undefined);
    if (read) stream.resume();
    stream.on('close', () => {
      const bin = last['grpc-status-details-bin'];
      const details = typeof bin === 'string' ? statusJson(Buffer.from(bin, 'base64')) : {};
      resolve({ status: last['grpc-status'] as string | undefined, details, rstCode: stream.rstCode ?? -1 });
    });
  });
  return { stream, ended };
}

const sendMessage = (tenant: string, text: string): Buffer =>
  frame(requestBytes('SendMessage', { tenant, message: userMessage(text) as JsonObject }));
const reasonOf = (e: Ended): unknown => (e.details.details as JsonObject[] | undefined)?.[0]?.reason;

t.test('the calls open at once on one connection are capped (SETTINGS_MAX_CONCURRENT_STREAMS)', async (tt) => {
  const session = connect();
  const settings = await within(
    new Promise<http2.Settings>((resolve) => session.once('remoteSettings', resolve)),
    "the listener's settings",
  );
  tt.equal(settings.maxConcurrentStreams, STREAMS);
  session.destroy();
});

t.test('a request that never arrives whole: REQUEST_TIMEOUT, the stream reset, nothing upstream', async (tt) => {
  const session = connect();
  const closed = new Promise((resolve) => session.once('close', resolve));
  // part of a message announced as 10 MiB, and calls that send their headers only, on one connection
  const partial = rawCall(session, 'SendMessage');
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(10 * 2 ** 20, 1);
  partial.stream.write(Buffer.concat([prefix, Buffer.alloc(256 * 1024, 1)]));
  const calls = [partial, ...Array.from({ length: STREAMS - 1 }, () => rawCall(session, 'SendStreamingMessage'))];
  const ended = await within(Promise.all(calls.map((c) => c.ended)), 'end of the stalled calls');
  for (const e of ended) {
    tt.equal(e.status, String(grpc.status.DEADLINE_EXCEEDED), 'DEADLINE_EXCEEDED');
    tt.equal(reasonOf(e), 'REQUEST_TIMEOUT', 'ErrorInfo REQUEST_TIMEOUT');
    tt.equal(e.rstCode, http2.constants.NGHTTP2_NO_ERROR, 'the stream reset: the caller need not send the rest');
  }
  tt.same(received, [], 'nothing reached the agent');
  await within(closed, 'close of the connection, idle once its calls are ended');
  tt.pass('the idle connection is closed');
  const refused = await waitFor(
    () => lines.filter((l) => l.msg === 'call' && l.outcome === 'REQUEST_TIMEOUT').length >= STREAMS && lines,
    'the access log lines',
  );
  const line = refused.find((l) => l.outcome === 'REQUEST_TIMEOUT')!;
  tt.match(line, { inbound: 'GRPC', client: '127.0.0.1', status: grpc.status.DEADLINE_EXCEEDED }, 'logged');
});

t.test("a caller that stops reading: reset at its deadline, and so is the agent's stream", async (tt) => {
  for (const tenant of ['', 'relay']) {
    const text = `stuck-${tenant || 'translated'}`;
    // a window of 0: the caller reads nothing, the gateway's first event waits for ever
    const session = connect({ initialWindowSize: 0 });
    const call = rawCall(session, 'SendStreamingMessage', { 'grpc-timeout': '500m' }, false);
    call.stream.end(frame(requestBytes('SendStreamingMessage', { tenant, message: userMessage(text) as JsonObject })));
    const ended = await within(call.ended, `end of the ${text} call`);
    tt.equal(ended.rstCode, http2.constants.NGHTTP2_CANCEL, `${text}: the caller's stream reset (CANCEL)`);
    await waitFor(() => cancelled.some((c) => c.includes(text)), `${text}: the agent's stream cancelled`);
    tt.pass(`${text}: the agent's stream is cancelled`);
    session.destroy();
  }
});

t.test('a deadline already passed: DEADLINE_EXCEEDED, nothing sent upstream', async (tt) => {
  const session = connect();
  for (const tenant of ['', 'relay'])
    for (const timeout of ['0m', '0n']) {
      const text = `expired-${tenant}-${timeout}`;
      const call = rawCall(session, 'SendMessage', { 'grpc-timeout': timeout });
      call.stream.end(sendMessage(tenant, text));
      tt.equal((await within(call.ended, text)).status, String(grpc.status.DEADLINE_EXCEEDED), text);
    }
  // a call after them goes through: had they been sent upstream, the agent would have them first
  const after = rawCall(session, 'SendMessage');
  after.stream.end(sendMessage('relay', 'after-expired'));
  tt.equal((await within(after.ended, 'the call after')).status, '0');
  tt.ok(
    received.some((r) => r.includes('after-expired')),
    'the agent has the call after',
  );
  tt.same(
    received.filter((r) => r.includes('expired-')),
    [],
    'and none of the expired ones',
  );
  session.destroy();
});

t.test('a deadline of 24.8 days or more is a long one, not an expired one', async (tt) => {
  const session = connect();
  for (const tenant of ['', 'relay'])
    for (const timeout of ['2147484S', '720H', '2592000S', '99999999H']) {
      const text = `long-${tenant}-${timeout}`;
      const call = rawCall(session, 'SendMessage', { 'grpc-timeout': timeout });
      call.stream.end(sendMessage(tenant, text));
      tt.equal((await within(call.ended, text)).status, '0', `${text}: answered`);
      tt.ok(
        received.some((r) => r.includes(text)),
        `${text}: the agent has it`,
      );
    }
  session.destroy();
});
