// Issue 13, a 0.3 caller: the official @a2a-js/sdk 0.3.14 client → gateway →
// a 1.3.0 agent (no 0.3 layer of its own), for each of the three bindings on
// both sides. Each upstream binding has its own gateway with a root route (a
// 0.3 gRPC caller addresses no tenant and no path: it reaches a root or host
// route), whose served card prefers that binding; the client chooses its
// transport from that card, then is held to each. Every scenario of the shared
// list (test/helpers/bridge-scenarios.ts: every method both versions have,
// streaming, cancel, errors, extensions, the extended card), and what only the
// gateway does: the agent gets 1.0 (A2A-Version: 1.0, A2A-Extensions), the
// cards name only the gateway, an A2A-Version the 0.3 wire form does not
// speak is VersionNotSupported in the caller's binding, an explicit 0.3 is.
import t from 'tap';
import { pino } from 'pino';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import type { Binding } from '../../src/config/types.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import { BRIDGE_EXTENSION, V03_SCENARIOS } from '../helpers/bridge-scenarios.js';
import { BINDINGS, gatewayConfig } from '../helpers/harness.js';
import { transportOf, v03Client, v03Message, V03_TRANSPORTS, type V03Transport } from '../helpers/sdk-v03.js';

const agent = await startEchoAgent({
  bindings: BINDINGS,
  pushNotifications: true,
  extendedAgentCard: true,
  extensions: [{ uri: BRIDGE_EXTENSION, required: false }],
});
const gateways = new Map<Binding, RunningGateway>();
for (const up of BINDINGS) {
  const route = {
    name: `to-${up}`,
    match: { pathPrefix: '' },
    upstream: { url: agent.urlFor(up), binding: up },
    // the served card lists the upstream's binding first: the 0.3 client's choice
    card: {
      bindings: [up, ...BINDINGS.filter((b) => b !== up)],
      ...(up === 'GRPC' ? { url: `${agent.httpUrl}/.well-known/agent-card.json` } : {}),
    },
  };
  gateways.set(up, await startGateway(gatewayConfig([route]), pino({ level: 'silent' })));
}
t.teardown(async () => {
  for (const gw of gateways.values()) await gw.close();
  await agent.close();
});

const agentAddresses = [agent.httpUrl.replace(/^http:\/\//, ''), agent.grpcAddress];

for (const up of BINDINGS) {
  const gw = gateways.get(up)!;
  const cardUrl = `${gw.httpUrl}/.well-known/agent-card.json`;
  for (const mode of [undefined, ...V03_TRANSPORTS] as Array<V03Transport | undefined>) {
    t.test(`0.3.14 ${mode ?? 'card-chosen'} client → gateway → 1.3.0 ${up} agent`, async (tt) => {
      const client = await v03Client(cardUrl, mode);
      const used = transportOf(client)!;
      tt.equal(used, mode ?? up, mode ? `held to ${mode}` : `the card's preferred transport (${up})`);

      for (const s of V03_SCENARIOS) {
        await tt.test(s.name, (st) =>
          s.run(st, { client, transport: used, seenExtensions: () => agent.lastCall()?.extensions }),
        );
      }

      await tt.test('the agent is spoken to in 1.0', async (st) => {
        await client.sendMessage(
          { message: v03Message('as 1.0') },
          { serviceParameters: { 'X-A2A-Extensions': BRIDGE_EXTENSION } },
        );
        const seen = agent.lastCall()!;
        st.equal(seen.text, 'as 1.0');
        st.equal(seen.version, '1.0', 'A2A-Version: 1.0 upstream');
        st.equal(seen.headers['a2a-extensions'], BRIDGE_EXTENSION, 'X-A2A-Extensions went on as A2A-Extensions');
        st.notOk('x-a2a-extensions' in seen.headers, 'not as X-A2A-Extensions');
      });

      await tt.test('the extended card names only the gateway', async (st) => {
        const card = await client.getAgentCard();
        const text = JSON.stringify(card);
        for (const a of agentAddresses) st.notOk(text.includes(a), `no ${a} in it`);
        const urls = [card.url, ...(card.additionalInterfaces ?? []).map((i) => i.url)];
        st.ok(
          urls.every((u) => u.startsWith(gw.httpUrl) || u === gw.grpcAddress),
          'every interface is the gateway',
        );
      });

      await tt.test('A2A-Version the 0.3 wire form does not speak: VersionNotSupported', async (st) => {
        // on REST a `/v1/...` path is 0.3 only without A2A-Version (or 0.x): with 1.0, `v1` is a tenant (bridge §1)
        for (const version of used === 'HTTP+JSON' ? ['2.0'] : ['2.0', '1.0']) {
          const err = await client.getTask({ id: 'x' }, { serviceParameters: { 'A2A-Version': version } }).then(
            () => undefined,
            (e: Error) => e,
          );
          st.match(err?.message, `version ${version} is not supported`, `A2A-Version ${version} refused`);
          if (used === 'JSONRPC') st.match(err?.message, '(Code: -32009)', 'JSON-RPC code -32009');
          if (used === 'GRPC') st.match(err?.message, /! 9 /, 'gRPC FAILED_PRECONDITION');
          // a version neither 0.x nor 1.x: the REST answer is 1.0's (no 0.3 caller sends one)
          if (used === 'HTTP+JSON') st.match(err?.message, /Status: 400 .*VERSION_NOT_SUPPORTED/, 'HTTP 400');
        }
        const ok = await client.sendMessage(
          { message: v03Message('explicit 0.3') },
          { serviceParameters: { 'A2A-Version': '0.3' } },
        );
        st.equal(ok.kind, 'task', 'A2A-Version: 0.3 is 0.3');
      });

      await tt.test('the gateway keeps serving after errors', async (st) => {
        const task = await client.sendMessage({ message: v03Message('still here') });
        st.equal(task.kind, 'task');
      });
    });
  }
}
