// The A2A-Version sent upstream (spec §3.6): the chosen card interface's
// Major.Minor for `auto` routes, 1.0 for a configured binding — whatever
// 1.x version the caller used.
import t from 'tap';
import { pino } from 'pino';
import { echoAgentCard } from '../../examples/demo-agent/echo-agent.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { brokenHttp } from '../helpers/broken-upstreams.js';
import { CALLERS, gatewayConfig, userMessage } from '../helpers/harness.js';

const seen: string[] = [];
let url = '';
const agent = await brokenHttp((req, res) => {
  if (req.method === 'GET') {
    const card = {
      ...(echoAgentCard('v1.1 agent', {}) as unknown as JsonObject),
      supportedInterfaces: [{ url: `${url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.1' }],
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
    return;
  }
  let body = '';
  req.on('data', (d: Buffer) => (body += d.toString()));
  req.on('end', () => {
    seen.push(String(req.headers['a2a-version']));
    const { id } = JSON.parse(body) as { id: number };
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        result: { message: { messageId: 'r', role: 'ROLE_AGENT', parts: [{ text: 'ok' }] } },
      }),
    );
  });
});
url = agent.url;
const gw = await startGateway(
  gatewayConfig([
    { name: 'auto', match: { pathPrefix: '/auto' }, upstream: { url: agent.url, binding: 'auto' as const } },
    {
      name: 'fixed',
      match: { pathPrefix: '/fixed' },
      upstream: { url: `${agent.url}/rpc`, binding: 'JSONRPC' as const },
      card: { file: undefined, url: `${agent.url}/card.json` },
    },
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  await gw.close();
  await agent.close();
});

t.test('the upstream gets its interface version, not the caller’s', async (tt) => {
  const viaCard = await CALLERS.JSONRPC(
    gw,
    'SendMessage',
    { message: userMessage('v') },
    { tenant: '', prefix: '/auto', headers: { 'a2a-version': '1.0' } },
  );
  tt.equal(viaCard.ok, true);
  tt.equal(seen.at(-1), '1.1', 'auto: the card interface says 1.1');
  const fixed = await CALLERS.JSONRPC(
    gw,
    'SendMessage',
    { message: userMessage('v') },
    { tenant: '', prefix: '/fixed', headers: { 'a2a-version': '1.1' } },
  );
  tt.equal(fixed.ok, true);
  tt.equal(seen.at(-1), '1.0', 'a configured binding: 1.0, though the caller said 1.1');
});
