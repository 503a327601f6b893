// The gRPC pass-through's answers (src/bindings/grpc/relay.ts over the
// node:http2 session, upstream/grpc-session.ts) from a raw HTTP/2 agent that
// answers as the request's text says, read by a grpc-js caller with the bytes
// untouched: the agent's bytes; its status with details and custom trailers;
// a non-200 answer that carries its own grpc-status (as a proxy in front of an
// agent sends one); an answer never given (the route's timeoutMs, sent as
// grpc-timeout); one over maxResponseBytes; and TLS files node:http2 refuses
// (a failed connection each time, the agent's budget given back, never
// UPSTREAM_OVERLOADED).
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { create, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import t from 'tap';
import { DEFAULT_LIMITS } from '../../src/config/types.js';
import { SendMessageRequestSchema } from '../../src/gen/a2a_pb.js';
import { startGateway } from '../../src/server/gateway.js';
import { gatewayConfig } from '../helpers/harness.js';

const ANSWER = Buffer.from('the agent answer bytes, as they were sent');
/** A length-prefixed message: not compressed, its length in 4 bytes big-endian. */
function frame(b: Buffer): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(b.length, 1);
  return Buffer.concat([prefix, b]);
}
const timeouts: string[] = [];
const held: http2.ServerHttp2Stream[] = [];

const agent = http2.createServer();
agent.on('stream', (stream, headers) => {
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => {
    const text = Buffer.concat(chunks).toString('latin1');
    if (text.includes('slow')) {
      timeouts.push(String(headers['grpc-timeout']));
      return void held.push(stream);
    }
    if (text.includes('429'))
      return void stream.respond(
        {
          ':status': 429,
          'content-type': 'application/grpc',
          'grpc-status': '8',
          'grpc-message': 'slow down',
          'x-quota': '5',
        },
        { endStream: true },
      );
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () =>
      stream.sendTrailers(
        text.includes('refuse')
          ? { 'grpc-status': '9', 'grpc-message': 'not now', 'x-agent-note': 'kept' }
          : { 'grpc-status': '0' },
      ),
    );
    if (text.includes('refuse')) return void stream.end();
    stream.end(frame(text.includes('big') ? Buffer.alloc(2000, 1) : ANSWER));
  });
});
await new Promise<void>((r) => agent.listen(0, '127.0.0.1', r));
const address = `127.0.0.1:${(agent.address() as AddressInfo).port}`;

const dir = t.testdir({ 'bad-cert.pem': 'not a certificate', 'bad-key.pem': 'not a key' });
writeFileSync(join(dir, 'ca.pem'), 'not a CA either');
const gw = await startGateway(
  gatewayConfig(
    [
      {
        name: 'relay',
        upstream: { url: address, binding: 'GRPC' },
        passThrough: true,
        timeoutMs: 300,
        maxResponseBytes: 1000,
      },
      {
        name: 'bad-tls',
        match: { tenant: 'bad-tls' },
        upstream: {
          url: address,
          binding: 'GRPC',
          tls: { cert: join(dir, 'bad-cert.pem'), key: join(dir, 'bad-key.pem') },
        },
        passThrough: true,
      },
    ],
    { limits: { ...DEFAULT_LIMITS, upstreamConnections: 2 } },
  ),
);
const client = new grpc.Client(`127.0.0.1:${gw.grpcPort}`, grpc.credentials.createInsecure());
t.teardown(async () => {
  client.close();
  for (const s of held) s.close();
  await gw.close();
  await new Promise((r) => agent.close(r));
});

const asIs = (b: Buffer): Buffer => b;
/** SendMessage through the gateway with `text` (and `tenant`): the answer bytes, or the status. */
function send(text: string, tenant = ''): Promise<{ bytes?: Buffer; error?: grpc.ServiceError }> {
  const request = create(SendMessageRequestSchema, {
    tenant,
    message: { messageId: 'm', role: 1, parts: [{ content: { case: 'text', value: text } }] },
  });
  const bytes = Buffer.from(toBinary(SendMessageRequestSchema, request));
  const md = new grpc.Metadata();
  md.set('a2a-version', '1.0');
  return new Promise((resolve) =>
    client.makeUnaryRequest('/lf.a2a.v1.A2AService/SendMessage', asIs, asIs, bytes, md, {}, (e, b) =>
      resolve(e ? { error: e } : { bytes: b! }),
    ),
  );
}

t.test("the agent's bytes, as they came", async (tt) => {
  tt.same((await send('ok')).bytes, ANSWER);
});

t.test("the agent's status, with its details and custom trailers", async (tt) => {
  const { error } = await send('refuse');
  tt.equal(error?.code, grpc.status.FAILED_PRECONDITION);
  tt.equal(error?.details, 'not now');
  tt.same(error?.metadata.get('x-agent-note'), ['kept']);
});

t.test('a non-200 answer with its own grpc-status: that status and its metadata', async (tt) => {
  const { error } = await send('429');
  tt.equal(error?.code, grpc.status.RESOURCE_EXHAUSTED, 'not UNAVAILABLE from the HTTP status');
  tt.equal(error?.details, 'slow down');
  tt.same(error?.metadata.get('x-quota'), ['5']);
});

t.test("no answer: DEADLINE_EXCEEDED at the route's timeout, sent as grpc-timeout", async (tt) => {
  const { error } = await send('slow');
  tt.equal(error?.code, grpc.status.DEADLINE_EXCEEDED);
  tt.match(timeouts[0], /^\d+m$/);
  tt.ok(Number.parseInt(timeouts[0]!, 10) <= 300, 'at most the route timeout');
});

t.test('an answer over maxResponseBytes: INTERNAL (INVALID_AGENT_RESPONSE)', async (tt) => {
  const { error } = await send('big');
  tt.equal(error?.code, grpc.status.INTERNAL);
  tt.match(error?.details, /maxResponseBytes/);
});

t.test('TLS files node:http2 refuses: a failed connection every time, the budget given back', async (tt) => {
  // a budget of 2 calls: a call that kept its unit would leave the third UPSTREAM_OVERLOADED
  for (let i = 0; i < 4; i++) {
    const { error } = await send('ok', 'bad-tls');
    tt.equal(error?.code, grpc.status.UNAVAILABLE, `call ${i + 1}: UNAVAILABLE`);
    tt.notMatch(error?.details, /already has 2 calls in flight/, `call ${i + 1}: not over the budget`);
  }
  tt.same((await send('ok')).bytes, ANSWER, 'the same agent still served on its other route');
});
