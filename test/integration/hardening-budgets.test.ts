// Issue 12 item 3: open streams cannot starve an agent's unary calls, and an
// exhausted connection budget is answered at once. Streams go over their own
// pool and budget (limits.upstreamStreams), unary calls over theirs
// (limits.upstreamConnections, default 1,024 as Envoy's circuit breakers); a
// call over its budget is UPSTREAM_OVERLOADED (503 + Retry-After on REST,
// UNAVAILABLE on gRPC, -32065 on JSON-RPC) instead of waiting in a queue.
import type { ServerResponse } from 'node:http';
import t from 'tap';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { request, type Dispatcher } from 'undici';
import { DEFAULT_LIMITS } from '../../src/config/types.js';
import { CATALOGUE } from '../../src/errors/catalogue.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import { brokenHttp } from '../helpers/broken-upstreams.js';
import { CALLERS, closeGrpcClients, gatewayConfig, userMessage } from '../helpers/harness.js';
import { grpcStreamCall } from '../helpers/streams.js';
import { waitFor } from '../helpers/wait.js';

// A JSON-RPC agent: streams send one event and stay open; GetTask is held until released; the rest answer at once.
const held: Array<() => void> = [];
const streamsOpen = new Set<ServerResponse>();
const agent = await brokenHttp((req, res) => {
  if (req.method === 'GET') return void res.writeHead(404).end();
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    const { id, method, params } = JSON.parse(body) as { id: number; method: string; params: JsonObject };
    const task = { id: String(params.id ?? 't'), contextId: 'c', status: { state: 'TASK_STATE_WORKING' } };
    const result = method === 'GetTask' ? task : { task };
    const answer = () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
    if (method === 'SendStreamingMessage') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { task } })}\n\n`);
      streamsOpen.add(res);
      res.on('close', () => streamsOpen.delete(res));
    } else if (method === 'GetTask') held.push(answer);
    else answer();
  });
});
const route = (name: string) => ({
  name,
  match: { pathPrefix: `/${name}`, tenant: name },
  upstream: { url: agent.url, binding: 'JSONRPC' as const, tenant: 'clear' as const },
  timeoutMs: 5000,
});
const roomy = await startGateway(gatewayConfig([route('a'), route('b')]), pino({ level: 'silent' }));
const tight = await startGateway(
  gatewayConfig([route('a'), route('b')], {
    limits: { ...DEFAULT_LIMITS, upstreamConnections: 2, upstreamStreams: 2 },
  }),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  closeGrpcClients();
  for (const release of held.splice(0)) release();
  await roomy.close();
  await tight.close();
  await agent.close();
});

/** A JSON-RPC stream through the gateway, held open after its first event. */
async function openStream(gw: RunningGateway, tenant: string): Promise<Dispatcher.ResponseData> {
  const res = await request(`${gw.httpUrl}/${tenant}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendStreamingMessage',
      params: { tenant, message: userMessage('hold') },
    }),
  });
  const first = await new Promise<string>((resolve) => res.body.once('data', (c: Buffer) => resolve(c.toString())));
  if (!first.includes('data:')) throw new Error(`no event: ${first}`);
  return res;
}

t.test('70 open streams (more than the old shared pool of 64) do not hold up unary calls', async (tt) => {
  const streams = [];
  for (let i = 0; i < 70; i++) streams.push(await openStream(roomy, i % 2 ? 'a' : 'b'));
  tt.equal(streamsOpen.size, 70, 'the agent holds 70 streams');
  const r = await CALLERS.JSONRPC(
    roomy,
    'SendMessage',
    { message: userMessage('unary') },
    { tenant: 'a', prefix: '/a' },
  );
  tt.equal(r.ok, true, 'a unary call to the same agent is served while they are open');
  for (const s of streams) s.body.destroy();
});

t.test('an exhausted stream budget is answered at once, in the caller binding', async (tt) => {
  const streams = [await openStream(tight, 'a'), await openStream(tight, 'b')];
  const rpc = await request(`${tight.httpUrl}/a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'SendStreamingMessage',
      params: { tenant: 'a', message: userMessage('x') },
    }),
  });
  const err = ((await rpc.body.json()) as JsonObject).error as JsonObject;
  tt.equal(err.code, CATALOGUE.UPSTREAM_OVERLOADED.jsonRpc, 'JSON-RPC: UPSTREAM_OVERLOADED (-32065)');
  tt.notOk(JSON.stringify(err).includes('127.0.0.1'), "the agent's address is not in the answer");
  const rest = await request(`${tight.httpUrl}/b/b/message:stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ message: userMessage('x') }),
  });
  tt.equal(rest.statusCode, 503, 'REST: 503');
  tt.equal(rest.headers['retry-after'], '1', 'REST: Retry-After');
  await rest.body.dump();
  const g = grpcStreamCall(tight, 'SendStreamingMessage', { message: userMessage('x') }, { tenant: 'a', prefix: '' });
  const status = await new Promise<grpc.StatusObject>((resolve) => {
    g.on('data', () => undefined);
    g.on('error', () => undefined);
    g.on('status', resolve);
  });
  tt.equal(status.code, grpc.status.UNAVAILABLE, 'gRPC: UNAVAILABLE');
  const unary = await CALLERS.JSONRPC(
    tight,
    'SendMessage',
    { message: userMessage('u') },
    { tenant: 'a', prefix: '/a' },
  );
  tt.equal(unary.ok, true, 'unary calls have a budget of their own');
  for (const s of streams) s.body.destroy();
  await waitFor(() => streamsOpen.size === 0, 'the agent to see the streams closed');
  const again = await openStream(tight, 'a');
  tt.pass('a closed stream gives its place back');
  again.body.destroy();
});

t.test('an exhausted unary budget is answered at once, not queued', async (tt) => {
  const opts = { tenant: 'a', prefix: '/a' };
  const first = CALLERS.JSONRPC(tight, 'GetTask', { id: 'one' }, opts);
  const second = CALLERS['HTTP+JSON'](tight, 'GetTask', { id: 'two' }, { tenant: 'b', prefix: '/b' });
  await waitFor(() => held.length === 2, 'the agent to hold two calls');
  // the agent holds two calls: the third is refused before either is released
  const third = await CALLERS.GRPC(tight, 'GetTask', { id: 'three' }, opts);
  tt.equal(third.code, grpc.status.UNAVAILABLE, 'gRPC caller: UNAVAILABLE at once');
  tt.match(third.message, /upstreamConnections/, 'the message names the limit');
  const fourth = await CALLERS.JSONRPC(tight, 'GetTask', { id: 'four' }, opts);
  tt.equal(fourth.code, CATALOGUE.UPSTREAM_OVERLOADED.jsonRpc, 'JSON-RPC caller: -32065');
  for (const release of held.splice(0)) release();
  tt.same([(await first).ok, (await second).ok], [true, true], 'the held calls finish');
  const after = CALLERS.JSONRPC(tight, 'GetTask', { id: 'five' }, opts);
  await waitFor(() => held.length === 1, 'the agent to hold the call after');
  held.shift()!();
  tt.equal((await after).ok, true, 'and the budget is free again');
});
