// The §3.3.4 checks read the capabilities the served card states (spec §8;
// docs/cards.md, "Checks from the card"): with card.overrides.capabilities
// those, not the upstream card's. An agent that has an extended card and
// streams, behind overrides that say it has neither: GetExtendedAgentCard
// and streaming are refused by the gateway as the served card says. An agent
// whose published card says it has no extended card, behind an override that
// says it has: the call reaches it and its extended card is answered. An
// override that marks an extension required: a call without it is refused.
// A real SDK agent, every HTTP binding.
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { echoAgentCard, startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { CATALOGUE } from '../../src/errors/catalogue.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { cardServer } from '../helpers/card-server.js';
import { CALLERS, gatewayConfig, userMessage } from '../helpers/harness.js';

const agent = await startEchoAgent({ bindings: ['JSONRPC'], extendedAgentCard: true, streaming: true });
// the same agent's card as published elsewhere, declaring neither an extended card nor streaming
const plainCard = await cardServer({
  ...(echoAgentCard('Echo Agent', {}) as unknown as JsonObject),
  capabilities: {},
});
const upstream = { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const, tenant: 'clear' as const };
const EXTENSION = 'urn:example:needed';
const gw = await startGateway(
  gatewayConfig([
    {
      name: 'hide',
      match: { tenant: 'hide' },
      upstream,
      card: { overrides: { capabilities: { extendedAgentCard: false, streaming: false } } },
    },
    {
      name: 'show',
      match: { tenant: 'show' },
      upstream,
      card: { url: `${plainCard.url}/card.json`, overrides: { capabilities: { extendedAgentCard: true } } },
    },
    {
      name: 'require',
      match: { tenant: 'require' },
      upstream,
      card: { overrides: { capabilities: { streaming: true, extensions: [{ uri: EXTENSION, required: true }] } } },
    },
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  await gw.close();
  await agent.close();
  await plainCard.close();
});

const servedCapabilities = async (tenant: string): Promise<unknown> => {
  const res = await request(`${gw.httpUrl}/${tenant}/.well-known/agent-card.json`, {
    headers: { 'a2a-version': '1.0' },
  });
  return ((await res.body.json()) as JsonObject).capabilities;
};

t.test('capabilities overridden to false: refused as the served card says', async (tt) => {
  tt.same(await servedCapabilities('hide'), { extendedAgentCard: false, streaming: false }, 'the served card');
  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    const ext = await CALLERS[binding](gw, 'GetExtendedAgentCard', {}, { tenant: 'hide', prefix: '' });
    tt.notOk(ext.ok, `${binding}: GetExtendedAgentCard is refused`);
    tt.match(ext.message, /the agent's card does not declare an extended agent card/, `${binding}: by the gateway`);
    if (binding === 'JSONRPC') tt.equal(ext.code, CATALOGUE.UNSUPPORTED_OPERATION.jsonRpc);
    const stream = await CALLERS[binding](
      gw,
      'SendStreamingMessage',
      { message: userMessage('s') },
      { tenant: 'hide', prefix: '' },
    );
    tt.notOk(stream.ok, `${binding}: streaming is refused`);
    tt.match(stream.message, /capabilities\.streaming is not true/, `${binding}: by the gateway`);
  }
});

t.test('an extended card overridden to true: the call reaches the agent', async (tt) => {
  tt.same(await servedCapabilities('show'), { extendedAgentCard: true }, 'the served card');
  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    const ext = await CALLERS[binding](gw, 'GetExtendedAgentCard', {}, { tenant: 'show', prefix: '' });
    tt.ok(ext.ok, `${binding}: GetExtendedAgentCard answered: ${JSON.stringify(ext.raw)}`);
    tt.equal(ext.result?.name, 'Echo Agent (extended)', `${binding}: the agent's extended card`);
  }
});

t.test('an extension the overrides mark required must be requested', async (tt) => {
  const without = await CALLERS.JSONRPC(
    gw,
    'SendMessage',
    { message: userMessage('x') },
    { tenant: 'require', prefix: '' },
  );
  tt.notOk(without.ok, 'refused without A2A-Extensions');
  tt.equal(without.code, CATALOGUE.EXTENSION_SUPPORT_REQUIRED.jsonRpc, 'ExtensionSupportRequiredError');
  const withIt = await CALLERS.JSONRPC(
    gw,
    'SendMessage',
    { message: userMessage('y') },
    { tenant: 'require', prefix: '', headers: { 'a2a-extensions': EXTENSION } },
  );
  tt.ok(withIt.ok, `served with it: ${JSON.stringify(withIt.raw)}`);
});
