// Upstream discovery and card-based checks (spec §3.3.4, §8.3.2, §8.4,
// §8.6): an `auto` upstream down at start then up; refresh with ETag
// revalidation, and a failed refresh keeping the last card; a card pointing
// at a foreign host; fallback to the next interface on a refused connection;
// only unsupported versions; required extensions and the extended card
// refused or passed through on every inbound binding; signatures dropped,
// re-signed (verified with the official SDK's verifier) and verified.
import { join } from 'node:path';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import { generateAgentCardSignature, verifyAgentCardSignature, type AgentCard } from '@a2a-js/sdk';
import type { Binding } from '../../src/config/types.js';
import { echoAgentCard, startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import { refusedPort } from '../helpers/broken-upstreams.js';
import { cardServer } from '../helpers/card-server.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, slug, userMessage } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

const agent = await startEchoAgent({
  bindings: BINDINGS,
  extendedAgentCard: true,
  extendedCardConfigured: false,
  extensions: [{ uri: 'urn:example:required-ext', required: true }],
});
const plain = await startEchoAgent({ bindings: ['JSONRPC', 'HTTP+JSON'], name: 'Plain' });
const port = await refusedPort();
const laterUrl = `http://127.0.0.1:${port}`;

const cardWith = (interfaces: JsonObject[], name = 'Served Card'): JsonObject => ({
  ...(echoAgentCard(name, {}) as unknown as JsonObject),
  supportedInterfaces: interfaces,
});
const refreshing = await cardServer(
  cardWith([{ url: plain.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }], 'Version 1'),
);
// Another host: 127.0.0.2 (localhost, 127.0.0.1 and ::1 count as the upstream's own host).
const foreignAgent = await startEchoAgent({ bindings: ['JSONRPC'], name: 'Foreign', host: '127.0.0.2' });
const foreignUrl = foreignAgent.jsonRpcUrl;
const foreign = await cardServer(cardWith([{ url: foreignUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]));
const fallback = await cardServer(
  cardWith([
    {
      url: `${laterUrl.replace(String(port), String(await refusedPort()))}/rpc`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    },
    { url: plain.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ]),
);
const oldVersions = await cardServer(
  cardWith([{ url: plain.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.2' }]),
);

// Keys: the upstream's (signs its card with the SDK) and the gateway's (re-signs).
const upstreamKeys = await generateKeyPair('ES256', { extractable: true });
const gatewayKeys = await generateKeyPair('ES256', { extractable: true });
const strangerKeys = await generateKeyPair('ES256', { extractable: true });
const dir = t.testdir({
  'gateway.pem': await exportPKCS8(gatewayKeys.privateKey),
  'upstream-jwks.json': JSON.stringify({
    keys: [{ ...(await exportJWK(upstreamKeys.publicKey)), kid: 'up-1', alg: 'ES256' }],
  }),
  'stranger-jwks.json': JSON.stringify({
    keys: [{ ...(await exportJWK(strangerKeys.publicKey)), kid: 'up-1', alg: 'ES256' }],
  }),
});
const sign = generateAgentCardSignature(upstreamKeys.privateKey, { alg: 'ES256', kid: 'up-1', typ: 'JOSE' });
const signedCard = (await sign(
  cardWith(
    [{ url: plain.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
    'Signed',
  ) as unknown as AgentCard,
)) as unknown as JsonObject;
const signed = await cardServer(signedCard);

const cardOf = (b: Binding) => (b === 'GRPC' ? { card: { url: `${agent.httpUrl}/.well-known/agent-card.json` } } : {});
const gw: RunningGateway = await startGateway(
  gatewayConfig([
    ...BINDINGS.map((b) => ({
      name: `ext-${slug(b)}`,
      match: { pathPrefix: `/ext-${slug(b)}`, tenant: `ext-${slug(b)}` },
      upstream: { url: agent.urlFor(b), binding: b, tenant: 'clear' as const },
      ...cardOf(b),
    })),
    { name: 'later', match: { pathPrefix: '/later' }, upstream: { url: laterUrl, binding: 'auto' as const } },
    {
      name: 'refreshing',
      match: { pathPrefix: '/refreshing' },
      upstream: { url: `${refreshing.url}/card.json`, binding: 'auto' as const },
    },
    {
      name: 'foreign',
      match: { pathPrefix: '/foreign' },
      upstream: { url: `${foreign.url}/card.json`, binding: 'auto' as const },
    },
    {
      name: 'foreign-allowed',
      match: { pathPrefix: '/foreign-allowed' },
      upstream: { url: `${foreign.url}/card.json`, binding: 'auto' as const, allowedHosts: ['127.0.0.2'] },
    },
    {
      name: 'fallback',
      match: { pathPrefix: '/fallback' },
      upstream: { url: `${fallback.url}/card.json`, binding: 'auto' as const },
    },
    {
      name: 'old',
      match: { pathPrefix: '/old' },
      upstream: { url: `${oldVersions.url}/card.json`, binding: 'auto' as const },
    },
    {
      name: 'drop',
      match: { pathPrefix: '/drop' },
      upstream: { url: `${signed.url}/card.json`, binding: 'auto' as const },
    },
    {
      name: 'resign',
      match: { pathPrefix: '/resign' },
      upstream: { url: `${signed.url}/card.json`, binding: 'auto' as const },
      card: {
        signatures: 'resign' as const,
        signingKey: { file: join(dir, 'gateway.pem'), alg: 'ES256', kid: 'gw-1', jku: 'https://gw.example/jwks.json' },
      },
    },
    {
      name: 'verified',
      match: { pathPrefix: '/verified' },
      upstream: { url: `${signed.url}/card.json`, binding: 'auto' as const },
      card: { verifyJwksFile: join(dir, 'upstream-jwks.json') },
    },
    {
      name: 'unverified',
      match: { pathPrefix: '/unverified' },
      upstream: { url: `${signed.url}/card.json`, binding: 'auto' as const },
      card: { verifyJwksFile: join(dir, 'stranger-jwks.json') },
    },
  ]),
  pino({ level: 'silent' }),
);
let later: Awaited<ReturnType<typeof startEchoAgent>> | undefined;
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await Promise.all([
    agent.close(),
    plain.close(),
    foreignAgent.close(),
    later?.close(),
    refreshing.close(),
    foreign.close(),
    fallback.close(),
    oldVersions.close(),
    signed.close(),
  ]);
});

const send = (prefix: string) =>
  CALLERS.JSONRPC(gw, 'SendMessage', { message: userMessage('hello') }, { tenant: '', prefix });
/** The served card as a 1.x caller gets it (one without A2A-Version gets the 0.3 shape: bridge-cards.test.ts). */
const served = async (prefix: string) => {
  const res = await request(`${gw.httpUrl}${prefix}/.well-known/agent-card.json`, {
    headers: { 'a2a-version': '1.0' },
  });
  return { status: res.statusCode, json: (await res.body.json()) as JsonObject };
};
const reason = (r: { details?: JsonObject[] }) => r.details?.find((d) => d.reason)?.reason;
/** The gateway's count of card refreshes of `route` with `outcome` (its /metrics). */
const refreshes = async (route: string, outcome: string): Promise<number> => {
  const text = await gw.metrics.text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`a2a_gateway_card_refreshes_total{route="${route}",outcome="${outcome}"}`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
};

t.test('required extensions and the extended card, on every inbound binding', async (tt) => {
  for (const inbound of BINDINGS) {
    for (const upstream of BINDINGS) {
      const opts = { tenant: `ext-${slug(upstream)}`, prefix: `/ext-${slug(upstream)}` };
      const refused = await CALLERS[inbound](gw, 'SendMessage', { message: userMessage('no ext') }, opts);
      tt.equal(
        reason(refused),
        'EXTENSION_SUPPORT_REQUIRED',
        `${inbound} → ${upstream}: refused without the required extension`,
      );
      tt.notSame(agent.lastCall()?.text, 'no ext', 'without calling the agent');
      const ok = await CALLERS[inbound](
        gw,
        'SendMessage',
        { message: userMessage('with ext') },
        { ...opts, headers: { 'a2a-extensions': 'urn:example:required-ext, urn:example:other' } },
      );
      tt.equal(ok.ok, true, `${inbound} → ${upstream}: served when the caller lists it`);
      tt.equal(
        agent.lastCall()?.headers['a2a-extensions'],
        'urn:example:required-ext,urn:example:other',
        'and the extensions go upstream unchanged',
      );
      const ext = await CALLERS[inbound](
        gw,
        'GetExtendedAgentCard',
        {},
        { ...opts, headers: { 'a2a-extensions': 'urn:example:required-ext' } },
      );
      tt.equal(
        reason(ext),
        'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
        `${inbound} → ${upstream}: ExtendedAgentCardNotConfigured passes through`,
      );
    }
  }
});

t.test('an upstream down at start: not ready, then served once it is up', async (tt) => {
  tt.equal(reason(await send('/later')), 'UPSTREAM_UNAVAILABLE', 'a call while the upstream is down');
  tt.equal((await served('/later')).status, 503, 'the card while the upstream is down');
  later = await startEchoAgent({ bindings: ['JSONRPC'], httpPort: port, name: 'Later' });
  tt.ok(
    await waitFor(async () => (await send('/later')).ok, 'a call served'),
    'served after the backoff retry found it',
  );
  tt.equal((await served('/later')).json.name, 'Later');
});

t.test('refresh: ETag revalidation, and a failed refresh keeps the last card', async (tt) => {
  tt.equal((await served('/refreshing')).json.name, 'Version 1');
  const before = refreshing.fetches;
  await served('/refreshing'); // a stale card (max-age=0) is served and revalidated in the background
  await waitFor(() => refreshing.fetches > before, 'a revalidation');
  tt.ok(refreshing.notModified > 0, 'a stale card is revalidated with If-None-Match (304)');
  tt.ok(await waitFor(() => refreshes('refreshing', 'not_modified'), 'the 304 counted'), 'and kept');
  refreshing.failing = true;
  await served('/refreshing');
  await waitFor(() => refreshes('refreshing', 'failed'), 'a failed refresh');
  const whileDown = await served('/refreshing');
  tt.same(
    [whileDown.status, whileDown.json.name],
    [200, 'Version 1'],
    'the last good card keeps serving while refreshes fail',
  );
  tt.equal((await send('/refreshing')).ok, true, 'and calls keep working');
  refreshing.failing = false;
  refreshing.card = { ...refreshing.card, name: 'Version 2' };
  const name = await waitFor(async () => {
    const n = String((await served('/refreshing')).json.name);
    return n === 'Version 2' && n;
  }, 'the changed card');
  tt.equal(name, 'Version 2', 'a changed card is picked up');
});

t.test('a card pointing at a foreign host is used only where allowed', async (tt) => {
  const r = await send('/foreign');
  tt.equal(reason(r), 'UPSTREAM_UNAVAILABLE');
  tt.match(r.message, 'host not allowed', 'says why');
  tt.equal((await send('/foreign-allowed')).ok, true, 'with upstream.allowedHosts it is used');
});

t.test('unary fallback to the next interface when one refuses the connection', async (tt) => {
  const r = await send('/fallback');
  tt.equal(r.ok, true, 'the REST interface answered after the JSON-RPC one refused');
});

t.test('a card offering only versions the gateway cannot speak', async (tt) => {
  const r = await send('/old');
  tt.equal(reason(r), 'UPSTREAM_UNAVAILABLE');
  tt.match(r.message, 'protocol version 0.2 not spoken');
});

t.test('signatures: dropped, re-signed, verified', async (tt) => {
  const dropped = await served('/drop');
  tt.equal(dropped.json.signatures, undefined, "the upstream's signatures do not survive the rewrite: dropped");
  const resigned = await served('/resign');
  const sigs = resigned.json.signatures as JsonObject[];
  tt.equal(sigs.length, 1, 'one signature, the gateway’s');
  tt.same(JSON.parse(Buffer.from(String(sigs[0]!.protected), 'base64url').toString()), {
    alg: 'ES256',
    typ: 'JOSE',
    kid: 'gw-1',
    jku: 'https://gw.example/jwks.json',
  });
  const verify = verifyAgentCardSignature(async (kid) => {
    if (kid !== 'gw-1') throw new Error(`unknown kid ${kid}`);
    return gatewayKeys.publicKey;
  });
  await tt.resolves(
    verify(resigned.json as unknown as AgentCard),
    "the official SDK's verifier accepts the re-signed card",
  );
  const tampered = { ...resigned.json, description: 'changed' };
  await tt.rejects(verify(tampered as unknown as AgentCard), 'and rejects it once changed');
  tt.equal((await served('/verified')).status, 200, 'an upstream card whose signature verifies is trusted');
  tt.equal((await send('/verified')).ok, true);
  const unverified = await send('/unverified');
  tt.equal(reason(unverified), 'UPSTREAM_UNAVAILABLE', 'one whose signature does not verify is not');
  tt.match(unverified.message, 'no signature of the agent card verifies');
});
