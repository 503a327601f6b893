// Which card interfaces a route may use (src/card/upstream-card.ts) when the
// card names the upstream's loopback by another name (localhost, 127.0.0.1,
// ::1 are one host on the upstream's own port; another port of another
// loopback name needs upstream.allowedHosts, as another host does); and a
// route without a card source (src/card/card-store.ts) fetches nothing; the
// served cards, kept per Host, are bounded (card-service.ts); a failed fetch
// never logs a URL's password.
import { createServer, type ServerResponse } from 'node:http';
import { BlockList } from 'node:net';
import { pino } from 'pino';
import t from 'tap';
import { CardService, SERVED_CARDS_KEPT } from '../../src/card/card-service.js';
import { CardStore } from '../../src/card/card-store.js';
import { chooseInterfaces } from '../../src/card/upstream-card.js';
import { routeFromRaw } from '../../src/config/load.js';
import { Metrics } from '../../src/ops/metrics.js';

const card = (...urls: Array<[string, string]>) => ({
  supportedInterfaces: urls.map(([protocolBinding, url]) => ({ protocolBinding, url, protocolVersion: '1.0' })),
});
const usable = (upstream: string, c: ReturnType<typeof card>, allowedHosts?: string[]) =>
  chooseInterfaces(c, routeFromRaw({ name: 'r', upstream: { url: upstream, allowedHosts } })).usable.map((i) => i.url);

t.test('loopback names are one host', async (t) => {
  const c = card(
    ['JSONRPC', 'http://127.0.0.1:9/rpc'],
    ['HTTP+JSON', 'http://[::1]:9/rest'],
    ['GRPC', 'localhost:10'],
    ['GRPC', '[::1]:11'],
  );
  const samePort = ['http://127.0.0.1:9/rpc', 'http://[::1]:9/rest'];
  t.same(
    usable('http://localhost:9', c),
    [...samePort, 'localhost:10'],
    'upstream localhost: its own name on any port',
  );
  t.same(usable('http://127.0.0.1:9', c), samePort, 'upstream 127.0.0.1: other names on its own port only');
  t.same(usable('http://[::1]:9', c), [...samePort, '[::1]:11'], 'upstream ::1: its own name on any port');
  t.same(usable('http://127.0.0.1:9', c, ['localhost:10']), [...samePort, 'localhost:10'], 'another port when allowed');
});

t.test('other hosts only when allowed', async (t) => {
  const c = card(['JSONRPC', 'http://agent-2:9/rpc'], ['JSONRPC', 'http://127.0.0.2:9/rpc']);
  t.same(usable('http://localhost:9', c), [], '127.0.0.2 is not a loopback name');
  t.same(usable('http://agent:9', c, ['agent-2']), ['http://agent-2:9/rpc']);
  t.same(usable('http://agent:9', c, ['localhost']), [], 'an allowed loopback name allows no other host');
});

t.test('a gRPC route without card.file or card.url fetches nothing', async (t) => {
  const lines: string[] = [];
  const metrics = new Metrics();
  const store = new CardStore(pino({ level: 'debug' }, { write: (l: string) => lines.push(l) }), metrics);
  t.teardown(() => store.close());
  const route = routeFromRaw({ name: 'g', upstream: { url: '127.0.0.1:9', binding: 'GRPC' } });
  await store.start([route]);
  t.same(store.status(route), { ready: true });
  t.equal(await store.get(route), undefined, 'no card: the gateway serves a minimal one');
  t.same(lines, [], 'nothing logged');
  t.notMatch(await metrics.text(), /a2a_gateway_card_refreshes_total\{/, 'no refresh counted');
});

t.test('served cards are kept per Host up to a bound: random Host values cannot grow the cache', async (t) => {
  const dir = t.testdir({ 'card.json': JSON.stringify({ name: 'file-card', version: '1', description: 'd' }) });
  const store = new CardStore(pino({ level: 'silent' }));
  t.teardown(() => store.close());
  const route = routeFromRaw({
    name: 'f',
    upstream: { url: 'http://127.0.0.1:9/rpc', binding: 'JSONRPC' },
    card: { file: `${dir}/card.json` },
  });
  await store.start([route]);
  const addresses = () => ({
    publicHttpUrl: undefined,
    publicGrpcAddress: undefined,
    httpPort: 8080,
    grpcPort: 50051,
    tls: false,
    listenHost: '127.0.0.1',
  });
  const service = new CardService(store, addresses, new BlockList(), pino({ level: 'silent' }));
  const view = (host: string) => ({ host, remoteAddress: '127.0.0.1', header: () => undefined });
  for (let i = 0; i < 3 * SERVED_CARDS_KEPT; i++) await service.servedCard(route, view(`h${i}.example:8080`));
  t.equal(service.servedKept, SERVED_CARDS_KEPT, 'the oldest went once the bound was reached');
  const last = await service.servedCard(route, view(`h${3 * SERVED_CARDS_KEPT - 1}.example:8080`));
  t.match(last.body, `h${3 * SERVED_CARDS_KEPT - 1}.example:8080`, "the latest host's card is served, naming it");
});

// an agent answering 500, and one that never answers (the fetch times out): neither message may carry the password
for (const [what, answer, said] of [
  ['fails', (res: ServerResponse) => void res.writeHead(500).end(), /answered HTTP 500/],
  ['times out', () => undefined, /did not answer within 200 ms/],
] as const) {
  t.test(`a card fetch that ${what} never logs the password of a URL's user:password part`, async (t) => {
    const server = createServer((_req, res) => answer(res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.teardown(() => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    });
    const port = (server.address() as { port: number }).port;
    const lines: string[] = [];
    const store = new CardStore(pino({ level: 'debug' }, { write: (l: string) => lines.push(l) }));
    t.teardown(() => store.close());
    const route = routeFromRaw({
      name: 'p',
      timeoutMs: 200,
      upstream: { url: `http://agentuser:Pw-s3cret-9x@127.0.0.1:${port}/a2a`, binding: 'auto' },
    });
    await store.start([route]).catch(() => undefined);
    const text = lines.join('\n') + JSON.stringify(store.status(route));
    t.match(text, said, 'the failure is logged and reported');
    t.notMatch(text, /Pw-s3cret-9x/, 'without the password');
  });
}
