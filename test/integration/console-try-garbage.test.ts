// The admin console's "try it" over gRPC on a pass-through route whose agent
// answers bytes that are no A2A message (src/admin/try-call.ts): the page gets
// an error event saying so, and the gateway keeps serving; an error whose
// status details do not read is shown without them. Both were read in a
// grpc-js callback, where a throw ended the process.
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import * as grpc from '@grpc/grpc-js';
import { startGateway } from '../../src/server/gateway.js';
import { brokenGrpc } from '../helpers/broken-upstreams.js';
import { gatewayConfig } from '../helpers/harness.js';

const garbage = await brokenGrpc((cb) => cb(null, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])));
// an error whose grpc-status-details-bin is no google.rpc.Status
const badDetails = await brokenGrpc((cb) => {
  const metadata = new grpc.Metadata();
  metadata.set('grpc-status-details-bin', Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]));
  cb({ code: grpc.status.FAILED_PRECONDITION, details: 'not now', metadata });
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
    ],
    { admin: { host: '127.0.0.1', port: 0 } },
  ),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  await gw.close();
  await garbage.close();
  await badDetails.close();
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
  t.ok(
    again.some((f) => f.type === 'error'),
    'the gateway still answers',
  );
});

t.test('an error whose status details do not read: the error event without them', async (t) => {
  const frames = await tryIt('bad-details');
  t.match(frames.find((f) => f.type === 'error')?.message, /FAILED_PRECONDITION/, 'the status as it came');
  t.equal(frames.at(-1)?.type, 'done');
});
