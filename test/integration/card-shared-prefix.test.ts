// Cards where routes share a path prefix (docs/cards.md, "The served card";
// spec §8.2): a default route and a route bound to tenant "acme" at "/" —
// the prefix's well-known card is the default route's, whatever the config
// order or the specificity a tenant adds, and acme's card is at
// /acme/.well-known/agent-card.json (agent.json too, the tenant in any case),
// with acme's CORS headers and preflight; a tenant no route is bound to names
// no card, and acme's REST calls still reach acme. Routes bound to one host
// do the same at that host's root. Real SDK agents, real HTTP.
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { callRest, gatewayConfig, userMessage } from '../helpers/harness.js';

const PUBLIC_APP = 'https://public.example';
const ACME_APP = 'https://acme.example';
const publicAgent = await startEchoAgent({ bindings: ['JSONRPC', 'HTTP+JSON'], name: 'Public Agent' });
const acmeAgent = await startEchoAgent({ bindings: ['JSONRPC', 'HTTP+JSON'], name: 'ACME Payroll' });
const toPublic = { url: publicAgent.jsonRpcUrl, binding: 'JSONRPC' as const };
const toAcme = { url: acmeAgent.restUrl, binding: 'HTTP+JSON' as const, tenant: 'clear' as const };
const routes = [
  // the tenant route first in the config too: neither order nor specificity makes it the prefix's card
  { name: 'acme', match: { tenant: 'acme' }, upstream: toAcme, cors: { allowOrigins: [ACME_APP] } },
  { name: 'default', upstream: toPublic, cors: { allowOrigins: [PUBLIC_APP] } },
  {
    name: 'host-tenant',
    match: { hosts: ['cards.example'], tenant: 'x' },
    upstream: toAcme,
    card: { overrides: { name: 'Host Tenant' } },
  },
  {
    name: 'host-default',
    match: { hosts: ['cards.example'] },
    upstream: toPublic,
    card: { overrides: { name: 'Host' } },
  },
];
const gw = await startGateway(gatewayConfig(routes), pino({ level: 'silent' }));
t.teardown(async () => {
  await gw.close();
  await publicAgent.close();
  await acmeAgent.close();
});

interface Seen {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  card: JsonObject | undefined;
}

async function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Seen> {
  const res = await request(`${gw.httpUrl}${path}`, {
    method: method as 'GET',
    headers: { 'a2a-version': '1.0', ...headers },
  });
  const text = await res.body.text();
  const card = res.statusCode === 200 ? (JSON.parse(text) as JsonObject) : undefined;
  return { status: res.statusCode, headers: res.headers, card };
}
const tenants = (card: JsonObject | undefined): unknown[] =>
  ((card?.supportedInterfaces ?? []) as JsonObject[]).map((i) => i.tenant);

t.test("the prefix's card is the default route's, never the tenant route's", async (tt) => {
  for (const path of ['/.well-known/agent-card.json', '/.well-known/agent.json']) {
    const seen = await get(path);
    tt.equal(seen.status, 200, `${path}: served`);
    tt.equal(seen.card?.name, 'Public Agent', `${path}: the default route's card`);
    tt.same([...new Set(tenants(seen.card))], [undefined], `${path}: its interfaces name no tenant`);
  }
});

t.test("a tenant route's card is at {prefix}/{tenant}/.well-known/agent-card.json", async (tt) => {
  for (const path of [
    '/acme/.well-known/agent-card.json',
    '/acme/.well-known/agent.json',
    '/ACME/.well-known/agent-card.json',
  ]) {
    const seen = await get(path);
    tt.equal(seen.status, 200, `${path}: served`);
    tt.equal(seen.card?.name, 'ACME Payroll', `${path}: acme's card`);
    tt.same([...new Set(tenants(seen.card))], ['acme'], `${path}: its interfaces name tenant acme`);
    tt.equal(seen.headers['cache-control'], 'public, max-age=300', `${path}: cached as the prefix's card is`);
  }
  const nobody = await get('/nobody/.well-known/agent-card.json');
  tt.not(nobody.status, 200, 'a tenant no route is bound to names no card');
  tt.equal(nobody.card, undefined);
});

t.test("the tenant's REST calls still reach the tenant route", async (tt) => {
  const sent = await callRest(gw, 'SendMessage', { message: userMessage('hi') }, { tenant: 'acme', prefix: '' });
  tt.ok(sent.ok, `SendMessage /acme/message:send: ${JSON.stringify(sent.raw)}`);
  tt.equal(acmeAgent.lastCall()?.text, 'hi', "acme's agent got it");
});

t.test("each card answers with its own route's CORS headers", async (tt) => {
  const pub = await get('/.well-known/agent-card.json', { origin: PUBLIC_APP });
  tt.equal(pub.headers['access-control-allow-origin'], PUBLIC_APP, "the prefix's card: the default route's origin");
  const pubByAcme = await get('/.well-known/agent-card.json', { origin: ACME_APP });
  tt.notOk(pubByAcme.headers['access-control-allow-origin'], "not acme's origin");
  const acme = await get('/acme/.well-known/agent-card.json', { origin: ACME_APP });
  tt.equal(acme.headers['access-control-allow-origin'], ACME_APP, "acme's card: acme's origin");
  const acmeByPublic = await get('/acme/.well-known/agent-card.json', { origin: PUBLIC_APP });
  tt.notOk(acmeByPublic.headers['access-control-allow-origin'], "not the default route's");

  const preflight = (path: string, origin: string) =>
    get(path, { origin, 'access-control-request-method': 'GET' }, 'OPTIONS');
  const pfAcme = await preflight('/acme/.well-known/agent-card.json', ACME_APP);
  tt.equal(pfAcme.status, 204, "a preflight for acme's card from acme's origin: allowed");
  tt.equal(pfAcme.headers['access-control-allow-origin'], ACME_APP);
  tt.not((await preflight('/acme/.well-known/agent-card.json', PUBLIC_APP)).status, 204, 'from the other: refused');
  const pfPublic = await preflight('/.well-known/agent-card.json', PUBLIC_APP);
  tt.equal(pfPublic.status, 204, "a preflight for the prefix's card from the default route's origin: allowed");
  tt.not((await preflight('/.well-known/agent-card.json', ACME_APP)).status, 204, "from acme's: refused");
});

t.test("at a host's root, the host's route bound to no tenant", async (tt) => {
  const seen = await get('/.well-known/agent-card.json', { host: 'cards.example' });
  tt.equal(seen.card?.name, 'Host', "the host's default route's card");
  const tenant = await get('/x/.well-known/agent-card.json', { host: 'cards.example' });
  tt.equal(tenant.card?.name, 'Host Tenant', "the host's tenant route's card at /x/…");
});
