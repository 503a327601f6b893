// The admin console's "try it" over gRPC on a pass-through route whose agent
// answers bytes that are no A2A message (src/admin/try-call.ts): the page gets
// an error event saying so, and the gateway keeps serving (the same answer
// again, and a healthy route's call through it answered); an error whose
// status details do not read is shown without them (both were read in a
// grpc-js callback, where a throw ended the process); a status code gRPC does
// not define is named UNKNOWN; an agent's compressed message comes as the
// gateway's INTERNAL status. A failure that is no status (an OK with no
// message, which the gateway itself never answers: tryCall against a raw
// HTTP/2 server) is an error event after the status line too.
import { createServer as createH2Server, type Http2Server, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import * as grpc from '@grpc/grpc-js';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import { brokenGrpc } from '../helpers/broken-upstreams.js';
import { gatewayConfig } from '../helpers/harness.js';
import { routeFromRaw } from '../../src/config/load.js';
import { TryClients, tryCall } from '../../src/admin/try-call.js';

const healthy = await startEchoAgent({ bindings: ['GRPC'] });
const garbage = await brokenGrpc((cb) => cb(null, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])));
// an error whose grpc-status-details-bin is no google.rpc.Status
const badDetails = await brokenGrpc((cb) => {
  const metadata = new grpc.Metadata();
  metadata.set('grpc-status-details-bin', Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]));
  cb({ code: grpc.status.FAILED_PRECONDITION, details: 'not now', metadata });
});
// raw agents: one answers a status code gRPC does not define (99); one a message flagged compressed (no grpc-encoding)
async function rawAgent(answer: (stream: ServerHttp2Stream) => void): Promise<{ url: string; server: Http2Server }> {
  const server = createH2Server();
  server.on('stream', (stream) => {
    stream.resume();
    answer(stream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `grpc://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
const oddStatus = await rawAgent((stream) =>
  stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '99' }, { endStream: true }),
);
// OK with no message: what no gateway answers, so tryCall is pointed at it directly
const noMessage = await rawAgent((stream) =>
  stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '0' }, { endStream: true }),
);
const compressed = await rawAgent((stream) => {
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
  stream.end(Buffer.from([1, 0, 0, 0, 1, 0]));
});
const gw = await startGateway(
  gatewayConfig(
    [
      {
        name: 'garbage',
        match: { hosts: ['garbage.example'] },
        upstream: { url: garbage.url, binding: 'GRPC' as const },
        passThrough: true,
      },
      {
        name: 'bad-details',
        match: { hosts: ['bad-details.example'] },
        upstream: { url: badDetails.url, binding: 'GRPC' as const },
        passThrough: true,
      },
      ...[
        { name: 'healthy', url: healthy.urlFor('GRPC') },
        { name: 'odd-status', url: oddStatus.url },
        { name: 'compressed', url: compressed.url },
      ].map(({ name, url }) => ({
        name,
        match: { hosts: [`${name}.example`] },
        upstream: { url, binding: 'GRPC' as const },
        passThrough: true,
      })),
    ],
    { admin: { host: '127.0.0.1', port: 0 } },
  ),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  await gw.close();
  await healthy.close();
  await garbage.close();
  await badDetails.close();
  for (const a of [oddStatus, compressed, noMessage]) await new Promise((r) => a.server.close(r));
});

async function tryIt(route: string): Promise<Array<{ type: string; message?: string }>> {
  const res = await request(`${gw.adminUrl!}/admin/api/try`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ route, binding: 'GRPC', text: 'hello' }),
  });
  const text = await res.body.text();
  return text
    .split('\n\n')
    .filter((f) => f.includes('data: '))
    .map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)) as { type: string; message?: string });
}

t.test('an answer the console cannot read is an error event; the gateway keeps serving', async (t) => {
  const frames = await tryIt('garbage');
  const error = frames.find((f) => f.type === 'error');
  t.match(error?.message, /an answer the console cannot read/, 'an error event says so');
  t.equal(frames.at(-1)?.type, 'done', 'and the call is done');
  const again = await tryIt('garbage');
  t.match(again.find((f) => f.type === 'error')?.message, /an answer the console cannot read/, 'the same error again');
  const fine = await tryIt('healthy');
  t.same(
    [fine.some((f) => f.type === 'event'), fine.find((f) => f.type === 'error'), fine.at(-1)?.type],
    [true, undefined, 'done'],
    "the gateway keeps serving: a healthy route's call is answered, no error",
  );
});

t.test('an error whose status details do not read: the error event without them', async (t) => {
  const frames = await tryIt('bad-details');
  t.match(frames.find((f) => f.type === 'error')?.message, /FAILED_PRECONDITION/, 'the status as it came');
  t.equal(frames.at(-1)?.type, 'done');
});

t.test(
  'a status code gRPC does not define, a message flagged compressed: an error event after the status line',
  async (t) => {
    const odd = await tryIt('odd-status');
    t.same(
      odd.map((f) => f.type),
      ['request', 'status', 'error', 'done'],
      'code 99: status line, error, done',
    );
    t.match(odd[2]?.message, /^gRPC UNKNOWN \(99\)/, 'code 99 is named UNKNOWN');
    const flagged = await tryIt('compressed');
    t.same(
      flagged.map((f) => f.type),
      ['request', 'status', 'error', 'done'],
      'a compressed message: status line, error, done',
    );
    t.match(flagged[2]?.message, /^gRPC INTERNAL \(13\): .*compressed/, "the gateway's own status for it");
  },
);

t.test('an OK with no message (no status to show): an error event after the status line', async (t) => {
  const clients = new TryClients();
  t.teardown(() => clients.close());
  const listeners = { httpUrl: 'http://127.0.0.1:1', grpcAddress: noMessage.url.slice('grpc://'.length), tls: false };
  const route = routeFromRaw({ name: 'raw', upstream: { url: noMessage.url, binding: 'GRPC' } });
  const events = [];
  for await (const e of tryCall(
    { route, binding: 'GRPC', stream: false, text: 'x', headers: {} },
    listeners,
    clients,
    new AbortController().signal,
  ))
    events.push(e);
  t.same(
    events.map((e) => e.type),
    ['request', 'status', 'error', 'done'],
    'status line, error, done',
  );
  t.match(events[2], { message: /without a message/ }, 'the error says what was wrong');
});
