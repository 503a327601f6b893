// One resend per call (issue 14 retries, pipeline stages selectUpstream and
// placeEndpoint): on a route with two endpoints that both reset the
// connection under every request, an idempotent call reaches the endpoints
// exactly twice in all — not a resend on the first endpoint, a failover and a
// resend on the second (four sends) — and SendMessage once. A refused
// connection never reached the agent, so it does not use the resend: the call
// fails over from a refused endpoint and is still resent once after a reset.
// Counted at the endpoints, raw HTTP servers on 127.0.0.1, for each inbound binding.
import t from 'tap';
import { startGateway } from '../../src/server/gateway.js';
import { brokenHttp, refusedPort } from '../helpers/broken-upstreams.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, slug, userMessage } from '../helpers/harness.js';

/** POSTs received per endpoint; every one is answered by destroying the socket before any answer. */
const received = [0, 0];
const endpoints = await Promise.all(
  [0, 1].map((i) =>
    brokenHttp((req, res) => {
      if (req.method === 'GET') return void res.writeHead(404).end(); // no agent card: the configured binding
      req.resume();
      req.on('end', () => {
        received[i]!++;
        req.socket.destroy();
      });
    }),
  ),
);
const refused = `http://127.0.0.1:${await refusedPort()}`;
t.teardown(() => Promise.all(endpoints.map((e) => e.close())));

const route = (name: string, urls: string[]) => ({
  name,
  match: { pathPrefix: `/${name}`, tenant: name },
  upstream: {
    binding: 'JSONRPC' as const,
    tenant: 'clear' as const,
    loadBalancing: 'round-robin' as const,
    endpoints: urls.map((url, i) => ({ url, name: `${name}-${i}` })),
  },
  ssrfGuard: false,
});
const gw = await startGateway(
  gatewayConfig([
    route(
      'both-reset',
      endpoints.map((e) => e.url),
    ),
    route('refused-then-reset', [refused, endpoints[0]!.url]),
  ]),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
});

const sends = (): number => received[0]! + received[1]!;

for (const inbound of BINDINGS) {
  t.test(`${inbound}: an idempotent call is sent twice in all, SendMessage once`, async (tt) => {
    const opts = { tenant: 'both-reset', prefix: '/both-reset' };
    let before = sends();
    const got = await CALLERS[inbound](gw, 'GetTask', { id: `t-${slug(inbound)}` }, opts);
    tt.notOk(got.ok, 'GetTask fails: both endpoints reset');
    tt.equal(sends() - before, 2, 'GetTask reached the endpoints twice (one resend), not four times');
    before = sends();
    const sent = await CALLERS[inbound](gw, 'SendMessage', { message: userMessage('once') }, opts);
    tt.notOk(sent.ok);
    tt.equal(sends() - before, 1, 'SendMessage reached an endpoint once');
  });

  t.test(`${inbound}: a refused endpoint does not use the resend`, async (tt) => {
    const opts = { tenant: 'refused-then-reset', prefix: '/refused-then-reset' };
    const before = received[0]!;
    // round-robin: over two calls, one starts on the refused endpoint and fails over
    for (const id of ['a', 'b']) {
      const got = await CALLERS[inbound](gw, 'GetTask', { id: `${id}-${slug(inbound)}` }, opts);
      tt.notOk(got.ok);
    }
    tt.equal(received[0]! - before, 4, 'each GetTask reached the resetting endpoint twice (sent, then resent once)');
  });
}
