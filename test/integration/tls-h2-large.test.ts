// A large answer to an h2 caller on the HTTPS listener (§7.1): a 12 MiB
// answer the caller does not read yet waits in the gateway while the caller's
// other calls on the same connection are answered, then comes whole. (The
// gateway's client sessions to gRPC agents had to lift Node's HTTP/2 session
// memory cap; on the listener's side the data waiting for a slow caller did
// not trip it, even with the cap set to 1 MB when tried, so no option is set.)
import { readFileSync } from 'node:fs';
import { connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { join } from 'node:path';
import t from 'tap';
import { startGateway } from '../../src/server/gateway.js';
import { jsonRpcAgent } from '../helpers/broken-upstreams.js';
import { gatewayConfig } from '../helpers/harness.js';

const FIX = new URL('../fixtures/tls/', import.meta.url).pathname;
const BIG = 12 * 1024 * 1024;

/** A JSON-RPC GetTask answer for request `id`, its artifact `size` characters of text. */
const taskAnswer = (id: unknown, size: number): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: {
      id: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_COMPLETED' },
      artifacts: [{ artifactId: 'a', parts: [{ text: 'z'.repeat(size) }] }],
    },
  });

const agent = await jsonRpcAgent((body, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(taskAnswer(body.id, body.params.id === 'big' ? BIG : 10));
});
const gw = await startGateway(
  gatewayConfig([{ name: 'r', upstream: { url: agent.url, binding: 'JSONRPC' }, maxResponseBytes: 32 * 1024 * 1024 }], {
    tls: {
      cert: join(FIX, 'server.pem'),
      key: join(FIX, 'server-key.pem'),
      clientCa: undefined,
      requireClientCert: false,
    },
  }),
);
const session: ClientHttp2Session = connect(gw.httpUrl, { ca: readFileSync(join(FIX, 'ca.pem')) });
t.teardown(async () => {
  session.close();
  await gw.close();
  await agent.close();
});

/** A GetTask on the session: its stream and the answer's status. */
function getTask(id: string): { req: ClientHttp2Stream; status: Promise<number> } {
  const req = session.request({
    ':method': 'POST',
    ':path': '/',
    'content-type': 'application/json',
    'a2a-version': '1.0',
  });
  const status = new Promise<number>((resolve, reject) => {
    req.once('response', (h) => resolve(Number(h[':status'])));
    req.once('error', reject);
  });
  req.end(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id } }));
  return { req, status };
}

/** The whole body of an answer. */
async function bodyOf(req: ClientHttp2Stream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

t.test('other calls on a connection go on while a large answer waits for the caller', async (t) => {
  const big = getTask('big');
  big.req.pause(); // the caller does not read yet: the answer waits in the gateway's session
  t.equal(await big.status, 200, "the large answer's head came");
  for (let i = 0; i < 3; i++) {
    const small = getTask('small');
    t.equal(await small.status, 200, `call ${i + 1} beside it is answered`);
    t.equal((JSON.parse(await bodyOf(small.req)) as { result: { id: string } }).result.id, 't');
  }
  const task = JSON.parse(await bodyOf(big.req)) as {
    result: { artifacts: Array<{ parts: Array<{ text: string }> }> };
  };
  t.equal(task.result.artifacts[0]!.parts[0]!.text.length, BIG, 'the large answer comes whole');
});
