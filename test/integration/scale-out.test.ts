// Scale out (issue 14), the full flow: three @a2a-js/sdk agent replicas, each
// with its own in-memory task store, behind one route per upstream binding,
// and two gateways (each its own Gateway) sharing a real Redis. The official
// SDK client's whole flow — send, get, a follow-up send, push configs,
// cancel, stream, resubscribe — passes on every inbound binding while the
// calls alternate between the two gateways: every follow-up reaches the
// replica that created its task, whichever gateway learned where that is. A
// new task in a known context goes to the context's replica. The second
// gateway lists each route's replicas in reverse, so its round robin does not
// keep step with the first one's: only Redis sends its reads to the right one.
import t from 'tap';
import { pino } from 'pino';
import { TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import { parseConfig } from '../../src/config/load.js';
import { BINDINGS, slug } from '../helpers/harness.js';
import { sdkClient, sdkMessage } from '../helpers/sdk.js';
import { testRedisUrl, uniquePrefix } from '../helpers/redis.js';

const redisUrl = await testRedisUrl(t);
const agents = await Promise.all([0, 1, 2].map(() => startEchoAgent({ bindings: BINDINGS, pushNotifications: true })));
t.teardown(() => Promise.all(agents.map((a) => a.close())));

const prefix = uniquePrefix('scale-out');
/** The gateways' config, each route's endpoints (replica-0, -1, -2) listed in `order`. */
const configOf = (order: number[]) =>
  parseConfig(
    JSON.stringify({
      listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
      log: { level: 'silent' },
      state: { redis: { url: redisUrl, keyPrefix: prefix } },
      routes: BINDINGS.map((b) => ({
        name: `r-${slug(b)}`,
        match: { pathPrefix: `/r-${slug(b)}`, tenant: `r-${slug(b)}` },
        // the push-config URL below is a loopback one, which the guard would refuse
        ssrfGuard: false,
        upstream: {
          binding: b,
          tenant: 'clear',
          loadBalancing: 'round-robin',
          endpoints: order.map((i) => ({ url: agents[i]!.urlFor(b), name: `replica-${i}` })),
        },
        // a gRPC agent's card is read from its HTTP side
        ...(b === 'GRPC' ? { card: { url: `${agents[0]!.httpUrl}/.well-known/agent-card.json` } } : {}),
      })),
    }),
    '<scale-out test>',
  );
const gateways = [
  await startGateway(configOf([0, 1, 2]), pino({ level: 'silent' })),
  await startGateway(configOf([2, 1, 0]), pino({ level: 'silent' })),
];
t.teardown(() => Promise.all(gateways.map((g) => g.close())));

/** Which replica saw `text` last (each text is sent once). */
const holder = (text: string): number => agents.findIndex((a) => a.lastCall()?.text === text);

async function send(client: Client, text: string, ids: { taskId?: string; contextId?: string } = {}): Promise<Task> {
  const r = await client.sendMessage({
    tenant: '',
    message: { ...sdkMessage(text), taskId: ids.taskId ?? '', contextId: ids.contextId ?? '' },
    configuration: undefined,
    metadata: undefined,
  });
  if (!('status' in r)) throw new Error('expected a Task');
  return r;
}

for (const inbound of BINDINGS) {
  for (const upstream of BINDINGS) {
    t.test(`SDK ${inbound} clients on two gateways → three ${upstream} replicas`, async (tt) => {
      const path = `/r-${slug(upstream)}/.well-known/agent-card.json`;
      const clients = await Promise.all(gateways.map((g) => sdkClient(inbound, `${g.httpUrl}${path}`)));
      let turn = 0;
      const next = (): Client => clients[turn++ % 2]!;

      const task = await send(next(), 'input');
      tt.equal(task.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED, 'SendMessage: a task waiting for input');
      tt.equal((await next().getTask({ tenant: '', id: task.id, historyLength: undefined })).id, task.id, 'GetTask');
      const again = await send(next(), 'input', { taskId: task.id, contextId: task.contextId });
      tt.equal(again.id, task.id, 'a follow-up SendMessage continues the same task');

      const config = {
        tenant: '',
        taskId: task.id,
        id: 'cfg-1',
        url: 'http://127.0.0.1:9/hook',
        token: 'tok',
        authentication: undefined,
      };
      tt.match(await next().createTaskPushNotificationConfig(config), { taskId: task.id, id: 'cfg-1' }, 'create');
      tt.match(await next().getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' }), {
        id: 'cfg-1',
      });
      const listed = await next().listTaskPushNotificationConfig({
        tenant: '',
        taskId: task.id,
        pageSize: 0,
        pageToken: '',
      });
      tt.same(
        listed.configs.map((c) => c.id),
        ['cfg-1'],
        'list',
      );
      await next().deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' });
      const canceled = await next().cancelTask({ tenant: '', id: task.id, metadata: undefined });
      tt.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED, 'CancelTask');

      // a long-running stream, resubscribed through the other gateway, ended by a cancel through the first
      const stream = next().sendMessageStream({
        tenant: '',
        message: sdkMessage('hold'),
        configuration: undefined,
        metadata: undefined,
      });
      const first = await stream.next();
      const held = first.value?.payload?.$case === 'task' ? first.value.payload.value : undefined;
      tt.ok(held, 'the stream starts with its task');
      const resubscribed = next().resubscribeTask({ tenant: '', id: held!.id });
      const snapshot = await resubscribed.next();
      tt.equal(snapshot.value?.payload?.$case, 'task', 'resubscribed on the replica that runs the task');
      const ended = await next().cancelTask({ tenant: '', id: held!.id, metadata: undefined });
      tt.equal(ended.status?.state, TaskState.TASK_STATE_CANCELED);
      for (const it of [stream, resubscribed]) {
        let last;
        for await (const e of it) last = e;
        tt.equal(
          last?.payload?.$case === 'statusUpdate' ? last.payload.value.status?.state : undefined,
          TaskState.TASK_STATE_CANCELED,
          'the stream ends canceled',
        );
      }

      // a new task in a known context goes where the context lives
      const a = `ctx-a-${inbound}-${upstream}`;
      const b = `ctx-b-${inbound}-${upstream}`;
      const opened = await send(next(), a);
      const home = holder(a);
      await send(next(), b, { contextId: opened.contextId });
      tt.equal(holder(b), home, 'the second task of the context is on the same replica');
    });
  }
}

t.test('the other gateway’s first read of a task goes to its replica (through Redis)', async (tt) => {
  // three new tasks through gateway A land on its next three round-robin picks (replicas in a row); gateway B, never
  // told of them, would pick its next three the other way round, which are right for one of them at most
  const path = `/r-${slug('JSONRPC')}/.well-known/agent-card.json`;
  const [viaA, viaB] = await Promise.all(gateways.map((g) => sdkClient('JSONRPC', `${g.httpUrl}${path}`)));
  const made: Array<{ id: string; home: number }> = [];
  for (let i = 0; i < 3; i++)
    made.push({ id: (await send(viaA!, `first-read-${i}`)).id, home: holder(`first-read-${i}`) });
  tt.same(new Set(made.map((m) => m.home)), new Set([0, 1, 2]), 'the three tasks are on the three replicas');
  for (const { id, home } of made) {
    const got = await viaB!.getTask({ tenant: '', id, historyLength: undefined }).then(
      (task) => task.id,
      (e: unknown) => String(e),
    );
    tt.equal(got, id, `gateway B's first GetTask of the task on replica-${home}`);
  }
});

t.test('calls were spread over the replicas', async (tt) => {
  tt.equal(agents.filter((a) => a.lastCall() !== undefined).length, 3, 'every replica served calls');
});
