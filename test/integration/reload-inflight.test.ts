// Calls that span a reload (issue 11, upstreams per generation): a JSON-RPC
// batch keeps its generation until its last item has run, so an item started
// after the reload goes over the old generation's open connection instead of
// opening one on a generation already closed (which nothing would ever close);
// and the upstream budgets (limits.upstreamConnections) count the calls still
// running on a retired generation, so a reload grants no second budget.
import { pino } from 'pino';
import t from 'tap';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { DEFAULT_LIMITS } from '../../src/config/types.js';
import { startGateway } from '../../src/server/gateway.js';
import { countingRelay } from '../helpers/counting-relay.js';
import { CALLERS, gatewayConfig, userMessage } from '../helpers/harness.js';
import { eventually, waitFor } from '../helpers/wait.js';

const agent = await startEchoAgent({ bindings: ['GRPC', 'JSONRPC'] });
const relay = await countingRelay(Number(agent.grpcAddress.split(':').pop()));
t.teardown(async () => {
  await relay.close();
  await agent.close();
});

const reasonOf = (r: { details?: Array<Record<string, unknown>> }): unknown => r.details?.find((d) => d.reason)?.reason;

t.test('a batch item started after a reload runs on the batch’s own generation', async (tt) => {
  // one item at a time; the first is held by the agent until the test cancels its task, after the reload
  const config = () =>
    gatewayConfig([{ name: 'rpc', upstream: { url: `127.0.0.1:${relay.port}`, binding: 'GRPC' } }], {
      limits: { ...DEFAULT_LIMITS, batchConcurrency: 1 },
    });
  const gw = await startGateway(config(), pino({ level: 'silent' }));
  tt.teardown(() => gw.close());
  const before = relay.total;
  const batch = request(`${gw.httpUrl}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('hold') } },
      { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: 'no-such-task' } },
    ]),
  });
  const held = await waitFor(
    () => (agent.published()[0] as { task?: { id?: string } } | undefined)?.task?.id,
    'the first item held at the agent',
  );
  gw.reload(config());
  // released at the agent itself (its own JSON-RPC endpoint): the batch's second item starts after the reload
  const cancel = await request(agent.jsonRpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'CancelTask', params: { id: held } }),
  });
  await cancel.body.dump();
  const res = await batch;
  const replies = (await res.body.json()) as Array<{ id: number; error?: { data?: Array<{ reason?: string }> } }>;
  const second = replies.find((r) => r.id === 2);
  tt.equal(second?.error?.data?.find((d) => d.reason)?.reason, 'TASK_NOT_FOUND', 'the second item was served');
  tt.equal(relay.total, before + 1, 'over the connection the first item opened, not a new one');
  tt.ok(
    await eventually(() => relay.open === 0, 10_000),
    "the old generation's connection closed once the batch ended (the new one has made none)",
  );
});

t.test('a call still running on a retired generation counts against the upstream budget', async (tt) => {
  const config = () =>
    gatewayConfig([{ name: 'rpc', upstream: { url: agent.grpcAddress, binding: 'GRPC' } }], {
      limits: { ...DEFAULT_LIMITS, upstreamConnections: 1 },
    });
  const gw = await startGateway(config(), pino({ level: 'silent' }));
  tt.teardown(() => gw.close());
  const held = new AbortController();
  const first = request(`${gw.httpUrl}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('hold') } }),
    signal: held.signal,
  }).catch(() => undefined);
  await waitFor(() => agent.openCalls() >= 1, 'the held call at the agent');
  const call = () => CALLERS.JSONRPC(gw, 'GetTask', { id: 'no-such-task' }, { tenant: '', prefix: '' });
  tt.equal(reasonOf(await call()), 'UPSTREAM_OVERLOADED', 'the budget of 1 is taken (before the reload)');
  gw.reload(config());
  tt.equal(reasonOf(await call()), 'UPSTREAM_OVERLOADED', 'and still taken after it: the held call holds the agent');
  held.abort();
  await first;
  tt.ok(
    await eventually(async () => reasonOf(await call()) === 'TASK_NOT_FOUND'),
    'the budget is free again once the held call has ended',
  );
});
