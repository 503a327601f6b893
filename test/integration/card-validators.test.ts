// §8.6 validators of served cards (RFC 9110 §8.8, §13.1): the minimal card of
// a gRPC route without a card source keeps its bytes and Last-Modified from
// request to request (signed once, not per request), so If-None-Match and
// If-Modified-Since answer 304; If-None-Match compares weakly (`W/"…"`, as
// proxies that compress send it back), in a list, and `*`; a reload that
// changes the served card moves Last-Modified, so a revalidation with the old
// date gets the new card.
//
// HTTP dates count whole seconds: where a test needs a later Last-Modified to be
// distinguishable it waits (on the clock's state, not a fixed pause) until the
// second of the one it has has passed.
import { join } from 'node:path';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { exportPKCS8, generateKeyPair } from 'jose';
import { echoAgentCard } from '../../examples/demo-agent/echo-agent.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import { brokenHttp } from '../helpers/broken-upstreams.js';
import { cardServer } from '../helpers/card-server.js';
import { gatewayConfig } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

const silent = pino({ level: 'silent' });
/** An entity tag (RFC 9110 §8.8.3), strong or weak: an absent header is "undefined", which this refuses. */
const ETAG = /^(W\/)?"[^"]+"$/;

interface Got {
  status: number;
  etag: string;
  lastModified: string;
  name: unknown;
}

async function get(gw: RunningGateway, path: string, headers: Record<string, string> = {}): Promise<Got> {
  const res = await request(`${gw.httpUrl}${path}/.well-known/agent-card.json`, {
    headers: { 'a2a-version': '1.0', ...headers },
  });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    etag: String(res.headers.etag),
    lastModified: String(res.headers['last-modified']),
    name: text ? (JSON.parse(text) as JsonObject).name : undefined,
  };
}

/** Until the wall clock is past the second an HTTP date names (a later date can then differ from it). */
const pastSecondOf = (httpDate: string) =>
  waitFor(() => Date.now() >= Date.parse(httpDate) + 1000, `the clock to pass ${httpDate}`);

t.test('the minimal card keeps its bytes and Last-Modified: signed once, revalidated with 304', async (tt) => {
  const keys = await generateKeyPair('ES256', { extractable: true });
  const dir = tt.testdir({ 'gw.pem': await exportPKCS8(keys.privateKey) });
  const signingKey = { file: join(dir, 'gw.pem'), alg: 'ES256', kid: 'gw-1' };
  const grpcRoute = (name: string) => ({
    name,
    match: { pathPrefix: `/${name}`, tenant: name },
    upstream: { url: '127.0.0.1:9', binding: 'GRPC' as const },
  });
  const gw = await startGateway(
    gatewayConfig([
      { ...grpcRoute('signed'), card: { signatures: 'resign' as const, signingKey } },
      grpcRoute('plain'),
    ]),
    silent,
  );
  tt.teardown(() => gw.close());

  const s1 = await get(gw, '/signed');
  const s2 = await get(gw, '/signed');
  tt.equal(s1.status, 200);
  tt.match(s1.etag, ETAG, 'the signed card has an ETag');
  tt.equal(s2.etag, s1.etag, 'the signed minimal card is the same bytes on the next request');
  tt.equal((await get(gw, '/signed', { 'if-none-match': s1.etag })).status, 304, 'If-None-Match: 304');

  const p1 = await get(gw, '/plain');
  await pastSecondOf(p1.lastModified);
  const p2 = await get(gw, '/plain');
  tt.equal(p2.lastModified, p1.lastModified, 'Last-Modified does not follow the clock');
  tt.equal((await get(gw, '/plain', { 'if-modified-since': p1.lastModified })).status, 304, 'If-Modified-Since: 304');
});

t.test('If-None-Match compares weakly, in a list, and * matches', async (tt) => {
  const upstream = await cardServer(echoAgentCard('Plain', {}) as unknown as JsonObject, 'max-age=60');
  const gw = await startGateway(
    gatewayConfig([
      {
        name: 'p',
        match: { pathPrefix: '/p' },
        upstream: { url: `${upstream.url}/rpc`, binding: 'JSONRPC' as const },
        card: { url: `${upstream.url}/c.json` },
      },
    ]),
    silent,
  );
  tt.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const { etag } = await get(gw, '/p');
  tt.match(etag, ETAG, 'the card has an ETag');
  const status = async (inm: string) => (await get(gw, '/p', { 'if-none-match': inm })).status;
  tt.equal(await status(etag), 304, 'the strong tag');
  tt.equal(await status(`W/${etag}`), 304, 'the weak form of the tag (RFC 9110 §13.1.2: weak comparison)');
  tt.equal(await status(`"other", W/${etag}`), 304, 'in a list');
  tt.equal(await status('"a,b",W/"c"'), 200, 'a list without it (a comma inside a tag is no separator)');
  tt.equal(await status('*'), 304, '*');
  tt.equal(await status(`W/"x${etag.slice(1)}`), 200, 'another tag');
});

t.test('a reload that changes the served card moves Last-Modified', async (tt) => {
  const upstream = await cardServer(echoAgentCard('Original', {}) as unknown as JsonObject, 'max-age=60');
  const config = (name?: string) =>
    gatewayConfig([
      {
        name: 'r',
        match: { pathPrefix: '/r' },
        upstream: { url: `${upstream.url}/rpc`, binding: 'JSONRPC' as const },
        card: { url: `${upstream.url}/c.json`, ...(name ? { overrides: { name } } : {}) },
      },
    ]);
  const gw = await startGateway(config(), silent);
  tt.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const before = await get(gw, '/r');
  tt.equal(before.name, 'Original');
  await pastSecondOf(before.lastModified);

  gw.reload(config());
  const unchanged = await get(gw, '/r', { 'if-modified-since': before.lastModified });
  tt.equal(unchanged.status, 304, 'a reload that changes nothing of the card keeps Last-Modified');

  gw.reload(config('Renamed'));
  const after = await get(gw, '/r');
  tt.equal(after.name, 'Renamed');
  tt.ok(Date.parse(after.lastModified) > Date.parse(before.lastModified), 'Last-Modified moved');
  const revalidated = await get(gw, '/r', { 'if-modified-since': before.lastModified });
  tt.equal(revalidated.status, 200, 'the old date revalidates to the new card');
  tt.equal(revalidated.name, 'Renamed');
});

t.test('a card request in flight across a reload: the new configuration is served its own card', async (tt) => {
  let release: (() => void) | undefined;
  const held = new Promise<void>((r) => (release = r));
  let fetches = 0;
  const card = JSON.stringify(echoAgentCard('Held', {}));
  const upstream = await brokenHttp((_req, res) => {
    fetches++;
    // the first fetch answers only once the reload is done
    void (fetches === 1 ? held : Promise.resolve()).then(() =>
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' }).end(card),
    );
  });
  const config = (description: string) =>
    gatewayConfig([
      {
        name: 'held',
        match: { pathPrefix: '/h' },
        upstream: { url: `${upstream.url}/rpc`, binding: 'JSONRPC' as const },
        card: { url: `${upstream.url}/c.json`, overrides: { description } },
      },
    ]);
  const gw = await startGateway(config('before'), pino({ level: 'silent' }));
  tt.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const url = `${gw.httpUrl}/h/.well-known/agent-card.json`;
  const headers = { 'a2a-version': '1.0' };
  const inFlight = request(url, { headers }).then(async (r) => (await r.body.json()) as JsonObject);
  await waitFor(() => fetches >= 1 || undefined, 'the card fetch under way');
  gw.reload(config('after'));
  release!();
  await inFlight; // (built for the configuration it came in under)
  for (let i = 0; i < 2; i++) {
    const now = (await (await request(url, { headers })).body.json()) as JsonObject;
    tt.equal(now.description, 'after', `request ${i + 1} after the reload: the new configuration's card`);
  }
});
