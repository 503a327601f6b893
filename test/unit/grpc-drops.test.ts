// How the gRPC upstream client (src/bindings/grpc/outbound.ts and its 0.3
// dialect over src/upstream/grpc-session.ts; upstream/grpc-failures.ts)
// names a connection that ends under a call, against raw node:http2 agents on
// 127.0.0.1: dropped after the call went out — a reset as over HTTP (the
// agent may have it: an idempotent call is sent once more by the pipeline) —
// or after its answer began (cut); the agent's GOAWAY with an error naming
// the call's stream above the last one it processed: unprocessed, sent again
// at once; a TLS 1.3 client certificate refused after the handshake: a TLS
// failure, no call taken. A 0.3 agent's errors carry the same flags.
import { readFileSync } from 'node:fs';
import { constants, createSecureServer, createServer, type Http2Server, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { create, toBinary } from '@bufbuild/protobuf';
import t from 'tap';
import { GrpcUpstream } from '../../src/bindings/grpc/outbound.js';
import { GRPC_V03 } from '../../src/bindings/grpc/outbound-v0_3.js';
import { DEFAULT_LIMITS, type UpstreamTls } from '../../src/config/types.js';
import { envelopeOf, serviceParameters } from '../../src/core/envelope.js';
import { methodInfo } from '../../src/core/methods.js';
import { GetTaskRequestSchema, TaskSchema } from '../../src/gen/a2a_pb.js';
import { UpstreamRegistry, type ClientFactories } from '../../src/upstream/registry.js';
import { failure } from '../helpers/failure.js';
import { waitFor } from '../helpers/wait.js';

const FIX = new URL('../fixtures/tls/', import.meta.url).pathname;
const registry = new UpstreamRegistry({} as ClientFactories, DEFAULT_LIMITS);
t.teardown(() => registry.close());

/** Each case's calls, in order: the id of the stream each came on. */
const calls: Record<string, number[]> = {};
const answer = (s: ServerHttp2Stream, id: string): void => {
  s.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  s.once('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0' }));
  const m = toBinary(TaskSchema, create(TaskSchema, { id }));
  const f = Buffer.alloc(5 + m.length);
  f.writeUInt32BE(m.length, 1);
  f.set(m, 5);
  s.end(f);
};
const CASES: Record<string, (s: ServerHttp2Stream, n: number) => void> = {
  'drop-after-request': (s) => s.session?.destroy(),
  // the answer's head, then the connection drops once the client has read it (a PING's ack comes after it)
  'drop-after-head': (s) => {
    s.respond({ ':status': 200, 'content-type': 'application/grpc' });
    s.session?.ping(() => s.session?.destroy());
  },
  'goaway-held': () => undefined, // held: the stream the GOAWAY names as the last one processed
  // the session goes away with an error naming the held call's stream as the last processed: this one is above it
  'goaway-above': (s, n) =>
    n === 1 ? s.session?.goaway(constants.NGHTTP2_INTERNAL_ERROR, calls['goaway-held']![0]!) : answer(s, 'second'),
};
function onStream(s: ServerHttp2Stream, headers: Record<string, unknown>): void {
  s.on('error', () => undefined);
  const name = String(headers['x-case']);
  s.resume();
  s.on('end', () => {
    const seen = (calls[name] ??= []);
    seen.push(s.id ?? 0);
    CASES[name]!(s, seen.length);
  });
}

async function listening(server: Http2Server | ReturnType<typeof createSecureServer>): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => server.close(r)));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const plain = createServer();
plain.on('stream', onStream);
plain.on('session', (session) => t.teardown(() => session.destroy()));
const plainAddress = await listening(plain);

const client = (url: string, version: '1.0' | '0.3' = '1.0', tls?: UpstreamTls) =>
  new GrpcUpstream(
    { url, version, timeoutMs: 10_000, maxSseEventBytes: 1024, maxResponseBytes: 1000, tls },
    registry,
    version === '0.3' ? GRPC_V03 : undefined,
  );
const getTask = (rawCase: string, version: '1.0' | '0.3' = '1.0') =>
  envelopeOf(
    methodInfo('GetTask'),
    create(GetTaskRequestSchema, { id: 't' }),
    '',
    serviceParameters(version, [], { 'x-case': rawCase }),
  );
const live = () => new AbortController().signal;

t.test('a connection dropped after the call went out: a reset, as over HTTP (both dialects)', async (t) => {
  for (const version of ['1.0', '0.3'] as const) {
    const e = await failure(client(plainAddress, version).unary(getTask('drop-after-request', version), live()));
    t.equal(e.errorName, 'UPSTREAM_UNAVAILABLE', `${version}: ${e.message}`);
    t.equal(e.connectionReset, true, `${version}: flagged as a reset (the agent may have the call)`);
    t.equal(e.answerCut, false);
    t.equal(e.connectionRefused, false);
  }
  t.equal(calls['drop-after-request']!.length, 2, 'one call per dialect: the client itself does not send it again');
});

t.test('a connection dropped after the answer began: an answer cut short', async (t) => {
  for (const version of ['1.0', '0.3'] as const) {
    const e = await failure(client(plainAddress, version).unary(getTask('drop-after-head', version), live()));
    t.equal(e.errorName, 'UPSTREAM_UNAVAILABLE', `${version}: ${e.message}`);
    t.equal(e.answerCut, true, `${version}: flagged as a cut answer`);
    t.equal(e.connectionReset, false);
  }
});

t.test(
  "the agent's GOAWAY with an error: a call above its last stream is sent again, one at or below is taken",
  async (t) => {
    const c = client(plainAddress);
    const held = failure(c.unary(getTask('goaway-held'), live()));
    await waitFor(() => calls['goaway-held']?.length === 1, 'the first call at the agent');
    const answered = (await c.unary(getTask('goaway-above'), live())) as { id?: string };
    t.equal(answered.id, 'second', 'the call above it was sent again on a new session and answered');
    const [first, again] = calls['goaway-above']!;
    t.ok(first! > calls['goaway-held']![0]!, 'its first stream was above the last one processed, on the same session');
    t.equal(again, 1, 'sent again on a session of its own');
    const e = await held;
    t.equal(e.connectionReset, true, `the call the agent processed: dropped, not unprocessed (${e.message})`);
    t.equal(calls['goaway-held']!.length, 1, 'and not sent again by the client');
  },
);

t.test('a TLS 1.3 client certificate refused after the handshake: a TLS failure, no call taken', async (t) => {
  const secure = createSecureServer({
    cert: readFileSync(join(FIX, 'server.pem')),
    key: readFileSync(join(FIX, 'server-key.pem')),
    ca: readFileSync(join(FIX, 'ca.pem')),
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.3',
  });
  secure.on('stream', onStream);
  const address = await listening(secure);
  const tls = { ca: join(FIX, 'ca.pem'), cert: undefined, key: undefined, servername: undefined };
  const e = await failure(client(address, '1.0', tls).unary(getTask('drop-after-request'), live()));
  t.equal(e.errorName, 'UPSTREAM_UNAVAILABLE');
  t.match(e.message, /TLS failure/, e.message);
  t.equal(e.connectionReset, false, 'not a reset: the agent took no call');
  t.equal(e.answerCut, false);
});
