// card.signatures: resign signs only cards that name addresses the operator
// configured or vouched for: a caller's Host that is none of the route's
// match.hosts, a configured public address or the listen host gets no signed
// card naming it (400 INVALID_REQUEST) — over the well-known paths, at a
// host's root and from GetExtendedAgentCard on every binding — while the
// listen address, a match.hosts name, configured public URLs (route or
// gateway) and a trusted proxy's forwarded host still get a signed card that
// the official SDK's verifier accepts.
import * as grpc from '@grpc/grpc-js';
import { join } from 'node:path';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { exportPKCS8, generateKeyPair } from 'jose';
import { verifyAgentCardSignature, type AgentCard } from '@a2a-js/sdk';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { GRPC_CODES } from '../../src/errors/catalogue.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import { requestBytes } from '../helpers/codec.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, grpcStatusOf } from '../helpers/harness.js';

const ATTACKER = 'attacker.example:443';
const agent = await startEchoAgent({ bindings: BINDINGS, extendedAgentCard: true });
const keys = await generateKeyPair('ES256', { extractable: true });
const dir = t.testdir({ 'gateway.pem': await exportPKCS8(keys.privateKey) });
const signingKey = { file: join(dir, 'gateway.pem'), alg: 'ES256', kid: 'gw-1' };
const resign = { signatures: 'resign' as const, signingKey };
const upstream = { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const, tenant: 'clear' as const };

const routes = [
  { name: 'open', match: { pathPrefix: '/open', tenant: 'open' }, upstream, card: resign },
  { name: 'bound', match: { pathPrefix: '/bound', hosts: ['agents.example'] }, upstream, card: resign },
  {
    name: 'pub',
    match: { pathPrefix: '/pub' },
    upstream,
    card: { ...resign, publicHttpUrl: 'https://pub.example/a2a', publicGrpcAddress: 'pub.example:443' },
  },
];
const log = pino({ level: 'silent' });
const gw: RunningGateway = await startGateway(gatewayConfig(routes), log);
const fronted = await startGateway(
  gatewayConfig(routes.slice(0, 1), { publicHttpUrl: 'https://gw.example', publicGrpcAddress: 'gw.example:443' }),
  log,
);
const proxied = await startGateway(gatewayConfig(routes.slice(0, 1), { trustedProxies: ['127.0.0.1', '::1'] }), log);
// a gRPC caller naming the attacker's host as :authority
const attackerGrpc = new grpc.Client(gw.grpcAddress, grpc.credentials.createInsecure(), {
  'grpc.default_authority': ATTACKER,
});
t.teardown(async () => {
  attackerGrpc.close();
  closeGrpcClients();
  await Promise.all([gw.close(), fronted.close(), proxied.close()]);
  await agent.close();
});

const verify = verifyAgentCardSignature(async (kid) => {
  if (kid !== 'gw-1') throw new Error(`unknown kid ${kid}`);
  return keys.publicKey;
});

async function card(
  g: RunningGateway,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; json: JsonObject }> {
  const res = await request(`${g.httpUrl}${path}`, { headers: { 'a2a-version': '1.0', ...headers } });
  const text = await res.body.text();
  return { status: res.statusCode, text, json: JSON.parse(text) as JsonObject };
}

const urls = (c: JsonObject | undefined): string[] =>
  ((c?.supportedInterfaces ?? []) as JsonObject[]).map((i) => String(i.url));
const reason = (details: JsonObject[] | undefined) => details?.find((d) => d.reason)?.reason;

t.test('a Host the operator did not configure gets no signed card naming it', async (tt) => {
  for (const path of ['/open/.well-known/agent-card.json', '/open/.well-known/agent.json']) {
    const r = await card(gw, path, { host: ATTACKER });
    tt.equal(r.status, 400, `${path}: refused`);
    tt.equal(reason((r.json.error as JsonObject | undefined)?.details as JsonObject[]), 'INVALID_REQUEST');
    tt.notMatch(r.text, 'attacker.example', `${path}: nothing names the attacker's host`);
    tt.equal(r.json.signatures, undefined, `${path}: nothing signed`);
  }
  const port = await card(gw, '/bound/.well-known/agent-card.json', { host: 'agents.example:6666' });
  tt.equal(port.status, 400, 'a match.hosts name on a port the gateway does not listen on: refused');
  const root = await card(gw, '/.well-known/agent-card.json', { host: 'agents.example:6666' });
  tt.equal(root.status, 400, "at the host's root too");
  const v03 = await card(gw, '/bound/.well-known/agent-card.json', {
    host: 'agents.example:6666',
    'a2a-version': '0.3',
  });
  tt.equal(v03.status, 200, 'the 0.3 shape (never signed) is served as before');
  tt.equal(v03.json.signatures, undefined, 'unsigned');
  const forged = await card(proxied, '/open/.well-known/agent-card.json', { host: ATTACKER });
  tt.equal(forged.status, 400, 'with trusted proxies, a bare Host is not vouched for either');
});

t.test('GetExtendedAgentCard with a Host the operator did not configure: refused', async (tt) => {
  for (const inbound of BINDINGS.filter((b) => b !== 'GRPC')) {
    const r = await CALLERS[inbound](
      gw,
      'GetExtendedAgentCard',
      {},
      { tenant: 'open', prefix: '/open', headers: { host: ATTACKER } },
    );
    tt.equal(r.ok, false, `${inbound}: refused`);
    tt.equal(reason(r.details), 'INVALID_REQUEST', `${inbound}: INVALID_REQUEST`);
    tt.notMatch(
      JSON.stringify(r.result ?? r.raw ?? {}),
      'attacker.example',
      `${inbound}: nothing names the attacker's host`,
    );
  }
  const md = new grpc.Metadata();
  md.set('a2a-version', '1.0');
  const status = await grpcStatusOf(
    attackerGrpc,
    '/lf.a2a.v1.A2AService/GetExtendedAgentCard',
    requestBytes('GetExtendedAgentCard', { tenant: 'open' }),
    false,
    md,
  );
  tt.equal(status.code, GRPC_CODES.INVALID_ARGUMENT, 'GRPC: an :authority the operator did not configure, refused');
});

t.test('configured and vouched-for addresses still get a signed card that verifies', async (tt) => {
  const cases: Array<[string, RunningGateway, string, Record<string, string>, string]> = [
    ['the listen address', gw, '/open/.well-known/agent-card.json', {}, `${gw.httpUrl}/open`],
    [
      'a match.hosts name',
      gw,
      '/bound/.well-known/agent-card.json',
      { host: 'agents.example' },
      'http://agents.example/bound',
    ],
    [
      'a match.hosts name at its root',
      gw,
      '/.well-known/agent-card.json',
      { host: 'agents.example' },
      'http://agents.example/bound',
    ],
    [
      "the route's public URLs, whatever the Host",
      gw,
      '/pub/.well-known/agent-card.json',
      { host: ATTACKER },
      'https://pub.example/a2a',
    ],
    [
      "the gateway's public URLs, whatever the Host",
      fronted,
      '/open/.well-known/agent-card.json',
      { host: ATTACKER },
      'https://gw.example/open',
    ],
    [
      'a trusted proxy’s forwarded host',
      proxied,
      '/open/.well-known/agent-card.json',
      { host: ATTACKER, 'x-forwarded-host': 'edge.example' },
      'http://edge.example/open',
    ],
  ];
  for (const [what, g, path, headers, http] of cases) {
    const r = await card(g, path, headers);
    tt.equal(r.status, 200, `${what}: served`);
    tt.ok(urls(r.json).includes(http), `${what}: names ${http}`);
    tt.notMatch(r.text, 'attacker.example', `${what}: never the Host's`);
    tt.equal((r.json.signatures as JsonObject[] | undefined)?.length, 1, `${what}: signed`);
    await tt.resolves(verify(r.json as unknown as AgentCard), `${what}: the signature verifies`);
  }
  const ext = await CALLERS.JSONRPC(gw, 'GetExtendedAgentCard', {}, { tenant: 'open', prefix: '/open' });
  tt.equal(ext.ok, true, 'the extended card at the listen address');
  tt.ok(urls(ext.result).includes(`${gw.httpUrl}/open`), "with the gateway's interfaces");
  await tt.resolves(verify(ext.result as unknown as AgentCard), 'signed, and the signature verifies');
});
