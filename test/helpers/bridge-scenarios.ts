// The scenario list an A2A 0.3 caller (the official @a2a-js/sdk 0.3.14
// client) must pass against an echo agent (issue 13, tests): every method
// 0.3 and 1.0 both have — send (Task, Message, non-blocking), stream,
// get, cancel, resubscribe, push config set/get/list/delete, the
// authenticated extended card — the errors both have (unknown task, not
// cancelable) and extensions. It is run against the 1.3.0 SDK's own 0.3
// compatibility layer (the reference, bridge-reference.test.ts) and through
// the gateway (bridge-v03-client.test.ts, bridge-reference.test.ts): whatever
// the reference passes, the gateway must pass too.
import type { Test } from 'tap';
import type { Message, Part, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from 'a2a-sdk-03';
import { TaskNotCancelableError, TaskNotFoundError, withA2AExtensions, type Client } from 'a2a-sdk-03/client';
import { v03Message, type V03Transport } from './sdk-v03.js';

export const BRIDGE_EXTENSION = 'https://example.com/ext/bridge-test/v1';

type Event = Message | Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

export interface ScenarioContext {
  client: Client;
  transport: V03Transport;
  /** The extensions the agent saw requested on its last call. */
  seenExtensions(): string[] | undefined;
}

export interface Scenario {
  name: string;
  run(t: Test, ctx: ScenarioContext): Promise<void>;
}

const textOf = (parts: Array<{ kind: string; text?: string }> | undefined): string =>
  (parts ?? []).map((p) => (p.kind === 'text' ? p.text : '')).join('');

async function sendTask(client: Client, text: string): Promise<Task> {
  const r = await client.sendMessage({ message: v03Message(text) });
  if (r.kind !== 'task') throw new Error(`expected a task, got ${r.kind}`);
  return r;
}

async function next(it: AsyncIterator<Event>, what: string): Promise<Event> {
  const r = await it.next();
  if (r.done) throw new Error(`the stream ended before ${what}`);
  return r.value;
}

async function rest(it: AsyncIterator<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for (let r = await it.next(); !r.done; r = await it.next()) out.push(r.value);
  return out;
}

export const V03_SCENARIOS: readonly Scenario[] = [
  {
    name: 'message/send → a completed Task',
    async run(t, { client }) {
      const task = await sendTask(client, 'hello');
      t.equal(task.status.state, 'completed');
      t.ok(task.id && task.contextId, 'ids');
      t.equal(textOf(task.artifacts?.[0]?.parts), 'echo: hello', 'the echo artifact');
    },
  },
  {
    name: 'message/send → a Message',
    async run(t, { client }) {
      const r = await client.sendMessage({ message: v03Message('message') });
      t.equal(r.kind, 'message');
      t.equal(r.kind === 'message' && r.role, 'agent');
      t.equal(r.kind === 'message' && textOf(r.parts), 'a message, not a task');
    },
  },
  {
    name: 'message/send: text, data and file parts and metadata come back in the task history',
    async run(t, { client }) {
      const parts: Part[] = [
        { kind: 'text', text: 'parts' },
        { kind: 'data', data: { answer: 42, nested: { list: [1, 'two'] } } },
        { kind: 'file', file: { uri: 'https://example.com/a.png', mimeType: 'image/png' } },
        { kind: 'file', file: { bytes: Buffer.from('hello').toString('base64'), mimeType: 'text/plain' } },
      ];
      const task = await client.sendMessage({ message: v03Message('', { parts, metadata: { trace: 'm-1' } }) });
      t.equal(task.kind, 'task');
      const got = await client.getTask({ id: (task as Task).id, historyLength: 10 });
      const sent = got.history?.find((m) => m.role === 'user');
      t.match(sent?.parts, parts, 'every part as sent');
      t.same(sent?.metadata, { trace: 'm-1' }, 'message metadata');
      t.same(got.metadata, { echoed: true }, 'task metadata');
    },
  },
  {
    name: 'message/send with the taskId of an input-required task continues it',
    async run(t, { client }) {
      const first = await sendTask(client, 'input');
      const next = await client.sendMessage({
        message: v03Message('more', { taskId: first.id, contextId: first.contextId }),
      });
      t.equal(next.kind, 'task');
      t.equal((next as Task).id, first.id, 'the same task');
      t.equal((next as Task).contextId, first.contextId, 'the same context');
      t.equal((next as Task).status.state, 'completed');
    },
  },
  {
    name: 'message/send, blocking: false → returns before the task ends; then canceled',
    async run(t, { client }) {
      const r = await client.sendMessage({ message: v03Message('hold'), configuration: { blocking: false } });
      t.equal(r.kind, 'task');
      const task = r as Task;
      t.ok(['submitted', 'working'].includes(task.status.state), `not finished (${task.status.state})`);
      const canceled = await client.cancelTask({ id: task.id });
      t.equal(canceled.status.state, 'canceled');
    },
  },
  {
    name: 'message/stream → task, status-update, artifact chunks, final completed',
    async run(t, { client, transport }) {
      const events: Event[] = [];
      for await (const e of client.sendMessageStream({ message: v03Message('stream') })) events.push(e as Event);
      t.same(
        events.map((e) => e.kind),
        ['task', 'status-update', 'artifact-update', 'artifact-update', 'artifact-update', 'status-update'],
        'event kinds in order',
      );
      const arts = events.filter((e): e is TaskArtifactUpdateEvent => e.kind === 'artifact-update');
      t.same(
        arts.map((a) => !!a.lastChunk),
        [false, false, true],
        'lastChunk',
      );
      // 0.3.14's proto reader (REST, gRPC) drops `append` (its FromProto.taskArtifactUpdateEvent), reference included
      if (transport === 'JSONRPC')
        t.same(
          arts.map((a) => !!a.append),
          [false, true, true],
          'append',
        );
      t.equal(arts.map((a) => textOf(a.artifact.parts)).join(''), 'chunk one, chunk two, chunk three');
      const last = events.at(-1) as TaskStatusUpdateEvent;
      t.equal(last.status.state, 'completed');
      t.equal(last.final, true, 'the last event is final');
      const working = events[1] as TaskStatusUpdateEvent;
      t.equal(working.status.state, 'working');
      t.notOk(working.final, 'working is not final');
      t.equal(textOf(working.status.message?.parts), 'working on it', 'the status message');
    },
  },
  {
    name: 'message/stream → a Message alone; → an input-required task alone',
    async run(t, { client }) {
      const kinds = async (text: string) => {
        const out: Event[] = [];
        for await (const e of client.sendMessageStream({ message: v03Message(text) })) out.push(e as Event);
        return out;
      };
      const message = await kinds('message');
      t.same(
        message.map((e) => e.kind),
        ['message'],
      );
      t.equal(textOf((message[0] as Message).parts), 'a message, not a task');
      const input = await kinds('input');
      t.equal(input[0]?.kind, 'task');
      const last = input.at(-1)!;
      const state = last.kind === 'task' ? last.status.state : (last as TaskStatusUpdateEvent).status?.state;
      t.equal(state, 'input-required', 'ends input-required');
    },
  },
  {
    name: 'message/send in a context the caller names keeps it',
    async run(t, { client }) {
      const task = await client.sendMessage({ message: v03Message('ctx', { contextId: 'ctx-given-by-caller' }) });
      t.equal((task as Task).contextId, 'ctx-given-by-caller');
    },
  },
  {
    name: 'tasks/get (historyLength) → the task',
    async run(t, { client }) {
      const task = await sendTask(client, 'get me');
      const got = await client.getTask({ id: task.id, historyLength: 1 });
      t.equal(got.id, task.id);
      t.equal(got.status.state, 'completed');
      t.equal(textOf(got.history?.[0]?.parts), 'get me', 'history kept the message');
      t.equal(textOf(got.artifacts?.[0]?.parts), 'echo: get me');
    },
  },
  {
    name: 'tasks/get of an unknown task → TaskNotFoundError',
    async run(t, { client }) {
      await t.rejects(client.getTask({ id: 'no-such-task' }), TaskNotFoundError);
    },
  },
  {
    name: 'tasks/cancel and tasks/pushNotificationConfig/set of an unknown task → TaskNotFoundError',
    async run(t, { client }) {
      await t.rejects(client.cancelTask({ id: 'no-such-task' }), TaskNotFoundError, 'cancel');
      const config = { taskId: 'no-such-task', pushNotificationConfig: { id: 'c', url: 'https://example.com/h' } };
      await t.rejects(client.setTaskPushNotificationConfig(config), TaskNotFoundError, 'push config');
    },
  },
  {
    name: 'tasks/cancel of an input-required task → canceled',
    async run(t, { client }) {
      const task = await sendTask(client, 'input');
      t.equal(task.status.state, 'input-required');
      const canceled = await client.cancelTask({ id: task.id });
      t.equal(canceled.id, task.id);
      t.equal(canceled.status.state, 'canceled');
    },
  },
  {
    name: 'tasks/cancel of a completed task → TaskNotCancelableError',
    async run(t, { client }) {
      const task = await sendTask(client, 'done');
      await t.rejects(client.cancelTask({ id: task.id }), TaskNotCancelableError);
    },
  },
  {
    name: 'tasks/resubscribe to a held stream; canceling ends both with a final canceled',
    async run(t, { client }) {
      const first = client.sendMessageStream({ message: v03Message('hold') })[Symbol.asyncIterator]();
      const task = (await next(first, 'the task')) as Task;
      t.equal(task.kind, 'task');
      const working = (await next(first, 'working')) as TaskStatusUpdateEvent;
      t.equal(working.status.state, 'working');
      const again = client.resubscribeTask({ id: task.id })[Symbol.asyncIterator]();
      const head = await next(again, 'the resubscribed head');
      t.equal(head.kind === 'task' ? head.id : (head as TaskStatusUpdateEvent).taskId, task.id, 'same task');
      const canceled = await client.cancelTask({ id: task.id });
      t.equal(canceled.status.state, 'canceled');
      for (const [name, it] of [
        ['the first stream', first],
        ['the resubscription', again],
      ] as const) {
        const tail = (await rest(it)).filter((e): e is TaskStatusUpdateEvent => e.kind === 'status-update');
        t.equal(tail.at(-1)?.status.state, 'canceled', `${name} ends canceled`);
        t.equal(tail.at(-1)?.final, true, `${name}: final`);
      }
    },
  },
  {
    name: 'tasks/resubscribe to an unknown task → TaskNotFoundError',
    async run(t, { client }) {
      const it = client.resubscribeTask({ id: 'no-such-task' })[Symbol.asyncIterator]();
      const err = await it.next().then(
        () => undefined,
        (e: Error) => e,
      );
      // 0.3.14's JSON-RPC stream reader wraps the error it read (as its `cause`)
      const found = err instanceof TaskNotFoundError || err?.cause instanceof TaskNotFoundError;
      t.ok(found, `TaskNotFoundError (${String(err?.message)})`);
    },
  },
  {
    name: 'tasks/pushNotificationConfig set, get, list, delete',
    async run(t, { client }) {
      const task = await sendTask(client, 'push');
      const config = {
        id: 'cfg-1',
        url: 'https://example.com/hook',
        token: 'tok-1',
        authentication: { schemes: ['Bearer'], credentials: 'secret' },
      };
      const set = await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: config });
      t.equal(set.taskId, task.id);
      t.match(set.pushNotificationConfig, { id: 'cfg-1', url: config.url, token: 'tok-1' }, 'set answers the config');
      const got = await client.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'cfg-1' } as {
        id: string;
      });
      t.match(got, { taskId: task.id, pushNotificationConfig: { id: 'cfg-1', url: config.url } }, 'get');
      t.same(got.pushNotificationConfig.authentication?.schemes, ['Bearer'], 'authentication scheme kept');
      const list = await client.listTaskPushNotificationConfig({ id: task.id });
      t.same(
        list.map((c) => c.pushNotificationConfig.id),
        ['cfg-1'],
        'list',
      );
      await client.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'cfg-1' });
      t.same(await client.listTaskPushNotificationConfig({ id: task.id }), [], 'deleted');
    },
  },
  {
    name: 'agent/getAuthenticatedExtendedCard → the extended card',
    async run(t, { client }) {
      const card = await client.getAgentCard();
      t.match(card.name, /\(extended\)$/, 'the extended card');
      t.equal(card.protocolVersion?.startsWith('0.3'), true, 'in the 0.3 shape');
      t.ok(card.url, 'it names where to call');
    },
  },
  {
    name: 'X-A2A-Extensions reaches the agent',
    async run(t, { client, seenExtensions }) {
      const options = { serviceParameters: { ...withA2AExtensionsParams(BRIDGE_EXTENSION) } };
      const task = await client.sendMessage({ message: v03Message('with extension') }, options);
      t.equal(task.kind, 'task');
      t.same(seenExtensions(), [BRIDGE_EXTENSION], 'the agent saw the extension requested');
    },
  },
];

function withA2AExtensionsParams(...uris: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  withA2AExtensions(...uris)(params);
  return params;
}
