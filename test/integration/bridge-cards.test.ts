// Issue 13, cards: no card the gateway serves — public or extended, to a 0.3
// or a 1.x caller, on any route shape (root, path prefix, tenant, host,
// pass-through, 1.0-only), from a 1.0 or a 0.3 upstream card, or one that names
// other hosts — contains an upstream address in any field: every string of
// every card is walked. Beside it, the shapes (bridge §2): a caller without
// A2A-Version (or 0.3) gets the 0.3 card naming the gateway with the 1.0
// interfaces embedded, a 1.x caller the 1.0 card listing the gateway's 0.3
// interfaces too, both with Vary: A2A-Version, and /.well-known/agent.json is
// the same card.
import * as grpc from '@grpc/grpc-js';
import { fromBinary, toJson } from '@bufbuild/protobuf';
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { AgentCardSchema as AgentCardV03 } from '../../src/gen/a2a/v1/a2a_pb.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { cardServer } from '../helpers/card-server.js';
import { requestBytes, responseJson } from '../helpers/codec.js';
import { startEchoAgentV03 } from '../helpers/echo-agent-v03.js';
import { BINDINGS, gatewayConfig } from '../helpers/harness.js';

const v1 = await startEchoAgent({ bindings: BINDINGS, extendedAgentCard: true });
const v03 = await startEchoAgentV03({ bindings: ['GRPC', 'JSONRPC', 'HTTP+JSON'] });
const elsewhere = ['10.9.8.7:1234', 'agent.internal', 'other.example.net'];
const otherV1 = await cardServer({
  ...(v1.card as unknown as JsonObject),
  supportedInterfaces: [
    { url: 'http://10.9.8.7:1234/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'agent.internal:443', protocolBinding: 'GRPC', protocolVersion: '1.0' },
    { url: 'https://other.example.net/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
  ],
  url: 'http://10.9.8.7:1234/legacy',
  additionalInterfaces: [{ url: 'agent.internal:443', transport: 'GRPC' }],
});
const otherV03 = await cardServer({
  ...(v03.card as unknown as JsonObject),
  url: 'https://other.example.net/a2a',
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [
    { url: 'https://other.example.net/a2a', transport: 'JSONRPC' },
    { url: 'agent.internal:443', transport: 'GRPC' },
    { url: 'http://10.9.8.7:1234/rest', transport: 'HTTP+JSON' },
  ],
});
const hostPort = (u: string) => u.replace(/^[a-z]+:\/\//, '').replace(/\/.*$/, '');
const upstreamAddresses = [
  ...[v1.httpUrl, v1.grpcAddress, v03.httpUrl, v03.urlFor('GRPC'), otherV1.url, otherV03.url].map(hostPort),
  ...elsewhere,
];

interface Shape {
  name: string;
  prefix: string;
  tenant?: string;
  host?: string;
  /** The upstream card's name. */
  agent: string;
  /** Has an extended card behind it (an SDK agent). */
  extended: boolean;
  v03: boolean;
}
const shapes: Shape[] = [
  { name: 'root-v1-auto', agent: 'Echo Agent', prefix: '', extended: true, v03: true },
  { name: 'prefix-v03-auto', agent: 'Echo Agent 0.3', prefix: '/v03', extended: true, v03: true },
  { name: 'tenant-v1-rest', agent: 'Echo Agent', prefix: '/tenant', tenant: 't1', extended: true, v03: false },
  { name: 'host-v03-grpc', agent: 'Echo Agent 0.3', prefix: '/host', host: 'cards.example', extended: true, v03: true },
  { name: 'pt-v1-jsonrpc', agent: 'Echo Agent', prefix: '/pt', extended: true, v03: true },
  { name: 'pt-v03-jsonrpc', agent: 'Echo Agent 0.3', prefix: '/pt03', extended: true, v03: true },
  { name: 'v1only-v03', agent: 'Echo Agent 0.3', prefix: '/v1only', extended: true, v03: false },
  { name: 'other-v1', agent: 'Echo Agent', prefix: '/other-v1', extended: false, v03: true },
  { name: 'other-v03', agent: 'Echo Agent 0.3', prefix: '/other-v03', extended: false, v03: true },
];
const gw = await startGateway(
  gatewayConfig([
    { name: 'root-v1-auto', upstream: { url: v1.httpUrl, binding: 'auto' } },
    { name: 'prefix-v03-auto', match: { pathPrefix: '/v03' }, upstream: { url: v03.httpUrl, binding: 'auto' } },
    {
      name: 'tenant-v1-rest',
      match: { pathPrefix: '/tenant', tenant: 't1' },
      upstream: { url: v1.restUrl, binding: 'HTTP+JSON', tenant: 'clear' },
    },
    {
      name: 'host-v03-grpc',
      match: { pathPrefix: '/host', hosts: ['cards.example'] },
      upstream: { url: v03.urlFor('GRPC'), binding: 'GRPC', version: '0.3' },
      card: { url: v03.cardUrl },
    },
    {
      name: 'pt-v1-jsonrpc',
      match: { pathPrefix: '/pt' },
      upstream: { url: v1.jsonRpcUrl, binding: 'JSONRPC' },
      passThrough: true,
    },
    {
      name: 'pt-v03-jsonrpc',
      match: { pathPrefix: '/pt03' },
      upstream: { url: v03.urlFor('JSONRPC'), binding: 'JSONRPC', version: '0.3' },
      passThrough: true,
    },
    {
      name: 'v1only-v03',
      match: { pathPrefix: '/v1only' },
      upstream: { url: v03.httpUrl, binding: 'auto' },
      versions: ['1.0'],
    },
    {
      name: 'other-v1',
      match: { pathPrefix: '/other-v1' },
      upstream: { url: `${otherV1.url}/a2a`, binding: 'JSONRPC' },
    },
    { name: 'other-v03', match: { pathPrefix: '/other-v03' }, upstream: { url: otherV03.url, binding: 'auto' } },
  ]),
  pino({ level: 'silent' }),
);
const grpcAuthorities = new Map<string, grpc.Client>();
t.teardown(async () => {
  for (const c of grpcAuthorities.values()) c.close();
  await gw.close();
  await Promise.all([v1.close(), v03.close(), otherV1.close(), otherV03.close()]);
});

/** Every string in a JSON value (keys too). */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)]);
  return [];
}

function noUpstream(tt: Test, what: string, card: unknown, raw?: string): void {
  const all = strings(card);
  tt.ok(all.length > 10, `${what}: a card came back`);
  const leaks = upstreamAddresses.filter((a) => all.some((s) => s.includes(a)) || raw?.includes(a));
  tt.same(leaks, [], `${what}: no upstream address in any field`);
}

const hostHeader = (s: Shape): Record<string, string> => (s.host ? { host: s.host } : {});
const base = (s: Shape) => (s.host ? '' : s.prefix);

async function get(path: string, headers: Record<string, string>) {
  const res = await request(`${gw.httpUrl}${path}`, { headers });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: JSON.parse(text) as JsonObject };
}

async function rpc(s: Shape, method: string, version?: string) {
  const params = s.tenant ? { tenant: s.tenant } : {};
  const res = await request(`${gw.httpUrl}${s.prefix}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(version ? { 'a2a-version': version } : {}), ...hostHeader(s) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.body.text();
  return { text, json: JSON.parse(text) as JsonObject };
}

function grpcCall(s: Shape, path: string, body: Buffer, md: Record<string, string>): Promise<Buffer> {
  const key = s.host ?? '';
  let client = grpcAuthorities.get(key);
  if (!client) {
    const opts = s.host ? { 'grpc.default_authority': s.host } : {};
    client = new grpc.Client(gw.grpcAddress, grpc.credentials.createInsecure(), opts);
    grpcAuthorities.set(key, client);
  }
  const metadata = new grpc.Metadata();
  for (const [k, v] of Object.entries(md)) metadata.set(k, v);
  return new Promise((resolve, reject) =>
    client!.makeUnaryRequest(
      path,
      (b: Buffer) => b,
      (b: Buffer) => b,
      body,
      metadata,
      (err, v) => (err ? reject(err) : resolve(v!)),
    ),
  );
}

for (const s of shapes) {
  t.test(`served cards of ${s.name}`, async (tt) => {
    for (const path of ['/.well-known/agent-card.json', '/.well-known/agent.json']) {
      for (const version of [undefined, '0.3', '1.0']) {
        const res = await get(`${base(s)}${path}`, {
          ...hostHeader(s),
          ...(version ? { 'a2a-version': version } : {}),
        });
        const what = `${path}, A2A-Version ${version ?? 'absent'}`;
        tt.equal(res.status, 200, `${what}: 200`);
        tt.equal(res.json.name, s.agent, `${what}: the route's card`);
        tt.match(res.headers.vary, /A2A-Version/i, `${what}: Vary: A2A-Version`);
        noUpstream(tt, what, res.json, res.text);
        const ifaces = (res.json.supportedInterfaces ?? []) as JsonObject[];
        const ours = (u: unknown) =>
          typeof u === 'string' && (u.startsWith(`http://`) ? u.includes(hostPort(gw.httpUrl)) || !!s.host : true);
        tt.ok(ifaces.length > 0 && ifaces.every((i) => ours(i.url)), `${what}: every interface is the gateway`);
        const legacy = ifaces.filter((i) => i.protocolVersion === '0.3');
        tt.equal(
          legacy.length > 0,
          s.v03,
          `${what}: 0.3 interfaces listed ${s.v03 ? '' : 'not '}(0.3 callers ${s.v03 ? '' : 'can'}not reach it)`,
        );
        if (version === '1.0' || !s.v03) {
          tt.notOk('url' in res.json, `${what}: the 1.0 shape`);
        } else {
          tt.equal(res.json.protocolVersion, '0.3.0', `${what}: the 0.3 shape`);
          tt.ok(ours(res.json.url), `${what}: url is the gateway`);
          tt.ok(
            ifaces.some((i) => i.protocolVersion === '1.0'),
            `${what}: 1.0 interfaces embedded`,
          );
        }
      }
    }
  });
  if (s.name === 'root-v1-auto') {
    t.test('the version may come as the A2A-Version query parameter', async (tt) => {
      const one = await get('/.well-known/agent-card.json?A2A-Version=1.0', {});
      tt.notOk('url' in one.json, '?A2A-Version=1.0: the 1.0 shape');
      const old = await get('/.well-known/agent-card.json?A2A-Version=0.3', {});
      tt.equal(old.json.protocolVersion, '0.3.0', '?A2A-Version=0.3: the 0.3 shape');
      // §3.2.6: service parameter names are case-insensitive
      const lower = await get('/.well-known/agent-card.json?a2a-version=1.0', {});
      tt.notOk('url' in lower.json, '?a2a-version=1.0: the 1.0 shape too');
      const exact = await get('/.well-known/agent-card.json?a2a-version=1.0&A2A-Version=0.3', {});
      tt.equal(exact.json.protocolVersion, '0.3.0', 'the exact spelling wins over another one');
    });
  }
  if (!s.extended) continue;
  t.test(`extended cards of ${s.name}`, async (tt) => {
    const one = await rpc(s, 'GetExtendedAgentCard', '1.0');
    tt.match(one.json.result, { name: /extended/ }, 'JSON-RPC 1.0');
    noUpstream(tt, 'JSON-RPC 1.0', one.json.result, one.text);
    const rest1 = await get(`${s.prefix}${s.tenant ? `/${s.tenant}` : ''}/extendedAgentCard`, {
      'a2a-version': '1.0',
      ...hostHeader(s),
    });
    if (!s.name.startsWith('pt')) {
      tt.match(rest1.json, { name: /extended/ }, 'REST 1.0');
      noUpstream(tt, 'REST 1.0', rest1.json, rest1.text);
    }
    if (!s.v03) return;
    const old = await rpc(s, 'agent/getAuthenticatedExtendedCard');
    tt.match(old.json.result, { name: /extended/, protocolVersion: '0.3.0' }, 'JSON-RPC 0.3');
    noUpstream(tt, 'JSON-RPC 0.3', old.json.result, old.text);
    if (!s.name.startsWith('pt')) {
      const rest03 = await get(`${s.prefix}/v1/card`, hostHeader(s));
      tt.match(rest03.json, { name: /extended/ }, 'REST 0.3');
      noUpstream(tt, 'REST 0.3', rest03.json, rest03.text);
    }
  });
}

t.test('extended cards over gRPC, 0.3 and 1.0, on the root and a host route', async (tt) => {
  for (const s of shapes.filter((x) => x.name === 'root-v1-auto' || x.host)) {
    const bytes = await grpcCall(
      s,
      '/lf.a2a.v1.A2AService/GetExtendedAgentCard',
      requestBytes('GetExtendedAgentCard', {}),
      {
        'a2a-version': '1.0',
      },
    );
    const card1 = responseJson('GetExtendedAgentCard', bytes);
    tt.match(card1, { name: /extended/ }, `${s.name}: gRPC 1.0`);
    noUpstream(tt, `${s.name}: gRPC 1.0`, card1, bytes.toString('latin1'));
    const old = await grpcCall(s, '/a2a.v1.A2AService/GetAgentCard', Buffer.alloc(0), {});
    const card03 = toJson(AgentCardV03, fromBinary(AgentCardV03, old)) as JsonObject;
    tt.match(card03, { name: /extended/, protocolVersion: '0.3.0' }, `${s.name}: gRPC 0.3`);
    noUpstream(tt, `${s.name}: gRPC 0.3`, card03, old.toString('latin1'));
  }
});
