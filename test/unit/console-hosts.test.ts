// The Host the admin console sends for a host-bound route, on the gateway's
// listener at a scheme's default port (http://…:80, https://…:443, whose URL
// has no port: the tests cannot bind those ports, so the code is reached with
// such a URL and nothing is sent): the route's host alone, as a caller sends
// it, for the card the routes page shows and the request try-it makes; with
// the port otherwise.
import t from 'tap';
import type { CardService } from '../../src/card/card-service.js';
import { routeFromRaw } from '../../src/config/load.js';
import type { EndpointHealth } from '../../src/admin/endpoint-health.js';
import { routeView } from '../../src/admin/route-view.js';
import { TryClients, tryCall, type TryEvent } from '../../src/admin/try-call.js';
import type { RequestView } from '../../src/http/request.js';

const bound = routeFromRaw({
  name: 'bound',
  match: { hosts: ['agent.example'] },
  upstream: { url: 'http://a:1/rpc', binding: 'JSONRPC' },
});
const open = routeFromRaw({ name: 'open', upstream: { url: 'http://a:1/rpc', binding: 'JSONRPC' } });

/** The Host of the request view the routes page builds the route's card from. */
async function cardHost(route: typeof bound, listenerUrl: string): Promise<unknown> {
  const cards = {
    status: () => Promise.resolve({ ready: true }),
    servedCard: (_r: unknown, view: RequestView) =>
      Promise.resolve({ body: JSON.stringify({ host: view.host, header: view.header('host') }) }),
  } as unknown as CardService;
  const health = { endpoints: () => [] } as unknown as EndpointHealth;
  // (the console passes the host of the listener's URL, as console.ts does)
  const view = await routeView(route, cards, health, new URL(listenerUrl).host);
  t.notOk(view.card.error, `${listenerUrl}: the card is shown, no error`);
  return view.card.served;
}

t.test("the routes page: the card of a host-bound route at the listener's port", async (t) => {
  t.same(await cardHost(bound, 'http://127.0.0.1:80'), { host: 'agent.example', header: 'agent.example' }, 'port 80');
  t.same(await cardHost(bound, 'https://127.0.0.1:443'), { host: 'agent.example', header: 'agent.example' }, '443');
  t.same(await cardHost(bound, 'http://[::1]:80'), { host: 'agent.example', header: 'agent.example' }, 'IPv6, 80');
  t.same(await cardHost(bound, 'http://[::1]:8080'), { host: 'agent.example:8080', header: 'agent.example:8080' });
  t.same(await cardHost(bound, 'http://127.0.0.1:8080'), { host: 'agent.example:8080', header: 'agent.example:8080' });
  t.same(
    await cardHost(open, 'http://127.0.0.1:80'),
    { host: '127.0.0.1', header: '127.0.0.1' },
    'no host: the address',
  );
});

/** The request try-it shows (and sends) over JSON-RPC, taken before anything is sent. */
async function tried(httpUrl: string): Promise<string> {
  const clients = new TryClients();
  const events = tryCall(
    { route: bound, binding: 'JSONRPC', stream: false, text: 'hi', headers: {} },
    { httpUrl, grpcAddress: '127.0.0.1:1', tls: httpUrl.startsWith('https:') },
    clients,
    new AbortController().signal,
  );
  try {
    const first = (await events.next()).value as TryEvent;
    if (first.type !== 'request') throw new Error(`first event: ${first.type}`);
    return first.shown[0]!.text;
  } finally {
    await events.return(undefined);
    clients.close();
  }
}

t.test('try-it: the Host of a host-bound route on the listener', async (t) => {
  t.match(await tried('http://127.0.0.1:80'), /-H 'host: agent\.example' /, 'port 80: the host alone');
  t.match(await tried('https://127.0.0.1:443'), /-H 'host: agent\.example' /, 'port 443: the host alone');
  t.match(await tried('http://127.0.0.1:8080'), /-H 'host: agent\.example:8080' /, 'another port: with it');
});
