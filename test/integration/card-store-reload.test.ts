// Upstream cards across a reload (src/card/card-store.ts): client-certificate
// files renewed at the same paths are read by the next card fetch; a reload
// that adds card.verifyJwksFile or changes upstream.tls serves no card the new
// settings did not accept; a route removed while its card fetch is in flight,
// or asked for late by a call of the old configuration, is fetched no more; a
// card.file route reads its (edited) file again.
// The agents are plain node servers that count the card requests they get.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import { routeFromRaw } from '../../src/config/load.js';
import { CardStore } from '../../src/card/card-store.js';
import { signCard } from '../../src/card/signing.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import { brokenHttp } from '../helpers/broken-upstreams.js';
import { cardServer } from '../helpers/card-server.js';
import { clientCertFiles } from '../helpers/client-cert-files.js';
import { gatewayConfig } from '../helpers/harness.js';
import { testRedisUrl, uniquePrefix } from '../helpers/redis.js';
import { eventually, waitFor } from '../helpers/wait.js';

const FIX = new URL('../fixtures/tls/', import.meta.url).pathname;
const silent = pino({ level: 'silent' });

const agentCard = (url: string): JsonObject => ({
  name: 'Card Agent',
  description: 'an agent whose card the gateway fetches',
  version: '1.0.0',
  supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await request(url);
  return { status: res.statusCode, body: await res.body.text() };
}
const servedCard = (gw: RunningGateway) => get(`${gw.httpUrl}/.well-known/agent-card.json`);
const readyz = (gw: RunningGateway) => get(`${gw.httpUrl}/readyz`);

/** An HTTPS agent that takes only client certificates of the test CA and serves its card; `cards` counts the GETs. */
async function mtlsAgent() {
  const sockets = new Set<Socket>();
  const state = { cards: 0, url: '' };
  const server = createHttpsServer(
    {
      cert: readFileSync(join(FIX, 'server.pem')),
      key: readFileSync(join(FIX, 'server-key.pem')),
      ca: readFileSync(join(FIX, 'ca.pem')),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (_req, res) => {
      state.cards++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(agentCard(`${state.url}/`)));
    },
  );
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  return Object.assign(state, {
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  });
}

t.test('client-certificate files renewed at the same paths are read by the card fetch after a reload', async (tt) => {
  const agent = await mtlsAgent();
  // first a certificate of another CA, which the agent refuses
  const { cert, key } = clientCertFiles(tt.testdir(), 'rogue-client');
  const config = () =>
    gatewayConfig([
      {
        name: 'mtls',
        upstream: { url: `${agent.url}/`, binding: 'JSONRPC', tls: { ca: join(FIX, 'ca.pem'), cert, key } },
      },
    ]);
  const gw = await startGateway(config(), silent);
  tt.teardown(async () => {
    await gw.close();
    await agent.close();
  });
  const down = await waitFor(async () => {
    const r = await readyz(gw);
    return r.status === 503 && r.body.includes("cannot read the upstream's agent card") && r;
  }, 'the card fetch with the refused certificate to fail');
  tt.equal(down.status, 503, 'not ready while the agent refuses the certificate');
  tt.equal(agent.cards, 0, 'no card request got through');
  tt.equal((await servedCard(gw)).status, 503, 'no card served');

  copyFileSync(join(FIX, 'client.pem'), cert);
  copyFileSync(join(FIX, 'client-key.pem'), key);
  gw.reload(config());
  await waitFor(async () => (await readyz(gw)).status === 200, 'ready with the renewed certificate');
  const card = await servedCard(gw);
  tt.equal(card.status, 200, 'the card is served after the reload');
  tt.equal((JSON.parse(card.body) as JsonObject).name, 'Card Agent', "it is the agent's card");
  tt.ok(agent.cards >= 1, 'fetched with the certificate now at those paths');
});

for (const shared of [false, true])
  t.test(
    `a reload that changes upstream.tls keeps no card the new TLS settings did not fetch${shared ? ' (nor Redis)' : ''}`,
    async (tt) => {
      const agent = await mtlsAgent();
      const tls = (ca: string) => ({
        ca: join(FIX, ca),
        cert: join(FIX, 'client.pem'),
        key: join(FIX, 'client-key.pem'),
      });
      // with state.redis the card is also kept as the route's last good card: not for other TLS settings either
      const state = shared
        ? {
            state: {
              redis: {
                url: await testRedisUrl(tt),
                keyPrefix: uniquePrefix('card-tls'),
                rateLimitFailure: 'open' as const,
                commandTimeoutMs: 1000,
              },
            },
          }
        : {};
      const config = (ca: string) =>
        gatewayConfig([{ name: 'mtls', upstream: { url: `${agent.url}/`, binding: 'JSONRPC', tls: tls(ca) } }], state);
      const gw = await startGateway(config('ca.pem'), silent);
      tt.teardown(async () => {
        await gw.close();
        await agent.close();
      });
      await waitFor(async () => (await readyz(gw)).status === 200, 'ready with the right CA');
      tt.equal((await servedCard(gw)).status, 200, 'the card is served');

      // a CA that did not sign the agent's certificate: the agent cannot be trusted, nor the card it served before
      gw.reload(config('other-ca.pem'));
      await waitFor(async () => (await servedCard(gw)).status === 503, 'the card to be refused under the new CA');
      tt.equal((await readyz(gw)).status, 503, 'not ready');
    },
  );

t.test('a reload that adds card.verifyJwksFile serves no card until one verifies', async (tt) => {
  const keys = await generateKeyPair('ES256', { extractable: true });
  const dir = tt.testdir({
    'key.pem': await exportPKCS8(keys.privateKey),
    'jwks.json': JSON.stringify({ keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'up-1', alg: 'ES256' }] }),
  });
  const agent = await cardServer(agentCard('http://127.0.0.1:1/'));
  agent.card = agentCard(`${agent.url}/`);
  const config = (verify: boolean) =>
    gatewayConfig([
      {
        name: 'signed',
        upstream: { url: `${agent.url}/`, binding: 'JSONRPC' },
        ...(verify ? { card: { verifyJwksFile: join(dir, 'jwks.json') } } : {}),
      },
    ]);
  const gw = await startGateway(config(false), silent);
  tt.teardown(async () => {
    await gw.close();
    await agent.close();
  });
  await waitFor(async () => (await servedCard(gw)).status === 200, 'the unsigned card, not verified');

  gw.reload(config(true));
  const refused = await waitFor(async () => {
    const r = await servedCard(gw);
    return r.status === 503 && r;
  }, 'the unsigned card to be refused once the route verifies cards');
  tt.match(refused.body, /not signed/, 'the card is refused for want of a signature');
  tt.equal((await readyz(gw)).status, 503, 'not ready');

  // the agent signs its card: the retry verifies it and the route is served again
  agent.card = await signCard(agent.card, { file: join(dir, 'key.pem'), alg: 'ES256', kid: 'up-1', jku: undefined });
  await waitFor(async () => (await servedCard(gw)).status === 200, 'the signed card, verified');
  tt.equal((await readyz(gw)).status, 200, 'ready');
});

/** A card agent that holds its first request until `release()`, then answers that and every later one with 500. */
async function failingAgent() {
  let first: ServerResponse | undefined;
  const state = { cards: 0 };
  const agent = await brokenHttp((_req, res) => {
    state.cards++;
    if (state.cards === 1) first = res;
    else res.writeHead(500).end('down');
  });
  return Object.assign(state, agent, {
    held: () => first !== undefined,
    release: () => first?.writeHead(500).end('down'),
  });
}

t.test('a route removed while its card fetch is in flight is fetched no more', async (tt) => {
  const gone = await failingAgent();
  const stay = await failingAgent();
  const route = (name: string, url: string) => ({
    name,
    match: { pathPrefix: `/${name}` },
    upstream: { url, binding: 'JSONRPC' as const },
  });
  const gw = await startGateway(gatewayConfig([route('gone', gone.url), route('stay', stay.url)]), silent);
  tt.teardown(async () => {
    await gw.close();
    await Promise.all([gone.close(), stay.close()]);
  });
  await waitFor(() => gone.held() && stay.held(), 'both card fetches under way');
  gw.reload(gatewayConfig([route('stay', stay.url)]));
  gone.release();
  stay.release();
  // "stay" fails the same way at the same time: its retries (after 1 s, then 2 s more) are the clock for "gone"'s
  await waitFor(() => stay.cards >= 3, 'two retries of the remaining route');
  tt.equal(gone.cards, 1, 'the removed route was not fetched again');
});

t.test('a late call for a route a reload removed does not bring its card back', async (tt) => {
  const agent = await failingAgent();
  const store = new CardStore(silent);
  tt.teardown(async () => {
    store.close();
    await agent.close();
  });
  const gone = routeFromRaw({ name: 'gone', upstream: { url: `${agent.url}/`, binding: 'JSONRPC' } });
  const started = store.start([gone]);
  await waitFor(() => agent.held(), 'the card fetch under way');
  agent.release();
  await started;
  tt.equal(store.status(gone).ready, false, 'no card');
  store.retain([]);
  await tt.rejects(store.get(gone), 'a call of the old configuration gets no card');
  tt.equal(store.status(gone).ready, false, 'nor a ready route');
  tt.equal(store.peek(gone), undefined, 'nothing cached for it');
  tt.equal(agent.cards, 1, 'and nothing is fetched for it');
});

t.test('a card.file route reads its file again on reload (an edited card, then SIGHUP)', async (tt) => {
  const dir = tt.testdir({ 'card.json': JSON.stringify({ ...agentCard('http://127.0.0.1:1/'), name: 'first' }) });
  const file = join(dir, 'card.json');
  const config = () =>
    gatewayConfig([{ name: 'filed', upstream: { url: '127.0.0.1:9', binding: 'GRPC' }, card: { file } }]);
  const gw = await startGateway(config(), silent);
  tt.teardown(() => gw.close());
  const name = async (): Promise<unknown> => (JSON.parse((await servedCard(gw)).body) as { name?: unknown }).name;
  await waitFor(async () => (await name()) === 'first', 'the card from the file');
  writeFileSync(file, JSON.stringify({ ...agentCard('http://127.0.0.1:1/'), name: 'second' }));
  gw.reload(config());
  tt.ok(await eventually(async () => (await name()) === 'second'), 'the edited card is served after the reload');
});
