// Issue 13, a 0.3 agent: the official @a2a-js/sdk 1.3.0 client → gateway →
// a @a2a-js/sdk 0.3.14 agent (test/helpers/echo-agent-v03.ts), each caller
// binding against each way of reaching the agent: `upstream.binding: auto`
// reading the agent's 0.3 card (three agents whose cards prefer JSON-RPC,
// HTTP+JSON and gRPC: the gateway takes the card's first interface) and each
// binding configured with `upstream.version: '0.3'`. Every scenario of
// test/helpers/bridge-v1-scenarios.ts (every method both versions have,
// streaming, cancel, errors, extensions, the extended card, ListTasks →
// UnsupportedOperation), the card the client read, and — on a route 0.3
// callers may reach, whose card lists 0.3 interfaces beside the 1.0 ones —
// that the 1.3.0 client still takes a 1.0 one.
import t from 'tap';
import { pino } from 'pino';
import type { Binding } from '../../src/config/types.js';
import { startGateway } from '../../src/server/gateway.js';
import { V1_EXTENSION, V1_SCENARIOS } from '../helpers/bridge-v1-scenarios.js';
import { startEchoAgentV03, type RunningV03Agent, type V03Binding } from '../helpers/echo-agent-v03.js';
import { BINDINGS, gatewayConfig, slug } from '../helpers/harness.js';
import { sdkClient, sdkMessage } from '../helpers/sdk.js';

const start = (bindings: V03Binding[]) => startEchoAgentV03({ bindings, extensions: [V1_EXTENSION] });
/** By the binding its card prefers. */
const agents = new Map<Binding, RunningV03Agent>([
  ['JSONRPC', await start(['JSONRPC', 'HTTP+JSON', 'GRPC'])],
  ['HTTP+JSON', await start(['HTTP+JSON', 'GRPC', 'JSONRPC'])],
  ['GRPC', await start(['GRPC', 'JSONRPC'])],
]);
const main = agents.get('JSONRPC')!;

interface Way {
  name: string;
  agent: RunningV03Agent;
  /** The binding the gateway should call the agent over. */
  upstream: Binding;
}
const ways: Way[] = [
  ...BINDINGS.map((b) => ({ name: `auto-${slug(b)}`, agent: agents.get(b)!, upstream: b })),
  ...BINDINGS.map((b) => ({ name: `v03-${slug(b)}`, agent: main, upstream: b })),
];
const routes = ways.map((w) => ({
  name: w.name,
  match: { pathPrefix: `/${w.name}`, tenant: w.name },
  upstream: w.name.startsWith('auto')
    ? { url: w.agent.httpUrl, binding: 'auto' as const }
    : { url: main.urlFor(w.upstream), binding: w.upstream, version: '0.3' as const },
  ...(w.upstream === 'GRPC' && !w.name.startsWith('auto') ? { card: { url: main.cardUrl } } : {}),
}));
// a route 0.3 callers reach too (no tenant): its card lists 0.3 interfaces beside the 1.0 ones
routes.push({
  name: 'open',
  match: { pathPrefix: '/open' } as { pathPrefix: string; tenant: string },
  upstream: { url: main.httpUrl, binding: 'auto' as const },
});
const gw = await startGateway(gatewayConfig(routes), pino({ level: 'silent' }));
t.teardown(async () => {
  await gw.close();
  await Promise.all([...agents.values()].map((a) => a.close()));
});

for (const way of ways) {
  for (const inbound of BINDINGS) {
    t.test(`1.3.0 ${inbound} client → gateway → 0.3.14 agent (${way.name}: ${way.upstream})`, async (tt) => {
      const client = await sdkClient(inbound, `${gw.httpUrl}/${way.name}/.well-known/agent-card.json`);
      tt.equal(client.transport.protocolName.toUpperCase(), inbound, 'the client chose the binding under test');
      const lastCall = () => way.agent.lastCall();
      for (const s of V1_SCENARIOS) {
        await tt.test(s.name, async (st) => {
          await s.run(st, { client, upstream: way.upstream, lastCall });
          st.equal(lastCall()?.binding, way.upstream, `the agent was called over ${way.upstream}`);
        });
      }
    });
  }
}

t.test('the card a 1.x caller reads: 1.0 interfaces of the gateway, the 0.3 agent’s description', async (tt) => {
  const res = await fetch(`${gw.httpUrl}/auto-jsonrpc/.well-known/agent-card.json`, {
    headers: { 'a2a-version': '1.0' },
  });
  const card = (await res.json()) as Record<string, any>;
  tt.equal(card.name, 'Echo Agent 0.3');
  tt.ok(card.capabilities.extendedAgentCard, 'supportsAuthenticatedExtendedCard → capabilities.extendedAgentCard');
  tt.same(
    card.supportedInterfaces.map((i: any) => [i.protocolBinding, i.protocolVersion, i.tenant]),
    BINDINGS.map((b) => [b, '1.0', 'auto-jsonrpc']),
    'one 1.0 interface per binding, with the tenant (a tenant route has no 0.3 callers)',
  );
  for (const k of ['url', 'preferredTransport', 'additionalInterfaces', 'protocolVersion'])
    tt.notOk(k in card, `no 0.3 ${k}`);
});

t.test('a route 0.3 callers reach lists 0.3 interfaces too; the 1.3.0 client takes a 1.0 one', async (tt) => {
  const res = await fetch(`${gw.httpUrl}/open/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } });
  const card = (await res.json()) as Record<string, any>;
  const http = ['JSONRPC', 'HTTP+JSON'];
  tt.same(
    card.supportedInterfaces.filter((i: any) => http.includes(i.protocolBinding)).map((i: any) => i.protocolVersion),
    ['1.0', '1.0', '0.3', '0.3'],
  );
  for (const inbound of http as Binding[]) {
    const client = await sdkClient(inbound, `${gw.httpUrl}/open/.well-known/agent-card.json`);
    const r = await client.sendMessage({
      tenant: '',
      message: sdkMessage('open'),
      configuration: undefined,
      metadata: undefined,
    });
    tt.ok('status' in r, `${inbound}: a Task`);
    tt.equal(main.lastCall()?.text, 'open');
  }
});
