// Where a call goes on a route with several endpoints (issue 14, stage
// placeEndpoint) when an endpoint is full, slow or unavailable: a call
// waiting for a full endpoint's circuit-breaker slot waits at most the
// route's timeoutMs, then UPSTREAM_OVERLOADED (and leaves the queue); a full
// endpoint is not picked for a call any endpoint could take; in panic mode
// (no endpoint available) a task's calls still reach its own endpoint; a
// timeout on a task's own endpoint reaches the caller as UPSTREAM_TIMEOUT,
// not as "the endpoint is unavailable"; a streamed Message answer teaches its
// context's endpoint as a unary one does. Real SDK agents, or raw JSON-RPC
// replicas on 127.0.0.1 where a test needs one that fails in a given way.
import type { ServerResponse } from 'node:http';
import t, { type Test } from 'tap';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import type { JsonObject } from '../../src/proto/json.js';
import { brokenHttp } from '../helpers/broken-upstreams.js';
import { callJsonRpc, gatewayConfig, userMessage } from '../helpers/harness.js';
import { streamJsonRpc } from '../helpers/streams.js';
import { BOUND_MS, waitFor } from '../helpers/wait.js';

type Agent = Awaited<ReturnType<typeof startEchoAgent>>;
const at = { tenant: '', prefix: '' };
const send = (gw: RunningGateway, text: string, extra: JsonObject = {}) =>
  callJsonRpc(gw, 'SendMessage', { message: userMessage(text, extra) }, at);
const getTask = (gw: RunningGateway, id: string) => callJsonRpc(gw, 'GetTask', { id }, at);

async function gateway(t: Test, endpoints: string[], upstream: JsonObject = {}, route: JsonObject = {}) {
  const gw = await startGateway(
    gatewayConfig([
      {
        name: 'replicas',
        upstream: {
          binding: 'JSONRPC',
          loadBalancing: 'round-robin',
          healthCheck: false,
          endpoints: endpoints.map((url, i) => ({ url, name: `replica-${i}` })),
          ...upstream,
        },
        ssrfGuard: false,
        ...route,
      },
    ]),
  );
  t.teardown(() => gw.close());
  return gw;
}

async function agents(t: Test, n: number): Promise<Agent[]> {
  const list = await Promise.all(Array.from({ length: n }, () => startEchoAgent({ bindings: ['JSONRPC'] })));
  t.teardown(() => Promise.all(list.map((a) => a.close())));
  return list;
}

/** A long-running stream ("hold"): its task, once its first event came; abort() hangs up. */
async function holdStream(gw: RunningGateway): Promise<{ task: string; abort: () => void }> {
  const ac = new AbortController();
  const res = await request(gw.httpUrl, {
    method: 'POST',
    signal: ac.signal,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendStreamingMessage',
      params: { message: userMessage('hold') },
    }),
  });
  // read by hand: leaving a for-await loop would end the stream
  const chunks = res.body[Symbol.asyncIterator]();
  let text = '';
  for (let r = await chunks.next(); !r.done; r = await chunks.next()) {
    text += String(r.value);
    const end = text.indexOf('\n\n');
    const line =
      end < 0
        ? undefined
        : text
            .slice(0, end)
            .split('\n')
            .find((l) => l.startsWith('data:'));
    if (line) {
      const task = (JSON.parse(line.slice(5)) as { result: { task: { id: string } } }).result.task.id;
      res.body.on('error', () => undefined);
      return { task, abort: () => ac.abort() };
    }
  }
  throw new Error('the stream ended before its first event');
}

/** The promise's value, or 'still waiting' when it has not settled within the bound (turns a hang into a failure). */
async function within<T>(p: Promise<T>, boundMs = BOUND_MS): Promise<T | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'still waiting'>((r) => (timer = setTimeout(() => r('still waiting'), boundMs)));
  try {
    return await Promise.race([p, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A raw JSON-RPC replica keeping its own tasks (ids prefixed with its name): its card status (the active health
 * check's verdict: 503 is down) and whether it holds every call unanswered can be set.
 */
interface Replica {
  url: string;
  cardStatus: number;
  holding: boolean;
  calls: string[];
}

async function replica(t: Test, name: string): Promise<Replica> {
  let n = 0;
  const answer = (res: ServerResponse, id: unknown, body: JsonObject): void =>
    void res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', id, ...body }));
  const task = (id: string): JsonObject => ({
    id,
    contextId: `${name}-ctx`,
    status: { state: 'TASK_STATE_COMPLETED' },
  });
  const onCall = (res: ServerResponse, raw: string): void => {
    const rpc = JSON.parse(raw) as {
      id: unknown;
      method: string;
      params: { id?: string; message?: { taskId?: string } };
    };
    r.calls.push(rpc.method);
    if (r.holding) return; // never answered (the server's close ends it)
    const asked = rpc.params.id ?? rpc.params.message?.taskId ?? '';
    if (asked && !asked.startsWith(`${name}-`))
      return answer(res, rpc.id, { error: { code: -32001, message: 'no such task' } });
    if (rpc.method === 'GetTask') return answer(res, rpc.id, { result: task(asked) });
    if (rpc.method === 'SendMessage')
      return answer(res, rpc.id, { result: { task: task(asked || `${name}-t${++n}`) } });
    answer(res, rpc.id, { error: { code: -32601, message: 'not here' } });
  };
  const server = await brokenHttp((req, res) => {
    if (req.method === 'GET') return void res.writeHead(r.cardStatus).end();
    let raw = '';
    req.on('data', (c: Buffer) => (raw += String(c)));
    req.on('end', () => onCall(res, raw));
  });
  const r: Replica = { url: server.url, cardStatus: 404, holding: false, calls: [] };
  t.teardown(() => server.close());
  return r;
}

t.test('a call waiting for a full endpoint waits at most the route timeoutMs, then UPSTREAM_OVERLOADED', async (t) => {
  const list = await agents(t, 2);
  const gw = await gateway(
    t,
    list.map((a) => a.jsonRpcUrl),
    { circuitBreaker: { maxConnections: 1, maxPending: 10 } },
    { timeoutMs: 300 },
  );
  const held = await holdStream(gw); // its endpoint's only slot
  t.teardown(held.abort);
  const got = await within(getTask(gw, held.task)); // the task's own endpoint: it waits there
  t.not(got, 'still waiting', 'the wait ended');
  if (got === 'still waiting') return;
  t.equal(got.code, -32065, 'UPSTREAM_OVERLOADED');
  t.match(got.message, /no free slot within .*300 ms.*not sent/, 'the message says the call was not sent');
  held.abort();
  // the waiter left the queue: the stream's slot is released, not handed to it
  await waitFor(() => gw.endpointStates()[0]!.endpoints.every((e) => e.activeRequests === 0), 'no call in flight');
  t.ok((await getTask(gw, held.task)).ok, 'the endpoint takes calls again');
});

t.test('a full endpoint is not picked for a call any endpoint could take', async (t) => {
  const list = await agents(t, 2);
  const gw = await gateway(
    t,
    list.map((a) => a.jsonRpcUrl),
    { circuitBreaker: { maxConnections: 1, maxPending: 0 } },
  );
  const held = await holdStream(gw);
  t.teardown(held.abort);
  const results = [];
  for (let i = 0; i < 6; i++) results.push(await send(gw, `new-${i}`));
  t.same(
    results.map((r) => (r.ok ? 'ok' : r.code)),
    ['ok', 'ok', 'ok', 'ok', 'ok', 'ok'],
    'every new call went to the endpoint with a free slot',
  );
});

t.test("panic mode: a task's calls still go to its own endpoint", async (t) => {
  const replicas = [await replica(t, 'a'), await replica(t, 'b')];
  const gw = await gateway(
    t,
    replicas.map((r) => r.url),
    { healthCheck: { intervalMs: 100, timeoutMs: 1000, unhealthyThreshold: 1 } },
  );
  const before = await send(gw, 'before');
  const earlier = (before.result as { task: { id: string } }).task.id;
  for (const r of replicas) r.cardStatus = 503; // failing their checks, still answering calls
  await waitFor(
    () => gw.endpointStates()[0]!.endpoints.every((e) => e.status === 'unhealthy'),
    'every endpoint unhealthy',
  );
  const read = await getTask(gw, earlier);
  t.ok(read.ok, `GetTask of a task made before: ${read.message ?? 'ok'}`);
  const made = await send(gw, 'in panic mode');
  t.ok(made.ok, 'a new task is made (calls go to all endpoints)');
  const id = (made.result as { task: { id: string } }).task.id;
  const again = await getTask(gw, id);
  t.ok(again.ok, `GetTask of the task made in panic mode: ${again.message ?? 'ok'}`);
  const followUp = await send(gw, 'more', { taskId: id });
  t.ok(followUp.ok, 'a follow-up SendMessage reaches the task too');
});

t.test("a timeout on a task's own endpoint is UPSTREAM_TIMEOUT, not UPSTREAM_UNAVAILABLE", async (t) => {
  const replicas = [await replica(t, 'a'), await replica(t, 'b')];
  const gw = await gateway(
    t,
    replicas.map((r) => r.url),
    {},
    { timeoutMs: 300 },
  );
  const made = await send(gw, 'x');
  const id = (made.result as { task: { id: string } }).task.id;
  const owner = replicas.find((r) => id.startsWith(r === replicas[0] ? 'a-' : 'b-'))!;
  owner.holding = true;
  const read = await getTask(gw, id);
  t.equal(read.code, -32052, `GetTask: UPSTREAM_TIMEOUT (${read.message})`);
  t.notMatch(read.message ?? '', /unavailable/);
  const followUp = await send(gw, 'y', { taskId: id });
  t.equal(
    followUp.code,
    -32052,
    'a follow-up SendMessage: UPSTREAM_TIMEOUT — the agent may have it, never "unavailable"',
  );
  t.equal(owner.calls.filter((m) => m === 'SendMessage').length, 2, 'the follow-up was sent once');
});

t.test("a streamed Message answer teaches its context's endpoint, as a unary one does", async (t) => {
  const list = await agents(t, 3);
  const gw = await gateway(
    t,
    list.map((a) => a.jsonRpcUrl),
  );
  const streamed = await streamJsonRpc(gw, 'SendStreamingMessage', { message: userMessage('message') }, at);
  const contextId = (streamed.events[0] as { message?: { contextId?: string } }).message?.contextId;
  t.ok(contextId, 'the answer is a Message naming its context');
  const home = list.findIndex((a) => a.lastCall()?.text === 'message');
  const placed = [];
  for (let i = 0; i < 3; i++) {
    const text = `in-context-${i}`;
    t.ok((await send(gw, text, { contextId: contextId! })).ok);
    placed.push(list.findIndex((a) => a.lastCall()?.text === text));
  }
  t.same(placed, [home, home, home], "every new task in the context went to the context's endpoint");
});
