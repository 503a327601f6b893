// An agent's answer that the caller's A2A version cannot carry (bridge §3:
// a 1.0 message whose part has no content has no 0.3 `kind`) is the agent's
// mistake, INVALID_AGENT_RESPONSE (§3.3.2), answered to a 0.3 JSON-RPC caller
// with its own request id — not an internal error with id null.
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { startGateway } from '../../src/server/gateway.js';
import { jsonRpcAgent } from '../helpers/broken-upstreams.js';
import { gatewayConfig } from '../helpers/harness.js';

const agent = await jsonRpcAgent((body, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  const message = { messageId: 'a', role: 'ROLE_AGENT', parts: [{}] };
  res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { message } }));
});
const gw = await startGateway(
  gatewayConfig([{ name: 'empty-part', upstream: { url: agent.url, binding: 'JSONRPC' } }]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  await gw.close();
  await agent.close();
});

t.test('a 0.3 JSON-RPC caller: InvalidAgentResponse with its id', async (tt) => {
  const res = await request(`${gw.httpUrl}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'req-7',
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } },
    }),
  });
  tt.equal(res.statusCode, 200, 'a JSON-RPC-level error, not a 500');
  const body = (await res.body.json()) as { id: unknown; error?: { code: number; message: string } };
  tt.equal(body.id, 'req-7', "the caller's id");
  tt.equal(body.error?.code, -32006, 'InvalidAgentResponseError');
});
