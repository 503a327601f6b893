// Scale out (issue 14) when parts fail: an agent replica killed under load
// (reads of the other replicas' tasks keep working, its own tasks get an
// UPSTREAM_UNAVAILABLE that names them, new tasks go to the live replicas,
// nothing hangs; readiness and metrics show it; with sharedTaskStore the
// reads fail over), Redis stopped and restarted mid-test (affinity falls back
// to each gateway's own table and is written back when Redis returns; rate
// limits fail open; the second gateway lists the replicas in reverse, so only
// Redis tells it where the first one's tasks are), and a global rate limit
// held across two gateways.
import t from 'tap';
import { pino } from 'pino';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { parseConfig } from '../../src/config/load.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import type { JsonObject } from '../../src/proto/json.js';
import { callJsonRpc, userMessage } from '../helpers/harness.js';
import { spawnRedis, testRedisUrl, uniquePrefix } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';

type Agent = Awaited<ReturnType<typeof startEchoAgent>>;

async function replicas(n: number): Promise<Agent[]> {
  return Promise.all(Array.from({ length: n }, () => startEchoAgent({ bindings: ['JSONRPC'] })));
}

function config(redisUrl: string | undefined, agents: Agent[], route: JsonObject = {}, upstream: JsonObject = {}) {
  return parseConfig(
    JSON.stringify({
      listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
      admin: { host: '127.0.0.1', port: 0 },
      log: { level: 'silent' },
      ...(redisUrl ? { state: { redis: { url: redisUrl, keyPrefix: uniquePrefix('failures') } } } : {}),
      routes: [
        {
          name: 'replicas',
          upstream: {
            binding: 'JSONRPC',
            loadBalancing: 'round-robin',
            endpoints: agents.map((a, i) => ({ url: a.jsonRpcUrl, name: `replica-${i}` })),
            ...upstream,
          },
          ...route,
        },
      ],
    }),
    '<failures test>',
  );
}

const at = { tenant: '', prefix: '' };
const send = (gw: RunningGateway, text: string) => callJsonRpc(gw, 'SendMessage', { message: userMessage(text) }, at);
const getTask = (gw: RunningGateway, id: string) => callJsonRpc(gw, 'GetTask', { id }, at);

/** Sends `n` tasks one by one; returns each task's id with the replica that holds it. */
async function tasks(gw: RunningGateway, agents: Agent[], n: number, tag: string) {
  const out: Array<{ id: string; holder: number }> = [];
  for (let i = 0; i < n; i++) {
    const text = `${tag}-${i}`;
    const r = await send(gw, text);
    if (!r.ok) throw new Error(`SendMessage failed: ${r.message}`);
    const task = (r.result as { task: { id: string } }).task;
    out.push({ id: task.id, holder: agents.findIndex((a) => a.lastCall()?.text === text) });
  }
  return out;
}

t.test('a replica killed under load', async (tt) => {
  const agents = await replicas(3);
  tt.teardown(() => Promise.all(agents.map((a) => a.close())));
  const checks = { healthCheck: { intervalMs: 200, timeoutMs: 150 } };
  const gw = await startGateway(config(undefined, agents, {}, checks), pino({ level: 'silent' }));
  tt.teardown(() => gw.close());
  const made = await tasks(gw, agents, 6, 'kill');
  tt.same(new Set(made.map((m) => m.holder)), new Set([0, 1, 2]), 'the tasks are spread over the three replicas');

  await agents[0]!.close();
  // under load: every task read three times at once, and new tasks, while the replica is gone
  const reads = made.flatMap((m) => [m, m, m].map(async () => ({ ...m, r: await getTask(gw, m.id) })));
  const sends = [0, 1, 2, 3].map((i) => send(gw, `after-${i}`));
  const [readResults, sendResults] = await Promise.all([Promise.all(reads), Promise.all(sends)]);
  for (const { id, holder, r } of readResults) {
    if (holder !== 0) {
      tt.ok(r.ok, `task on replica ${holder} still answered`);
      continue;
    }
    tt.equal(r.code, -32051, `the dead replica's task: UPSTREAM_UNAVAILABLE`);
    tt.match(r.message, `task "${id}" is held by endpoint "replica-0"`, 'the error names the task and its endpoint');
    tt.notMatch(r.message, /127\.0\.0\.1/, 'no address in the answer');
  }
  tt.ok(
    sendResults.every((r) => r.ok),
    'new tasks go to live replicas (a refused connection is tried on another)',
  );

  let readyText = '';
  const ready = await waitFor(async () => {
    const res = await request(`${gw.adminUrl}/readyz`);
    readyText = await res.body.text();
    const body = JSON.parse(readyText) as { routes: Array<{ endpoints: Array<{ name: string; status: string }> }> };
    const e = body.routes[0]!.endpoints;
    return e[0]!.status !== 'healthy' ? e : undefined;
  }, 'readiness to show the dead replica');
  tt.notMatch(readyText, /127\.0\.0\.1|localhost/, 'readiness names no address (its reasons neither)');
  tt.same(
    ready.map((e) => [e.name, e.status === 'healthy']),
    [
      ['replica-0', false],
      ['replica-1', true],
      ['replica-2', true],
    ],
    'readiness reports each endpoint',
  );
  const metrics = await gw.metrics.text();
  tt.match(metrics, /a2a_gateway_endpoint_status\{route="replicas",endpoint="replica-1",status="healthy"\} 1/);
  tt.match(metrics, /a2a_gateway_endpoint_status\{route="replicas",endpoint="replica-0",status="healthy"\} 0/);
  tt.same(
    gw.endpointStates().map((r) => r.route),
    ['replicas'],
    'the read-only accessor for an admin console',
  );
});

t.test('with sharedTaskStore, reads of a dead replica’s task fail over', async (tt) => {
  const agents = await replicas(2);
  tt.teardown(() => Promise.all(agents.map((a) => a.close())));
  const cfg = config(undefined, agents);
  cfg.routes[0]!.upstream.sharedTaskStore = true;
  const gw = await startGateway(cfg, pino({ level: 'silent' }));
  tt.teardown(() => gw.close());
  const made = await tasks(gw, agents, 2, 'shared');
  const dead = made.find((m) => m.holder === 0)!;
  await agents[0]!.close();
  const r = await getTask(gw, dead.id);
  // these replicas do not really share a store: the other one answers that it does not know the task
  tt.equal(r.code, -32001, 'the read went to the other replica (its TaskNotFound proves it)');
  const followUp = await callJsonRpc(gw, 'SendMessage', { message: userMessage('and then', { taskId: dead.id }) }, at);
  tt.notOk(followUp.ok, 'the other replica does not know the task either');
  tt.not(followUp.code, -32051, 'a follow-up send fails over too: never the gateway’s "no shared task store" error');
});

t.test('Redis stopped and restarted mid-test', async (tt) => {
  const redis = await spawnRedis(tt);
  const agents = await replicas(3);
  tt.teardown(() => Promise.all(agents.map((a) => a.close())));
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
  const cfg = config(redis.url, agents, { rateLimit: { requestsPerSecond: 1000, burst: 1000 } });
  // B lists the replicas in reverse: of A's three tasks in a row, B's own round robin would find one at most
  const reversed = cfg.routes.map((r) => ({
    ...r,
    upstream: { ...r.upstream, endpoints: [...r.upstream.endpoints].reverse() },
  }));
  const [a, b] = [
    await startGateway(cfg, log),
    await startGateway({ ...cfg, routes: reversed }, pino({ level: 'silent' })),
  ];
  tt.teardown(() => Promise.all([a.close(), b.close()]));

  const before = await tasks(a, agents, 3, 'redis-up');
  for (const m of before) tt.ok((await getTask(b, m.id)).ok, 'the other gateway finds the task through Redis');

  await redis.stop();
  await waitFor(() => lines.some((l) => l.includes('redis unavailable')), 'the outage to be logged');
  for (const m of before) {
    tt.ok((await getTask(a, m.id)).ok, 'gateway A still knows its tasks (its own table)');
    tt.ok((await getTask(b, m.id)).ok, 'gateway B too (learned from its answers)');
  }
  const during = await tasks(a, agents, 3, 'redis-down');
  for (const m of during) tt.ok((await getTask(a, m.id)).ok, 'tasks made during the outage are followed by A');
  tt.ok(
    lines.some((l) => l.includes('rate limits: redis unavailable')),
    'the rate limit failed open, logged',
  );

  await redis.start();
  await waitFor(() => lines.some((l) => l.includes('redis reachable again')), 'the recovery to be logged');
  // what A learned during the outage is written back to Redis, and B finds those tasks there
  const client = new Redis(redis.url);
  tt.teardown(() => client.disconnect());
  await waitFor(async () => {
    const keys = await client.keys('*affinity*');
    return during.every((m) => keys.some((k) => k.endsWith(`:task:${m.id}`)));
  }, 'the tasks learned during the outage to be in Redis');
  for (const m of during)
    for (let i = 0; i < 3; i++) tt.ok((await getTask(b, m.id)).ok, 'gateway B finds a task made during the outage');
});

t.test('a global rate limit holds across two gateways', async (tt) => {
  const redisUrl = await testRedisUrl(tt);
  const agents = await replicas(2);
  tt.teardown(() => Promise.all(agents.map((a) => a.close())));
  // 4 calls per 4,000 s: no refill during the test, however slow the machine
  const cfg = config(redisUrl, agents, { rateLimit: { requestsPerSecond: 0.001, burst: 4 } });
  const gws = [await startGateway(cfg, pino({ level: 'silent' })), await startGateway(cfg, pino({ level: 'silent' }))];
  tt.teardown(() => Promise.all(gws.map((g) => g.close())));
  const results = [];
  for (let i = 0; i < 8; i++) results.push(await send(gws[i % 2]!, `limited-${i}`));
  tt.same(
    results.map((r) => r.ok),
    [true, true, true, true, false, false, false, false],
    'four calls in all, not four per gateway',
  );
  tt.ok(
    results.slice(4).every((r) => r.code === -32064),
    'then RATE_LIMITED on both',
  );
  // a token each 1,000 s: the refusals name the next token, not the end of a 4,000 s window
  const delays = results
    .slice(4)
    .map((r) => r.details?.find((d) => String(d['@type']).endsWith('RetryInfo'))?.retryDelay)
    .map((d) => Number(/^([\d.]+)s$/.exec(String(d))?.[1]));
  tt.ok(
    delays.every((d) => d > 900 && d <= 1000),
    `the next token in at most 1,000 s: ${delays.join(', ')}`,
  );
});
