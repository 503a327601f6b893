// Issue 13, 0.3 on both sides: the official 0.3.14 client → gateway → a
// 0.3.14 agent. Translated (every binding pair: the call goes through the 1.0
// envelope and out again in the agent's 0.3 dialect, `upstream.version:
// '0.3'`), the shared scenario list passes, and the agent gets 0.3's service
// parameters (A2A-Version absent or 0.3, X-A2A-Extensions). Pass-through
// (same binding, same version) relays the calls as they came and passes the
// list too — except where 0.3.14's own REST client and server disagree (the
// push-config body): there the caller gets what the agent answers directly,
// which the translated route does not suffer (it reads both bodies and sends
// the one 0.3.14's server reads).
import t from 'tap';
import { pino } from 'pino';
import type { Binding } from '../../src/config/types.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import { BRIDGE_EXTENSION, V03_SCENARIOS } from '../helpers/bridge-scenarios.js';
import { startEchoAgentV03 } from '../helpers/echo-agent-v03.js';
import { BINDINGS, gatewayConfig } from '../helpers/harness.js';
import { transportOf, v03Client, v03Message, V03_TRANSPORTS } from '../helpers/sdk-v03.js';

const agent = await startEchoAgentV03({ bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'], extensions: [BRIDGE_EXTENSION] });
const gateways: Array<{ up: Binding; passThrough: boolean; gw: RunningGateway }> = [];
for (const passThrough of [false, true]) {
  for (const up of BINDINGS) {
    const route = {
      name: `v03-${up}`,
      upstream: { url: agent.urlFor(up), binding: up, version: '0.3' as const },
      card: { url: agent.cardUrl },
      passThrough,
    };
    gateways.push({ up, passThrough, gw: await startGateway(gatewayConfig([route]), pino({ level: 'silent' })) });
  }
}
t.teardown(async () => {
  for (const { gw } of gateways) await gw.close();
  await agent.close();
});

const PUSH = V03_SCENARIOS.find((s) => s.name.startsWith('tasks/pushNotificationConfig'))!;

for (const { up, passThrough, gw } of gateways) {
  const transports = passThrough ? [up] : V03_TRANSPORTS;
  for (const transport of transports) {
    const how = passThrough ? 'pass-through' : 'translated';
    t.test(`0.3.14 ${transport} client → gateway (${how}) → 0.3.14 ${up} agent`, async (tt) => {
      const client = await v03Client(`${gw.httpUrl}/.well-known/agent-card.json`, transport);
      tt.equal(transportOf(client), transport);
      const seenExtensions = () => agent.lastCall()?.extensions;
      for (const s of V03_SCENARIOS) {
        if (passThrough && up === 'HTTP+JSON' && s === PUSH) continue; // below
        await tt.test(s.name, (st) => s.run(st, { client, transport, seenExtensions }));
      }
      await tt.test('the agent gets 0.3 service parameters', async (st) => {
        const serviceParameters = { 'X-A2A-Extensions': BRIDGE_EXTENSION };
        await client.sendMessage({ message: v03Message('as 0.3') }, { serviceParameters });
        const seen = agent.lastCall()!;
        st.equal(seen.binding, up, `over ${up}`);
        st.ok(['', '0.3'].includes(seen.version), `A2A-Version absent or 0.3 (${seen.version || 'absent'})`);
        st.equal(seen.headers['x-a2a-extensions'], BRIDGE_EXTENSION, 'X-A2A-Extensions');
      });
    });
  }
}

t.test(
  'pass-through REST: the push-config body 0.3.14 client and server disagree on, as the agent answers it',
  async (tt) => {
    const { gw } = gateways.find((g) => g.passThrough && g.up === 'HTTP+JSON')!;
    const set = async (cardUrl: string) => {
      const client = await v03Client(cardUrl, 'HTTP+JSON');
      const task = await client.sendMessage({ message: v03Message('push') });
      const config = { taskId: (task as { id: string }).id, pushNotificationConfig: { url: 'https://example.com/h' } };
      return client.setTaskPushNotificationConfig(config).then(
        () => 'accepted',
        (e: Error) => e.message,
      );
    };
    const direct = await set(agent.cardUrl);
    tt.match(direct, /Request must include a `config` object/, 'the SDK against itself');
    tt.equal(await set(`${gw.httpUrl}/.well-known/agent-card.json`), direct, 'through pass-through: the same answer');
    const translated = gateways.find((g) => !g.passThrough && g.up === 'HTTP+JSON')!.gw;
    tt.equal(await set(`${translated.httpUrl}/.well-known/agent-card.json`), 'accepted', 'translated: accepted');
  },
);
