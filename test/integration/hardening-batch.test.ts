// Issue 12 item 2: one JSON-RPC batch cannot fan out into thousands of
// upstream calls — it is capped (limits.maxBatchItems, default 100: over it
// the whole batch is PAYLOAD_TOO_LARGE, HTTP 413, and nothing goes upstream),
// at most limits.batchConcurrency of its requests run at once, and each one
// counts against the route's rate limit. Item 13: on a route without
// authentication, per-caller limits key on the peer address, so 20 made-up
// Authorization values are one caller.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { CATALOGUE } from '../../src/errors/catalogue.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { brokenHttp } from '../helpers/broken-upstreams.js';
import { gatewayConfig, userMessage } from '../helpers/harness.js';

// A JSON-RPC agent that answers GetTask after 20 ms and counts how many calls it holds at once.
let inFlight = 0;
let maxInFlight = 0;
let calls = 0;
const counting = await brokenHttp((req, res) => {
  if (req.method === 'GET') return void res.writeHead(404).end();
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    calls++;
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    const { id, params } = JSON.parse(body) as { id: number; params: { id: string } };
    setTimeout(() => {
      inFlight--;
      const task = { id: params.id, contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } };
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id, result: task }));
    }, 20);
  });
});
const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
const routes = [
  { name: 'counted', match: { pathPrefix: '/counted' }, upstream: { url: counting.url, binding: 'JSONRPC' as const } },
  {
    name: 'limited',
    match: { pathPrefix: '/limited' },
    upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const },
    rateLimit: { requestsPerSecond: 0.1, burst: 5 },
  },
  {
    name: 'per-caller',
    match: { pathPrefix: '/pc' },
    upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const },
    rateLimit: { requestsPerSecond: 0.1, burst: 1, perCaller: true },
  },
];
const small = await startGateway(
  gatewayConfig(routes, {
    limits: {
      maxBatchItems: 20,
      batchConcurrency: 3,
      upstreamConnections: 1024,
      upstreamStreams: 1024,
      bodyTimeoutMs: 60_000,
      headersTimeoutMs: 60_000,
      idleTimeoutMs: 75_000,
      grpcStreamsPerConnection: 100,
    },
  }),
  pino({ level: 'silent' }),
);
const defaults = await startGateway(gatewayConfig(routes), pino({ level: 'silent' }));
t.teardown(async () => {
  await small.close();
  await defaults.close();
  await agent.close();
  await counting.close();
});

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, json: (await res.body.json()) as JsonObject | JsonObject[] };
}
const getTasks = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'GetTask', params: { id: `t-${i}` } }));

t.test('a batch runs at most batchConcurrency of its requests at once', async (tt) => {
  calls = 0;
  maxInFlight = 0;
  const r = await post(`${small.httpUrl}/counted`, getTasks(20));
  const replies = r.json as JsonObject[];
  tt.equal(replies.length, 20, 'every request answered');
  tt.ok(
    replies.every((x, i) => x.id === i && (x.result as JsonObject).id === `t-${i}`),
    'in order',
  );
  tt.equal(calls, 20, 'one upstream call per request');
  tt.ok(maxInFlight <= 3, `at most 3 upstream calls at once (saw ${maxInFlight})`);
});

t.test('a batch over maxBatchItems is refused whole, before any upstream call', async (tt) => {
  calls = 0;
  const over = await post(`${small.httpUrl}/counted`, getTasks(21));
  tt.equal(over.status, 413, 'HTTP 413');
  const err = (over.json as JsonObject).error as JsonObject;
  tt.equal(err.code, CATALOGUE.PAYLOAD_TOO_LARGE.jsonRpc, 'one JSON-RPC error for the batch');
  tt.match(err.message, /21 requests exceeds the limit of 20/, 'says what the limit is');
  tt.equal(calls, 0, 'nothing went upstream');

  const fiftyThousand = await post(`${defaults.httpUrl}/counted`, getTasks(50_000));
  tt.equal(fiftyThousand.status, 413, 'the default cap (100) refuses a 50,000-request batch');
  tt.match(((fiftyThousand.json as JsonObject).error as JsonObject).message, /limit of 100/);
  tt.equal(calls, 0, 'nothing went upstream');
  const hundred = await post(`${defaults.httpUrl}/counted`, getTasks(100));
  tt.equal((hundred.json as JsonObject[]).length, 100, 'a batch of 100 is served');
});

t.test("each request of a batch counts against the route's rate limit", async (tt) => {
  const batch = Array.from({ length: 8 }, (_, i) => ({
    jsonrpc: '2.0',
    id: i,
    method: 'SendMessage',
    params: { message: userMessage(`b${i}`) },
  }));
  const r = await post(`${small.httpUrl}/limited`, batch);
  const replies = r.json as JsonObject[];
  const limited = replies.filter((x) => (x.error as JsonObject | undefined)?.code === CATALOGUE.RATE_LIMITED.jsonRpc);
  tt.equal(replies.length - limited.length, 5, 'the burst of 5 passes');
  tt.equal(limited.length, 3, 'the other 3 are RATE_LIMITED');
});

t.test('per caller without authentication: 20 random Authorization values are one caller', async (tt) => {
  const results = [];
  for (let i = 0; i < 20; i++) {
    const r = await post(
      `${small.httpUrl}/pc`,
      { jsonrpc: '2.0', id: i, method: 'SendMessage', params: { message: userMessage('pc') } },
      { authorization: `Bearer ${randomBytes(16).toString('hex')}` },
    );
    results.push((r.json as JsonObject).error === undefined);
  }
  tt.equal(results.filter(Boolean).length, 1, '1 of 20 admitted: the bucket is the peer address');
});
