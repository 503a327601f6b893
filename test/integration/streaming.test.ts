// Streaming across the 9 binding pairs with real SDK agents: SendStreamingMessage
// event-by-event equal to what the agent published, SubscribeToTask (REST by
// GET and POST), errors before the first event in the caller's binding, the
// capability check, the SSE headers, and the official SDK clients'
// sendMessageStream / resubscribeTask through the gateway.
import t from 'tap';
import { request } from 'undici';
import type { Binding } from '../../src/config/types.js';
import { CATALOGUE, GRPC_CODES, type ErrorName } from '../../src/errors/catalogue.js';
import type { JsonObject } from '../../src/proto/json.js';
import { sdkClient, sdkMessage } from '../helpers/sdk.js';
import { BINDINGS, CALLERS, closeGrpcClients, slug, startHarness, userMessage } from '../helpers/harness.js';
import { STREAM_CALLERS, streamRest, type StreamResult } from '../helpers/streams.js';
import { waitFor } from '../helpers/wait.js';

const h = await startHarness();
t.teardown(async () => {
  closeGrpcClients();
  await h.close();
});

function expectCode(inbound: Binding, name: ErrorName): number | string {
  const row = CATALOGUE[name];
  return inbound === 'JSONRPC' ? row.jsonRpc : inbound === 'HTTP+JSON' ? row.grpc : GRPC_CODES[row.grpc];
}

const until = (cond: () => boolean, what: string): Promise<boolean> => waitFor(cond, what);

for (const inbound of BINDINGS) {
  for (const upstream of BINDINGS) {
    t.test(`${inbound} → ${upstream}`, async (tt) => {
      const opts = { tenant: `up-${slug(upstream)}`, prefix: `/up-${slug(upstream)}` };
      const call = STREAM_CALLERS[inbound];

      const sent = await call(h.gateway, 'SendStreamingMessage', { message: userMessage('stream') }, opts);
      tt.equal(sent.error, undefined, 'ends cleanly');
      tt.same(
        sent.events.map((e) => Object.keys(e)[0]),
        ['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate'],
      );
      tt.same(sent.events, h.agent.published(), 'event by event what the agent published, in order');
      const last = sent.events[4]?.artifactUpdate as JsonObject;
      tt.same([last.append, last.lastChunk], [true, true], 'append / lastChunk kept');

      // SubscribeToTask to a long-running task, ended by CancelTask.
      const held = await call(
        h.gateway,
        'SendStreamingMessage',
        { message: userMessage('hold') },
        { ...opts, take: 2 },
      );
      const taskId = String(((held.events[0]?.task ?? {}) as JsonObject).id ?? '');
      tt.ok(taskId, 'a held task');
      await until(() => h.agent.openCalls() === 0, 'the caller hanging up to close the upstream call');
      const before = h.agent.openCalls();
      const subscribed = (
        inbound === 'HTTP+JSON'
          ? streamRest(
              h.gateway,
              'SubscribeToTask',
              { id: taskId },
              { ...opts, verb: upstream === 'GRPC' ? 'GET' : 'POST' },
            )
          : call(h.gateway, 'SubscribeToTask', { id: taskId }, opts)
      ) as Promise<StreamResult>;
      await until(() => h.agent.openCalls() > before, 'the subscription to reach the agent');
      const canceled = await CALLERS[inbound](h.gateway, 'CancelTask', { id: taskId }, opts);
      tt.equal((canceled.result?.status as JsonObject | undefined)?.state, 'TASK_STATE_CANCELED', 'CancelTask');
      const sub = await subscribed;
      tt.equal(sub.error, undefined, 'the subscription ends cleanly with the task');
      tt.equal(((sub.events[0]?.task ?? {}) as JsonObject).id, taskId, 'the subscription starts with the task');
      tt.equal(
        ((sub.events.at(-1)?.statusUpdate as JsonObject | undefined)?.status as JsonObject | undefined)?.state,
        'TASK_STATE_CANCELED',
        'and ends with its cancellation',
      );

      // Errors before the first event are ordinary errors in the caller's binding.
      const missing = await call(h.gateway, 'SubscribeToTask', { id: 'no-such-task' }, opts);
      tt.same(
        [missing.events.length, missing.error?.afterEvents, missing.error?.code],
        [0, false, expectCode(inbound, 'TASK_NOT_FOUND')],
        'TaskNotFound before any event',
      );
      if (inbound === 'JSONRPC')
        tt.match(missing.contentType, 'application/json', 'JSON-RPC: a plain JSON error body, as the SDK answers');
      if (inbound === 'HTTP+JSON') tt.equal(missing.httpStatus, 404, 'REST: HTTP 404');
      tt.equal(missing.error?.details.find((d) => d.reason)?.reason, 'TASK_NOT_FOUND', 'with its ErrorInfo');

      // §3.3.4: an agent whose card does not declare streaming.
      const noStream = await call(
        h.gateway,
        'SendStreamingMessage',
        { message: userMessage('not streamed') },
        { tenant: `nopush-${slug(upstream)}`, prefix: `/nopush-${slug(upstream)}` },
      );
      tt.same(
        [noStream.error?.code, noStream.events.length],
        [expectCode(inbound, 'UNSUPPORTED_OPERATION'), 0],
        'UnsupportedOperation',
      );
      tt.notSame(h.noPushAgent.lastCall()?.text, 'not streamed', 'decided from the card, without calling the agent');
    });
  }
}

t.test('SSE headers: no buffering by proxies in front', async (tt) => {
  const res = await request(`${h.gateway.httpUrl}/up-jsonrpc/up-jsonrpc/message:stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ message: userMessage('stream') }),
  });
  await res.body.text();
  tt.match(res.headers, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  });
});

for (const inbound of BINDINGS) {
  t.test(`SDK ${inbound} client streams through the gateway to every upstream`, async (tt) => {
    for (const upstream of BINDINGS) {
      const client = await sdkClient(inbound, `${h.gateway.httpUrl}/up-${slug(upstream)}/.well-known/agent-card.json`);
      const kinds: string[] = [];
      for await (const ev of client.sendMessageStream({
        tenant: '',
        message: sdkMessage('stream'),
        configuration: undefined,
        metadata: undefined,
      })) {
        kinds.push(ev.payload?.$case ?? '?');
      }
      tt.same(
        kinds,
        ['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate'],
        `sendMessageStream via ${upstream}`,
      );
      const err = await (async () => {
        try {
          for await (const _ of client.resubscribeTask({ tenant: '', id: 'missing' })) void _;
        } catch (e) {
          return e as Error;
        }
        return undefined;
      })();
      tt.match(
        err?.constructor.name ?? '',
        /TaskNotFound/,
        `resubscribeTask to an unknown task via ${upstream}: TaskNotFoundError`,
      );

      // resubscribeTask to a long-running task, ended by cancelTask from the same client.
      const held = await STREAM_CALLERS[inbound](
        h.gateway,
        'SendStreamingMessage',
        { message: userMessage('hold') },
        { tenant: `up-${slug(upstream)}`, prefix: `/up-${slug(upstream)}`, take: 1 },
      );
      const taskId = String((held.events[0]?.task as JsonObject).id);
      await until(() => h.agent.openCalls() === 0, 'the first caller to be gone');
      const seen: string[] = [];
      const resubscribed = (async () => {
        for await (const ev of client.resubscribeTask({ tenant: '', id: taskId })) seen.push(ev.payload?.$case ?? '?');
      })();
      await until(() => h.agent.openCalls() > 0, 'the resubscription to reach the agent');
      await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
      await resubscribed;
      tt.same(
        [seen[0], seen.at(-1)],
        ['task', 'statusUpdate'],
        `resubscribeTask via ${upstream}: the task, then updates to the end`,
      );
    }
  });
}
