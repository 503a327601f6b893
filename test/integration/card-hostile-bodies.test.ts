// An upstream card is accepted only as a JSON object that reads as an
// AgentCard (spec §8.2; docs/cards.md, "Upstream cards"): `null`, an array,
// a string, a number, `"name": 5`, `"skills": "x"`, `"supportedInterfaces":
// "x"` are each a failed fetch — logged with why, no card served (503, never
// 500 with signatures: resign), the route not ready, no fetch per request
// while the retry waits, and calls still reach the agent. Top-level nulls
// read as absent. A good card that turns hostile on refresh keeps serving,
// and a hostile last good card in Redis is not served. Real peers: an SDK
// agent for calls, HTTP servers for the cards, a real Redis.
import { Writable } from 'node:stream';
import { exportPKCS8, generateKeyPair } from 'jose';
import { join } from 'node:path';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { Redis } from 'ioredis';
import { echoAgentCard, startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { sharedCardKey } from '../../src/card/card-source.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { brokenHttp, refusedPort } from '../helpers/broken-upstreams.js';
import { cardServer } from '../helpers/card-server.js';
import { callJsonRpc, gatewayConfig, userMessage } from '../helpers/harness.js';
import { testRedisUrl, uniquePrefix } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';

const GOOD = echoAgentCard('Good Agent', {}) as unknown as JsonObject;
/** Each hostile body, and what the log says of it. */
const HOSTILE: Record<string, [string, RegExp]> = {
  null: ['null', /the agent card is null, not a JSON object/],
  array: ['[]', /the agent card is an array, not a JSON object/],
  string: ['"hello"', /the agent card is a string, not a JSON object/],
  number: ['5', /the agent card is a number, not a JSON object/],
  name: [JSON.stringify({ ...GOOD, name: 5 }), /no AgentCard: name: expected string, got 5/],
  skills: [JSON.stringify({ ...GOOD, capabilities: null, skills: 'x' }), /no AgentCard: skills: expected Array/],
  interfaces: [JSON.stringify({ ...GOOD, supportedInterfaces: 'x' }), /no AgentCard: supportedInterfaces/],
};

const fetches: Record<string, number> = {};
const cards = await brokenHttp((req, res) => {
  const which = (req.url ?? '').slice(1);
  fetches[which] = (fetches[which] ?? 0) + 1;
  const body = which === 'nulls' ? JSON.stringify({ ...GOOD, capabilities: null, iconUrl: null }) : HOSTILE[which]?.[0];
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=3600' }).end(body ?? '{}');
});
const flip = await cardServer(GOOD, 'max-age=0');
const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
const keyDir = t.testdir({
  'gw.pem': await exportPKCS8((await generateKeyPair('ES256', { extractable: true })).privateKey),
});
const signingKey = { file: join(keyDir, 'gw.pem'), alg: 'ES256', kid: 'gw-1' };
const upstream = { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const };
const down = `http://127.0.0.1:${await refusedPort()}`;
const redisUrl = await testRedisUrl(t);
const keyPrefix = uniquePrefix('card-hostile');
const config = gatewayConfig(
  [
    ...Object.keys(HOSTILE).map((k) => ({
      name: k,
      match: { pathPrefix: `/${k}` },
      upstream,
      card: { url: `${cards.url}/${k}` },
    })),
    {
      name: 'resign',
      match: { pathPrefix: '/resign' },
      upstream,
      card: { url: `${cards.url}/name`, signatures: 'resign' as const, signingKey },
    },
    { name: 'nulls', match: { pathPrefix: '/nulls' }, upstream, card: { url: `${cards.url}/nulls` } },
    { name: 'flip', match: { pathPrefix: '/flip' }, upstream, card: { url: `${flip.url}/card.json` } },
    // cards no agent can give: the last good card is read from Redis
    { name: 'redis-bad', match: { pathPrefix: '/redis-bad' }, upstream, card: { url: `${down}/bad.json` } },
    { name: 'redis-good', match: { pathPrefix: '/redis-good' }, upstream, card: { url: `${down}/good.json` } },
  ],
  { state: { redis: { url: redisUrl, keyPrefix, rateLimitFailure: 'open', commandTimeoutMs: 1000 } } },
);
const redis = new Redis(redisUrl);
const routeNamed = (name: string) => config.routes.find((r) => r.name === name)!;
await redis.set(keyPrefix + sharedCardKey(routeNamed('redis-bad')).join(':'), '{"name":5}');
await redis.set(keyPrefix + sharedCardKey(routeNamed('redis-good')).join(':'), JSON.stringify(GOOD));

const lines: JsonObject[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, cb) {
    for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as JsonObject);
    cb();
  },
});
const gw = await startGateway(config, pino({ level: 'warn' }, sink));
t.teardown(async () => {
  await gw.close();
  redis.disconnect();
  await cards.close();
  await flip.close();
  await agent.close();
});

const cardOf = async (prefix: string) => {
  const res = await request(`${gw.httpUrl}${prefix}/.well-known/agent-card.json`, {
    headers: { 'a2a-version': '1.0' },
  });
  return { status: res.statusCode, text: await res.body.text() };
};
const logged = (route: string, msg: string) => lines.find((l) => l.route === route && l.msg === msg);

t.test('each hostile body is a failed fetch, logged with why, and no card is served', async (tt) => {
  for (const [name, [, why]] of Object.entries(HOSTILE)) {
    const line = await waitFor(() => logged(name, 'agent card unavailable; route not ready'), `${name}: the log`);
    tt.match(String(line.err), why, `${name}: the log says why`);
    const served = await cardOf(`/${name}`);
    tt.equal(served.status, 503, `${name}: no card served`);
    tt.match(served.text, "cannot read the upstream's agent card", `${name}: the card is unavailable`);
  }
  const resigned = await cardOf('/resign');
  tt.equal(resigned.status, 503, 'with signatures: resign too (not a 500)');
});

t.test('no fetch per request while the retry waits; calls still reach the agent', async (tt) => {
  await waitFor(() => logged('null', 'agent card unavailable; route not ready'), 'the failure');
  const before = fetches.null!;
  for (let i = 0; i < 5; i++) await cardOf('/null');
  for (let i = 0; i < 5; i++) {
    const sent = await callJsonRpc(
      gw,
      'SendMessage',
      { message: userMessage(`n${i}`) },
      { tenant: '', prefix: '/null' },
    );
    tt.ok(sent.ok, `call ${i} answered by the agent`);
  }
  // the backoff retry may come due meanwhile: at most that one fetch
  tt.ok(fetches.null! - before <= 1, `ten requests, ${fetches.null! - before} fetches`);
});

t.test('top-level nulls read as absent', async (tt) => {
  const served = await waitFor(async () => {
    const c = await cardOf('/nulls');
    return c.status === 200 && c;
  }, 'the card');
  const card = JSON.parse(served.text) as JsonObject;
  tt.equal(card.name, 'Good Agent');
  tt.notOk('capabilities' in card, 'no capabilities: null');
  tt.notOk('iconUrl' in card, 'no iconUrl: null');
});

t.test('a good card that turns hostile on refresh keeps serving', async (tt) => {
  await waitFor(async () => (await cardOf('/flip')).status === 200, 'the good card');
  flip.card = { ...GOOD, name: 5 } as unknown as JsonObject;
  // max-age=0: the next request revalidates in the background
  await cardOf('/flip');
  const line = await waitFor(
    () => logged('flip', 'agent card refresh failed; serving the last good card'),
    'the refresh failure',
  );
  tt.match(String(line.err), /name: expected string, got 5/, 'logged with why');
  const served = await cardOf('/flip');
  tt.equal(served.status, 200);
  tt.equal((JSON.parse(served.text) as JsonObject).name, 'Good Agent', 'the last good card');
});

t.test('a hostile last good card in Redis is not served', async (tt) => {
  const good = await waitFor(async () => {
    const c = await cardOf('/redis-good');
    return c.status === 200 && c;
  }, 'the good card from Redis (the agent is down)');
  tt.equal((JSON.parse(good.text) as JsonObject).name, 'Good Agent', 'a good one is');
  await waitFor(() => logged('redis-bad', 'agent card unavailable; route not ready'), 'the failure');
  const bad = await cardOf('/redis-bad');
  tt.equal(bad.status, 503, 'the hostile one is not');
  tt.notMatch(bad.text, '"name":5');
});
