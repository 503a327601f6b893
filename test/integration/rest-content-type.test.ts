// The Content-Type of request bodies the gateway sends to REST agents:
// application/a2a+json to a 1.0 agent (§11.1: it SHOULD be used), and
// application/json to a 0.3 agent (0.3's REST binding).
import t from 'tap';
import { pino } from 'pino';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import { startEchoAgentV03 } from '../helpers/echo-agent-v03.js';
import { CALLERS, gatewayConfig, userMessage } from '../helpers/harness.js';

const v1 = await startEchoAgent({ bindings: ['HTTP+JSON'] });
const v03 = await startEchoAgentV03({ bindings: ['HTTP+JSON'] });
const gw = await startGateway(
  gatewayConfig([
    { name: 'v1', match: { tenant: 'v1' }, upstream: { url: v1.urlFor('HTTP+JSON'), binding: 'HTTP+JSON' as const } },
    {
      name: 'v03',
      match: { tenant: 'v03' },
      upstream: { url: v03.urlFor('HTTP+JSON'), binding: 'HTTP+JSON' as const, version: '0.3' as const },
      card: { url: v03.cardUrl },
    },
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  await gw.close();
  await v1.close();
  await v03.close();
});

t.test('application/a2a+json to 1.0 agents, application/json to 0.3 agents', async (tt) => {
  const params = { message: userMessage('hello') };
  tt.ok((await CALLERS.JSONRPC(gw, 'SendMessage', params, { tenant: 'v1', prefix: '' })).ok);
  tt.equal(v1.lastCall()?.headers['content-type'], 'application/a2a+json', '1.0');
  tt.ok((await CALLERS.JSONRPC(gw, 'SendMessage', params, { tenant: 'v03', prefix: '' })).ok);
  tt.equal(v03.lastCall()?.headers['content-type'], 'application/json', '0.3');
});
