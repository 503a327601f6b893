// The scenario list a 1.0 caller (the official @a2a-js/sdk 1.3.0 client)
// must pass through the gateway against an A2A 0.3 agent (issue 13, tests;
// bridge-v1-client.test.ts): every method both versions have — send (Task,
// Message, every kind of part, returnImmediately), stream, get, cancel,
// resubscribe, push config create/get/list/delete, the extended card — the
// errors both have (unknown task, not cancelable), extensions (A2A-Extensions
// reaching the 0.3 agent as X-A2A-Extensions) and ListTasks, which 0.3 lacks
// (UnsupportedOperation). The lossy case of the notes is checked as
// documented: a non-object data value comes back as itself from a 0.3
// JSON-RPC agent (data_part_compat) and as {value: X} from a 0.3 proto one.
import type { Test } from 'tap';
import { Role, TaskState, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { withA2AExtensions, type Client } from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { SeenV03Call, V03Binding } from './echo-agent-v03.js';
import { sdkMessage } from './sdk.js';

export const V1_EXTENSION = 'https://example.com/ext/bridge-v1/v1';

export interface V1ScenarioContext {
  client: Client;
  /** The binding the gateway calls the 0.3 agent over. */
  upstream: V03Binding;
  lastCall(): SeenV03Call | undefined;
}

export interface V1Scenario {
  name: string;
  run(t: Test, ctx: V1ScenarioContext): Promise<void>;
}

const part = (content: Part['content'], extra: Partial<Part> = {}): Part => ({
  content,
  metadata: undefined,
  filename: '',
  mediaType: '',
  ...extra,
});
const textOf = (parts: Part[] | undefined): string =>
  (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
const send = (client: Client, message: Message, returnImmediately = false) =>
  client.sendMessage({
    tenant: '',
    message,
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
    metadata: undefined,
  });

async function sendTask(client: Client, text: string): Promise<Task> {
  const r = await send(client, sdkMessage(text));
  if (!('status' in r)) throw new Error('expected a Task');
  return r;
}

const kinds = (events: StreamResponse[]) => events.map((e) => e.payload?.$case);
const stateOf = (e: StreamResponse | undefined) =>
  e?.payload?.$case === 'statusUpdate' ? e.payload.value.status?.state : undefined;

async function drain(it: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of it) out.push(e);
  return out;
}

export const V1_SCENARIOS: readonly V1Scenario[] = [
  {
    name: 'SendMessage → a completed Task',
    async run(t, { client, lastCall }) {
      const task = await sendTask(client, 'hello');
      t.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      t.equal(textOf(task.artifacts[0]?.parts), 'echo: hello');
      t.same(task.metadata, { echoed: true }, 'task metadata');
      t.equal(lastCall()?.text, 'hello', 'the 0.3 agent got the text');
    },
  },
  {
    name: 'SendMessage → a Message',
    async run(t, { client }) {
      const r = await send(client, sdkMessage('message'));
      t.notOk('status' in r, 'a Message');
      t.equal((r as Message).role, Role.ROLE_AGENT);
      t.equal(textOf((r as Message).parts), 'a message, not a task');
    },
  },
  {
    name: 'SendMessage: every kind of part; a non-object data value is the documented lossy case',
    async run(t, { client, upstream }) {
      const parts = [
        part({ $case: 'text', value: 'parts' }),
        part({ $case: 'data', value: { answer: 42 } }),
        part({ $case: 'data', value: [1, 'two'] }),
        part({ $case: 'url', value: 'https://example.com/a.png' }, { mediaType: 'image/png' }),
        part({ $case: 'raw', value: Buffer.from('hello') }, { mediaType: 'text/plain' }),
      ];
      const task = await send(client, { ...sdkMessage(''), parts });
      const got = await client.getTask({ tenant: '', id: (task as Task).id, historyLength: 10 });
      const back = got.history.find((m) => m.role === Role.ROLE_USER)?.parts ?? [];
      t.same(
        back.map((p) => p.content?.$case),
        ['text', 'data', 'data', 'url', 'raw'],
        'every part',
      );
      t.same(back[1]?.content?.value, { answer: 42 }, 'object data');
      // 0.3 data is an object: JSON-RPC carries the wrap's flag in part metadata, the 0.3 proto has no part metadata
      const list = upstream === 'JSONRPC' ? [1, 'two'] : { value: [1, 'two'] };
      t.same(back[2]?.content?.value, list, 'non-object data');
      t.equal(back[3]?.content?.value, 'https://example.com/a.png', 'file by URL');
      t.equal(back[3]?.mediaType, 'image/png');
      t.equal(Buffer.from(back[4]?.content?.value as Uint8Array).toString(), 'hello', 'file by bytes');
    },
  },
  {
    name: 'SendMessage, returnImmediately → the task before it ends; then canceled',
    async run(t, { client }) {
      const r = (await send(client, sdkMessage('hold'), true)) as Task;
      t.ok([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING].includes(r.status!.state), 'not finished');
      const canceled = await client.cancelTask({ tenant: '', id: r.id, metadata: undefined });
      t.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
    },
  },
  {
    name: 'SendStreamingMessage → task, working, artifact chunks, completed',
    async run(t, { client }) {
      const events = await drain(
        client.sendMessageStream({
          tenant: '',
          message: sdkMessage('stream'),
          configuration: undefined,
          metadata: undefined,
        }),
      );
      t.same(kinds(events), [
        'task',
        'statusUpdate',
        'artifactUpdate',
        'artifactUpdate',
        'artifactUpdate',
        'statusUpdate',
      ]);
      const arts = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value] : []));
      t.same(
        arts.map((a) => [a.append, a.lastChunk]),
        [
          [false, false],
          [true, false],
          [true, true],
        ],
        'append and lastChunk',
      );
      t.equal(arts.map((a) => textOf(a.artifact?.parts)).join(''), 'chunk one, chunk two, chunk three');
      t.equal(stateOf(events[1]), TaskState.TASK_STATE_WORKING);
      t.equal(stateOf(events.at(-1)), TaskState.TASK_STATE_COMPLETED);
    },
  },
  {
    name: 'GetTask (historyLength); unknown → TaskNotFoundError',
    async run(t, { client }) {
      const task = await sendTask(client, 'get me');
      const got = await client.getTask({ tenant: '', id: task.id, historyLength: 1 });
      t.equal(got.id, task.id);
      t.equal(textOf(got.history[0]?.parts), 'get me');
      await t.rejects(client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined }), TaskNotFoundError);
    },
  },
  {
    name: 'SendStreamingMessage → a Message alone; SendMessage continuing an input-required task',
    async run(t, { client }) {
      const params = { tenant: '', message: sdkMessage('message'), configuration: undefined, metadata: undefined };
      t.same(kinds(await drain(client.sendMessageStream(params))), ['message']);
      const input = await sendTask(client, 'input');
      const more = await send(client, { ...sdkMessage('more'), taskId: input.id, contextId: input.contextId });
      t.equal((more as Task).id, input.id, 'the same task');
      t.equal((more as Task).status?.state, TaskState.TASK_STATE_COMPLETED);
    },
  },
  {
    name: 'unknown task: CancelTask, SubscribeToTask, CreateTaskPushNotificationConfig → TaskNotFoundError',
    async run(t, { client, upstream }) {
      await t.rejects(client.cancelTask({ tenant: '', id: 'no-such-task', metadata: undefined }), TaskNotFoundError);
      const subscribed = drain(client.resubscribeTask({ tenant: '', id: 'no-such-task' }));
      // 0.3.14's REST server answers an error before a stream's first event with its own internal error
      if (upstream === 'HTTP+JSON') await t.rejects(subscribed, /Bug: toJson serializer/, "the REST agent's own error");
      else await t.rejects(subscribed, TaskNotFoundError);
      const config = {
        tenant: '',
        taskId: 'no-such-task',
        id: 'c',
        url: 'https://example.com/h',
        token: '',
        authentication: undefined,
      };
      await t.rejects(client.createTaskPushNotificationConfig(config), TaskNotFoundError);
    },
  },
  {
    name: 'CancelTask: input-required → canceled; completed → TaskNotCancelableError',
    async run(t, { client }) {
      const input = await sendTask(client, 'input');
      t.equal(input.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      const canceled = await client.cancelTask({ tenant: '', id: input.id, metadata: undefined });
      t.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
      const done = await sendTask(client, 'done');
      await t.rejects(client.cancelTask({ tenant: '', id: done.id, metadata: undefined }), TaskNotCancelableError);
    },
  },
  {
    name: 'SubscribeToTask on a held stream; canceling ends both streams canceled',
    async run(t, { client }) {
      const first = client.sendMessageStream({
        tenant: '',
        message: sdkMessage('hold'),
        configuration: undefined,
        metadata: undefined,
      });
      const head = (await first.next()).value as StreamResponse;
      t.equal(head.payload?.$case, 'task');
      const id = head.payload?.$case === 'task' ? head.payload.value.id : '';
      t.equal(stateOf((await first.next()).value as StreamResponse), TaskState.TASK_STATE_WORKING);
      const again = client.resubscribeTask({ tenant: '', id });
      t.equal(
        ((await again.next()).value as StreamResponse).payload?.$case,
        'task',
        'the subscription starts with the task',
      );
      const canceled = await client.cancelTask({ tenant: '', id, metadata: undefined });
      t.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
      t.equal(stateOf((await drain(first)).at(-1)), TaskState.TASK_STATE_CANCELED, 'the stream ends canceled');
      t.equal(stateOf((await drain(again)).at(-1)), TaskState.TASK_STATE_CANCELED, 'the subscription ends canceled');
    },
  },
  {
    name: 'push notification config create, get, list, delete',
    async run(t, { client }) {
      const task = await sendTask(client, 'push');
      const config = {
        tenant: '',
        taskId: task.id,
        id: 'cfg-1',
        url: 'https://example.com/hook',
        token: 'tok-1',
        authentication: { scheme: 'Bearer', credentials: 'secret' },
      };
      t.match(await client.createTaskPushNotificationConfig(config), { taskId: task.id, id: 'cfg-1', url: config.url });
      const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' });
      t.match(got, { taskId: task.id, id: 'cfg-1', token: 'tok-1', authentication: { scheme: 'Bearer' } }, 'get');
      const list = await client.listTaskPushNotificationConfig({
        tenant: '',
        taskId: task.id,
        pageSize: 0,
        pageToken: '',
      });
      t.same(
        list.configs.map((c) => c.id),
        ['cfg-1'],
        'list',
      );
      await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' });
      const after = await client.listTaskPushNotificationConfig({
        tenant: '',
        taskId: task.id,
        pageSize: 0,
        pageToken: '',
      });
      t.same(after.configs, [], 'deleted');
    },
  },
  {
    name: 'GetExtendedAgentCard → the 0.3 agent’s extended card',
    async run(t, { client }) {
      const card = await client.getAgentCard();
      t.match(card.name, /\(extended\)$/);
      t.ok(card.capabilities?.extendedAgentCard, 'supportsAuthenticatedExtendedCard → capabilities.extendedAgentCard');
    },
  },
  {
    name: 'A2A-Extensions reaches the 0.3 agent as X-A2A-Extensions',
    async run(t, { client, lastCall }) {
      const serviceParameters: Record<string, string> = {};
      withA2AExtensions(V1_EXTENSION)(serviceParameters);
      await client.sendMessage(
        { tenant: '', message: sdkMessage('extended'), configuration: undefined, metadata: undefined },
        { serviceParameters },
      );
      const seen = lastCall()!;
      t.same(seen.extensions, [V1_EXTENSION], 'the agent read the extension');
      t.equal(seen.headers['x-a2a-extensions'], V1_EXTENSION, 'as X-A2A-Extensions');
      t.notOk('a2a-extensions' in seen.headers, 'not as A2A-Extensions');
      t.ok(['', '0.3'].includes(seen.version), `A2A-Version absent or 0.3 (${seen.version || 'absent'})`);
    },
  },
  {
    name: 'ListTasks → UnsupportedOperationError (0.3 has no ListTasks)',
    async run(t, { client }) {
      const listed = client.listTasks({
        tenant: '',
        contextId: '',
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 10,
        pageToken: '',
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: undefined,
      });
      await t.rejects(listed, UnsupportedOperationError);
    },
  },
];
