// The reference for the 0.3 bridge (issue 13): the official 0.3.14 client
// against a 1.3.0 agent with the SDK's own 0.3 compatibility layer on passes
// the scenario list (test/helpers/bridge-scenarios.ts) on each transport —
// chosen from the agent's card and held to each — and the same client, the
// same list, through the gateway to a 1.0-only agent (compatibility off; the
// route reads the agent's 1.0 card, `upstream.binding: auto`) passes too.
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { startEchoAgent, type RunningAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import { BRIDGE_EXTENSION, V03_SCENARIOS, type Scenario } from '../helpers/bridge-scenarios.js';
import { gatewayConfig } from '../helpers/harness.js';
import { transportOf, v03Client, V03_TRANSPORTS, type V03Transport } from '../helpers/sdk-v03.js';

const common = {
  bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const,
  pushNotifications: true,
  extendedAgentCard: true,
  extensions: [{ uri: BRIDGE_EXTENSION, required: false }],
};
const compat = await startEchoAgent({ ...common, bindings: [...common.bindings], legacyCompat: true });
const plain = await startEchoAgent({ ...common, bindings: [...common.bindings], name: '1.0-only agent' });
const gateway = await startGateway(
  gatewayConfig([{ name: 'auto', match: { pathPrefix: '' }, upstream: { url: plain.httpUrl, binding: 'auto' } }]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  await gateway.close();
  await Promise.all([compat.close(), plain.close()]);
});

/** Runs every scenario with a 0.3 client from `cardUrl`, held to `transport` or choosing from the card. */
async function runAll(
  t: Test,
  cardUrl: string,
  agent: RunningAgent,
  transport: V03Transport | undefined,
): Promise<void> {
  const client = await v03Client(cardUrl, transport);
  const used = transportOf(client)!;
  if (transport) t.equal(used, transport, `the client uses ${transport}`);
  else t.ok(used, `chosen from the card: ${used}`);
  for (const s of V03_SCENARIOS as Scenario[]) {
    await t.test(s.name, (tt) =>
      s.run(tt, { client, transport: used, seenExtensions: () => agent.lastCall()?.extensions }),
    );
  }
}

const modes: Array<V03Transport | undefined> = [undefined, ...V03_TRANSPORTS];
const label = (m: V03Transport | undefined): string => m ?? 'transport chosen from the card';

t.test('the scenario list covers every method 0.3 and 1.0 both have', async (tt) => {
  const names = V03_SCENARIOS.map((s) => s.name).join('\n');
  for (const m of [
    'message/send',
    'message/stream',
    'tasks/get',
    'tasks/cancel',
    'tasks/resubscribe',
    'tasks/pushNotificationConfig',
    'agent/getAuthenticatedExtendedCard',
  ]) {
    tt.ok(names.includes(m), m);
  }
});

for (const mode of modes) {
  t.test(`reference: 0.3.14 client → 1.3.0 agent with its 0.3 compatibility, ${label(mode)}`, (tt) =>
    runAll(tt, compat.httpUrl + '/.well-known/agent-card.json', compat, mode),
  );
  t.test(`gateway: 0.3.14 client → gateway → 1.0-only agent, ${label(mode)}`, (tt) =>
    runAll(tt, `${gateway.httpUrl}/.well-known/agent-card.json`, plain, mode),
  );
}
