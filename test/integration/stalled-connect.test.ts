// An agent that takes the connection and never answers the TLS handshake
// (helpers/handshake-never.ts), behind a gateway whose routes give it 300 ms:
// every way the gateway reaches an HTTP agent ends at that time, while undici
// is still connecting (its own connect timeout is 10 s): a pass-through's
// unary call and stream, a translated stream (upstream/pulled-answer.ts), the
// card fetch a call waits for before its capability checks (its failure read
// from /readyz), and the health check of an endpoint (failed at its own
// timeoutMs). Each answer is the
// spec's error in the caller's binding (UPSTREAM_TIMEOUT, JSON-RPC -32052).
import t from 'tap';
import { request } from 'undici';
import { startGateway } from '../../src/server/gateway.js';
import { jsonRpcAgent } from '../helpers/broken-upstreams.js';
import { handshakeNever } from '../helpers/handshake-never.js';
import { gatewayConfig } from '../helpers/harness.js';
import { TestSseParser } from '../helpers/sse.js';
import { waitFor } from '../helpers/wait.js';

const silent = await handshakeNever();
const agent = await jsonRpcAgent((_body, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
});
const upstream = { url: silent.url, binding: 'JSONRPC' as const };
const gw = await startGateway(
  gatewayConfig([
    { name: 'pt', match: { pathPrefix: '/pt' }, upstream, passThrough: true, timeoutMs: 300 },
    { name: 'tr', match: { pathPrefix: '/tr' }, upstream, timeoutMs: 300 },
    {
      name: 'hc',
      match: { pathPrefix: '/hc' },
      upstream: {
        binding: 'JSONRPC',
        endpoints: [{ url: agent.url }, { url: silent.url, name: 'silent' }],
        healthCheck: { intervalMs: 1000, timeoutMs: 200, unhealthyThreshold: 1 },
      },
      timeoutMs: 300,
    },
  ]),
);
t.teardown(async () => {
  await silent.close(); // first: undici's connects fail at once (see handshake-never.ts)
  await gw.close();
  await agent.close();
});

const message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };

/** A JSON-RPC call on `prefix`; the error it answers, from a JSON body or the stream's one event. */
async function errorOf(prefix: string, method: string): Promise<{ code: number; message: string }> {
  const res = await request(`${gw.httpUrl}${prefix}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { message } }),
  });
  const text = await res.body.text();
  if (!String(res.headers['content-type']).startsWith('text/event-stream'))
    return (JSON.parse(text) as { error: { code: number; message: string } }).error;
  const parser = new TestSseParser();
  const events = [...parser.push(text), ...parser.end()];
  return (JSON.parse(events[0]!.data) as { error: { code: number; message: string } }).error;
}

for (const [prefix, method, what] of [
  ['/pt', 'SendMessage', "a pass-through's unary call"],
  ['/pt', 'SendStreamingMessage', "a pass-through's stream"],
  ['/tr', 'SendStreamingMessage', 'a translated stream'],
] as const) {
  t.test(`${what}: UPSTREAM_TIMEOUT at the route's timeout, undici still connecting`, async (tt) => {
    const since = silent.sockets.length;
    const error = await errorOf(prefix, method);
    tt.equal(error.code, -32052, 'UPSTREAM_TIMEOUT');
    tt.match(error.message, /did not answer within 300 ms/);
    tt.ok(await silent.stillConnecting(since), 'answered before undici gave up connecting');
  });
}

// the time ran out on the gateway's timer (undici's connect timeout fails them as "Connect Timeout Error")
t.test('the card fetch the calls waited for ended at the route timeout', async (tt) => {
  const res = await request(`${gw.httpUrl}/readyz`);
  const ready = (await res.body.json()) as { routes: Array<{ name: string; reason?: string }> };
  tt.equal(res.statusCode, 503, 'not ready: no card');
  const pt = ready.routes.find((r) => r.name === 'pt');
  tt.match(pt?.reason, /cannot read the upstream's agent card: <upstream> did not answer within 300 ms/);
});

t.test("an endpoint's health check fails at its timeout", async (tt) => {
  const silentState = await waitFor(
    () => gw.endpointStates()[0]?.endpoints.find((e) => e.name === 'silent' && e.status === 'unhealthy'),
    'the silent endpoint found unhealthy',
  );
  tt.match(silentState.reason, /did not answer within 200 ms/);
});
