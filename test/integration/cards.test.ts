// The served Agent Card (spec §8): interfaces rewritten for every binding and
// in the right order for upstream cards listing one, two or three
// interfaces; URLs behind a TLS-terminating proxy from trusted forwarded
// headers only (and never with a doubled prefix); configured public URLs and
// overrides; exposed bindings; host-bound routes; §8.6 caching with 304s; the
// extended card rewritten over every pair; the official SDK client finding
// the gateway through each card.
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import type { Binding } from '../../src/config/types.js';
import { startEchoAgent, type RunningAgent } from '../../examples/demo-agent/echo-agent.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, userMessage } from '../helpers/harness.js';
import { sdkClient, sdkMessage } from '../helpers/sdk.js';

const one = await startEchoAgent({ bindings: ['GRPC'], name: 'One' });
const two = await startEchoAgent({ bindings: ['HTTP+JSON', 'JSONRPC'], name: 'Two' });
const three = await startEchoAgent({
  bindings: ['JSONRPC', 'GRPC', 'HTTP+JSON'],
  name: 'Three',
  extendedAgentCard: true,
});
const agents: Array<[string, RunningAgent, Binding]> = [
  ['one', one, 'GRPC'],
  ['two', two, 'HTTP+JSON'],
  ['three', three, 'JSONRPC'],
];

async function gateway(extra: { trustedProxies?: string[]; publicHttpUrl?: string } = {}): Promise<RunningGateway> {
  return startGateway(
    gatewayConfig(
      [
        ...agents.map(([name, a, b]) => ({
          name,
          match: { pathPrefix: `/agents/${name}`, tenant: name },
          upstream: { url: a.urlFor(b), binding: b, tenant: 'clear' as const },
        })),
        { name: 'auto', match: { pathPrefix: '/auto' }, upstream: { url: two.httpUrl, binding: 'auto' as const } },
        {
          name: 'public',
          match: { pathPrefix: '/pub', tenant: 'pub' },
          upstream: { url: two.restUrl, binding: 'HTTP+JSON' as const },
          card: {
            publicHttpUrl: 'https://agents.example.com/pub/',
            publicGrpcAddress: 'grpc.example.com:443',
            overrides: { name: 'Public Two', description: 'served by the gateway' },
          },
        },
        {
          name: 'rest-only',
          match: { pathPrefix: '/rest-only' },
          upstream: { url: two.restUrl, binding: 'HTTP+JSON' as const },
          card: { bindings: ['HTTP+JSON' as const], maxAgeSeconds: 60 },
        },
        {
          name: 'by-host',
          match: { pathPrefix: '/hosted', hosts: ['agent.example.org'] },
          upstream: { url: three.jsonRpcUrl, binding: 'JSONRPC' as const },
        },
      ],
      extra,
    ),
    pino({ level: 'silent' }),
  );
}

const trusting = await gateway({ trustedProxies: ['127.0.0.1', '::1'] });
const untrusting = await gateway({ trustedProxies: ['10.0.0.0/8'] });
t.teardown(async () => {
  closeGrpcClients();
  await Promise.all([trusting.close(), untrusting.close()]);
  await Promise.all([one.close(), two.close(), three.close()]);
});

async function card(
  gw: RunningGateway,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; json?: JsonObject }> {
  const res = await request(`${gw.httpUrl}${path}`, { headers });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, ...(text ? { json: JSON.parse(text) as JsonObject } : {}) };
}

/** The card's 1.0 interfaces (the 0.3 ones the bridge adds are checked in bridge-cards.test.ts). */
const ifaces = (c: JsonObject | undefined) =>
  ((c?.supportedInterfaces ?? []) as JsonObject[]).filter((i) => i.protocolVersion === '1.0');

t.test('interfaces: one per binding, upstream order first, tenant, version', async (tt) => {
  // The GRPC-only agent publishes no card here: a route without card source serves a minimal one.
  tt.same(
    ifaces((await card(trusting, '/agents/one/.well-known/agent-card.json')).json).map((i) => i.protocolBinding),
    ['GRPC', 'JSONRPC', 'HTTP+JSON'],
    'one interface upstream: it first',
  );
  const twoCard = (await card(trusting, '/agents/two/.well-known/agent-card.json')).json;
  tt.same(
    ifaces(twoCard).map((i) => i.protocolBinding),
    ['HTTP+JSON', 'JSONRPC', 'GRPC'],
    'two, in their order, then gRPC',
  );
  const threeCard = (await card(trusting, '/agents/three/.well-known/agent-card.json')).json;
  tt.same(
    ifaces(threeCard).map((i) => i.protocolBinding),
    ['JSONRPC', 'GRPC', 'HTTP+JSON'],
    "three in the upstream's order",
  );
  tt.equal(threeCard?.name, 'Three', "everything else is the upstream's");
  for (const i of ifaces(threeCard)) {
    tt.same(
      [i.protocolVersion, i.tenant],
      ['1.0', 'three'],
      `${String(i.protocolBinding)}: version 1.0 and the route's tenant`,
    );
    tt.equal(
      i.url,
      i.protocolBinding === 'GRPC' ? trusting.grpcAddress : `${trusting.httpUrl}/agents/three`,
      `${String(i.protocolBinding)}: the gateway's URL`,
    );
  }
  const auto = (await card(trusting, '/auto/.well-known/agent-card.json')).json;
  tt.same(
    ifaces(auto).map((i) => [i.protocolBinding, i.url]),
    [
      ['HTTP+JSON', `${trusting.httpUrl}/auto`],
      ['JSONRPC', `${trusting.httpUrl}/auto`],
    ],
    'no gRPC for a prefixed route without tenant or host (gRPC could not reach it)',
  );
});

t.test('behind a TLS-terminating proxy: forwarded headers from trusted proxies only', async (tt) => {
  const xf = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'agents.example.net', 'x-forwarded-prefix': '/edge' };
  const trusted = ifaces((await card(trusting, '/agents/three/.well-known/agent-card.json', xf)).json);
  tt.same(
    trusted.map((i) => i.url),
    [
      'https://agents.example.net/edge/agents/three',
      'agents.example.net:' + trusting.grpcPort,
      'https://agents.example.net/edge/agents/three',
    ],
  );
  const rfc7239 = ifaces(
    (
      await card(trusting, '/agents/three/.well-known/agent-card.json', {
        forwarded: 'for=1.2.3.4;proto=https;host="a.example:8443", for=5.6.7.8',
      })
    ).json,
  );
  tt.equal(rfc7239[0]?.url, 'https://a.example:8443/agents/three', 'RFC 7239 Forwarded');
  const notDoubled = ifaces(
    (
      await card(trusting, '/agents/three/.well-known/agent-card.json', {
        ...xf,
        'x-forwarded-prefix': '/agents/three',
      })
    ).json,
  );
  tt.equal(
    notDoubled[0]?.url,
    'https://agents.example.net/agents/three',
    'a forwarded prefix equal to the route prefix is not doubled',
  );
  const untrusted = ifaces((await card(untrusting, '/agents/three/.well-known/agent-card.json', xf)).json);
  tt.equal(untrusted[0]?.url, `${untrusting.httpUrl}/agents/three`, 'from an untrusted peer the headers are ignored');
});

t.test('configured public URLs and overrides', async (tt) => {
  const c = (await card(trusting, '/pub/.well-known/agent-card.json', { 'x-forwarded-host': 'ignored.example' })).json;
  tt.same(
    ifaces(c).map((i) => i.url),
    ['https://agents.example.com/pub', 'https://agents.example.com/pub', 'grpc.example.com:443'],
  );
  tt.same([c?.name, c?.description], ['Public Two', 'served by the gateway']);
});

t.test('exposed bindings', async (tt) => {
  const c = await card(trusting, '/rest-only/.well-known/agent-card.json');
  tt.same(
    ifaces(c.json).map((i) => i.protocolBinding),
    ['HTTP+JSON'],
  );
  const rest = await CALLERS['HTTP+JSON'](
    trusting,
    'SendMessage',
    { message: userMessage('x') },
    { tenant: '', prefix: '/rest-only' },
  );
  tt.equal(rest.ok, true, 'REST is served');
  const rpc = await CALLERS.JSONRPC(
    trusting,
    'SendMessage',
    { message: userMessage('x') },
    { tenant: '', prefix: '/rest-only' },
  );
  tt.equal(rpc.code, -32050, 'JSON-RPC is not: no route');
});

t.test('a host-bound route serves its card at the host root too', async (tt) => {
  const c = await card(trusting, '/.well-known/agent-card.json', { host: 'agent.example.org' });
  tt.equal(c.json?.name, 'Three');
  tt.equal(ifaces(c.json)[0]?.url, 'http://agent.example.org/hosted');
});

t.test('§8.6 caching', async (tt) => {
  const first = await card(trusting, '/rest-only/.well-known/agent-card.json');
  tt.equal(first.headers['cache-control'], 'public, max-age=60');
  tt.match(first.headers.etag, /^"[A-Za-z0-9_-]{43}"$/, 'a strong ETag');
  tt.ok(!Number.isNaN(Date.parse(String(first.headers['last-modified']))), 'Last-Modified');
  const again = await card(trusting, '/rest-only/.well-known/agent-card.json');
  tt.equal(again.headers.etag, first.headers.etag, 'same bytes, same ETag');
  tt.equal(
    (await card(trusting, '/rest-only/.well-known/agent-card.json', { 'if-none-match': String(first.headers.etag) }))
      .status,
    304,
  );
  tt.equal(
    (await card(trusting, '/rest-only/.well-known/agent-card.json', { 'if-none-match': '"other"' })).status,
    200,
  );
  tt.equal(
    (
      await card(trusting, '/rest-only/.well-known/agent-card.json', {
        'if-modified-since': String(first.headers['last-modified']),
      })
    ).status,
    304,
  );
  const other = await card(trusting, '/rest-only/.well-known/agent-card.json', {
    'x-forwarded-host': 'elsewhere.example',
  });
  tt.not(other.headers.etag, first.headers.etag, 'a card for other URLs has another ETag');
});

t.test('the extended card is rewritten over every pair', async (tt) => {
  for (const inbound of BINDINGS) {
    const r = await CALLERS[inbound](
      trusting,
      'GetExtendedAgentCard',
      {},
      { tenant: 'three', prefix: '/agents/three' },
    );
    tt.equal(r.result?.name, 'Three (extended)', `${inbound}: the upstream's extended card`);
    tt.same(
      ifaces(r.result).map((i) => i.url),
      [`${trusting.httpUrl}/agents/three`, trusting.grpcAddress, `${trusting.httpUrl}/agents/three`],
      `${inbound}: with the gateway's interfaces`,
    );
    const no = await CALLERS[inbound](trusting, 'GetExtendedAgentCard', {}, { tenant: 'two', prefix: '/agents/two' });
    tt.equal(
      no.details?.find((d) => d.reason)?.reason,
      'UNSUPPORTED_OPERATION',
      `${inbound}: UnsupportedOperation when the card declares no extended card`,
    );
  }
});

t.test('the SDK client finds the gateway through each card and each binding', async (tt) => {
  for (const [name] of agents) {
    for (const inbound of BINDINGS) {
      const client = await sdkClient(inbound, `${trusting.httpUrl}/agents/${name}/.well-known/agent-card.json`);
      const result = await client.sendMessage({
        tenant: '',
        message: sdkMessage('hi'),
        configuration: undefined,
        metadata: undefined,
      });
      tt.ok('status' in result, `${name} via ${inbound}`);
    }
  }
});
