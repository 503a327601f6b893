// The admin console's "try it" over gRPC on a pass-through route whose agent
// answers bytes that are no A2A message (src/admin/try-call.ts): the page gets
// an error event saying so, and the gateway keeps serving. The answer is read
// in a grpc-js callback, where a throw would have ended the process.
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { startGateway } from '../../src/server/gateway.js';
import { brokenGrpc } from '../helpers/broken-upstreams.js';
import { gatewayConfig } from '../helpers/harness.js';

const garbage = await brokenGrpc((cb) => cb(null, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])));
const gw = await startGateway(
  gatewayConfig(
    [
      {
        name: 'garbage',
        match: { hosts: ['garbage.example'] },
        upstream: { url: garbage.url, binding: 'GRPC' as const },
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
});

async function tryIt(stream: boolean): Promise<Array<{ type: string; message?: string }>> {
  const res = await request(`${gw.adminUrl!}/admin/api/try`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ route: 'garbage', binding: 'GRPC', text: 'hello', stream }),
  });
  const text = await res.body.text();
  return text
    .split('\n\n')
    .filter((f) => f.includes('data: '))
    .map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)) as { type: string; message?: string });
}

t.test('an answer the console cannot read is an error event; the gateway keeps serving', async (t) => {
  const frames = await tryIt(false);
  const error = frames.find((f) => f.type === 'error');
  t.match(error?.message, /an answer the console cannot read/, 'an error event says so');
  t.equal(frames.at(-1)?.type, 'done', 'and the call is done');
  const again = await tryIt(false);
  t.ok(
    again.some((f) => f.type === 'error'),
    'the gateway still answers',
  );
});
