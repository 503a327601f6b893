// Issue 12 item 1: a caller cannot put anything of its own into /metrics.
// Unknown JSON-RPC methods (long random names, a bearer token sent as the
// method name to a protected route, in batches too) and unknown REST paths
// all count as method="unknown"; every label value in /metrics comes from the
// route table and the catalogues, and /metrics stays small.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { METHODS } from '../../src/core/methods.js';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { ERROR_NAMES } from '../../src/errors/catalogue.js';
import { startGateway } from '../../src/server/gateway.js';
import { gatewayConfig } from '../helpers/harness.js';

const agent = await startEchoAgent({ bindings: ['JSONRPC', 'HTTP+JSON'] });
const gw = await startGateway(
  gatewayConfig([
    { name: 'open', match: { pathPrefix: '/open' }, upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' } },
    {
      name: 'secure',
      match: { pathPrefix: '/secure' },
      upstream: { url: agent.restUrl, binding: 'HTTP+JSON' },
      auth: { apiKey: { name: 'X-API-Key', keys: [{ id: 'ops', key: 'a-long-enough-key' }] } },
    },
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  await gw.close();
  await agent.close();
});

const metrics = (): Promise<string> => gw.metrics.text();
const post = async (path: string, body: unknown): Promise<void> => {
  const res = await request(`${gw.httpUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify(body),
  });
  await res.body.dump();
};
const name = (): string => randomBytes(500).toString('hex'); // 1,000 characters

t.test('unknown methods, paths and tokens leave no label behind', async (tt) => {
  // one call of each kind first, so that every label set the test can cause exists before the baseline
  await post('/open', { jsonrpc: '2.0', id: 1, method: name(), params: {} });
  await post('/open', [{ jsonrpc: '2.0', id: 1, method: name(), params: {} }]);
  await post('/secure', { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } });
  await (await request(`${gw.httpUrl}/secure/${name()}`, { headers: { 'a2a-version': '1.0' } })).body.dump();
  const before = await metrics();

  const token = `Bearer eyJ${randomBytes(48).toString('base64url')}`;
  const sent: string[] = [];
  for (let i = 0; i < 40; i++) {
    const batch = Array.from({ length: 50 }, (_, j) => {
      const method = name();
      sent.push(method);
      return { jsonrpc: '2.0', id: j, method, params: {} };
    });
    await post('/open', batch);
  }
  for (let i = 0; i < 20; i++) {
    const method = name();
    sent.push(method);
    await post('/open', { jsonrpc: '2.0', id: i, method, params: {} });
  }
  await post('/secure', { jsonrpc: '2.0', id: 1, method: token, params: {} });
  await post('/secure', [{ jsonrpc: '2.0', id: 2, method: token, params: {} }]);
  for (let i = 0; i < 20; i++) {
    const path = `/secure/${name()}/${encodeURIComponent(token)}`;
    await (await request(`${gw.httpUrl}${path}`, { headers: { 'a2a-version': '1.0' } })).body.dump();
  }
  const after = await metrics();

  tt.notOk(after.includes('eyJ'), 'the token sent as a method name is not in /metrics');
  tt.notOk(
    sent.some((m) => after.includes(m.slice(0, 32))),
    'none of the 2,020 method names is in /metrics',
  );
  // process metrics move on their own; the call metrics must not have grown by one series per name
  const series = (text: string): number => text.split('\n').filter((l) => l.startsWith('a2a_gateway_call')).length;
  tt.equal(series(after), series(before), 'no new call series (2,040 unknown calls share the "unknown" ones)');
  tt.ok(after.length < 64 * 1024, `/metrics stays small (${after.length} bytes)`);

  const allowed = {
    method: new Set([...METHODS.keys(), 'unknown']),
    route: new Set(['open', 'secure', '-']),
    inbound: new Set(['JSONRPC', 'HTTP+JSON', 'GRPC']),
    upstream: new Set(['JSONRPC', 'HTTP+JSON', 'GRPC', '-']),
    outcome: new Set(['OK', ...ERROR_NAMES]),
  };
  const found = new Set<string>();
  const perCall = after.split('\n').filter((l) => /^a2a_gateway_(call|upstream|active_streams|stream_events)/.test(l));
  for (const line of perCall) {
    for (const m of line.matchAll(/\b(method|route|inbound|upstream|outcome)="([^"]*)"/g)) {
      const [, label, value] = m as unknown as [string, keyof typeof allowed, string];
      if (!allowed[label].has(value)) found.add(`${label}=${value.slice(0, 40)}`);
    }
  }
  tt.same([...found], [], 'every label value of the call metrics comes from the route table or a catalogue');
  const long = [...after.matchAll(/="([^"]{65,})"/g)].map((m) => m[1]!.slice(0, 40));
  tt.same(long, [], 'no label value anywhere in /metrics is longer than 64 characters');
  tt.match(after, /method="unknown"/, 'unknown methods are counted, as "unknown"');
});
