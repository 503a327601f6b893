// The whole unary matrix: 9 methods × 9 (inbound × upstream) binding pairs
// against real @a2a-js/sdk agents, with the A2A errors crossing every pair
// checked on the wire (code, message, reason, details) and the service
// parameters checked where the upstream receives them.
import t, { type Test } from 'tap';
import type { Binding } from '../../src/config/types.js';
import { CATALOGUE, GRPC_CODES, type ErrorName } from '../../src/errors/catalogue.js';
import type { JsonObject } from '../../src/proto/json.js';
import {
  BINDINGS,
  CALLERS,
  closeGrpcClients,
  slug,
  startHarness,
  userMessage,
  type CallOptions,
  type WireResult,
} from '../helpers/harness.js';

const h = await startHarness();
t.teardown(async () => {
  closeGrpcClients();
  await h.close();
});

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** Asserts an error is `name` in the caller's binding, with its ErrorInfo. */
function assertError(tt: Test, inbound: Binding, r: WireResult, name: ErrorName, messagePart?: string): void {
  const row = CATALOGUE[name];
  tt.equal(r.ok, false, `${name}: is an error`);
  if (inbound === 'JSONRPC') {
    tt.equal(r.code, row.jsonRpc, `${name}: JSON-RPC code`);
    tt.equal(r.httpStatus, 200, `${name}: JSON-RPC errors travel in HTTP 200`);
  } else if (inbound === 'HTTP+JSON') {
    tt.equal(r.httpStatus, row.http, `${name}: HTTP status`);
    tt.equal(r.code, row.http, `${name}: error.code`);
    tt.equal(r.status, row.grpc, `${name}: error.status`);
  } else {
    tt.equal(r.code, GRPC_CODES[row.grpc], `${name}: gRPC status`);
  }
  if (messagePart) tt.match(r.message ?? '', messagePart, `${name}: message kept`);
  const info = (r.details ?? []).find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
  if (row.kind === 'a2a') {
    tt.ok(info, `${name}: ErrorInfo present`);
    tt.equal(info?.reason, name, `${name}: ErrorInfo.reason`);
    tt.equal(info?.domain, 'a2a-protocol.org', `${name}: ErrorInfo.domain`);
  }
}

for (const inbound of BINDINGS) {
  for (const upstream of BINDINGS) {
    t.test(`${inbound} → ${upstream}`, async (tt) => {
      const call = CALLERS[inbound];
      const opts: CallOptions = {
        tenant: `up-${slug(upstream)}`,
        prefix: `/up-${slug(upstream)}`,
        headers: {
          'A2A-Extensions': 'https://example.com/ext/a/v1, https://example.com/ext/b/v1',
          traceparent: TRACEPARENT,
          authorization: 'Bearer secret-token',
          'x-allowed': 'yes',
          'x-not-allowed': 'no',
        },
      };
      const noPush: CallOptions = { ...opts, tenant: `nopush-${slug(upstream)}`, prefix: `/nopush-${slug(upstream)}` };

      // SendMessage → a Task; service parameters arrive upstream.
      const sent = await call(
        h.gateway,
        'SendMessage',
        { message: userMessage('hello', { metadata: { n: 1, on: true } }) },
        opts,
      );
      tt.equal(sent.ok, true, 'SendMessage ok');
      const task = (sent.result?.task ?? {}) as JsonObject;
      tt.equal((task.status as JsonObject).state, 'TASK_STATE_COMPLETED');
      tt.same(((task.artifacts as JsonObject[])[0]?.parts as JsonObject[])[0], {
        text: 'echo: hello',
        mediaType: 'text/plain',
      });
      tt.same(task.metadata, { echoed: true }, 'Struct metadata crosses intact');
      const seen = h.agent.lastCall();
      tt.equal(seen?.text, 'hello');
      tt.equal(seen?.version, '1.0', 'upstream sees A2A-Version 1.0');
      tt.equal(
        seen?.headers['a2a-extensions'],
        'https://example.com/ext/a/v1,https://example.com/ext/b/v1',
        'extensions comma-joined',
      );
      tt.equal(seen?.headers.traceparent, TRACEPARENT, 'traceparent forwarded');
      tt.equal(seen?.headers.authorization, 'Bearer secret-token', 'Authorization forwarded');
      tt.equal(seen?.headers['x-allowed'], 'yes', 'allow-listed header forwarded');
      tt.equal(seen?.headers['x-not-allowed'], undefined, 'other headers dropped');
      const id = String(task.id);

      // SendMessage → a Message (the other member of the oneof).
      const msg = await call(h.gateway, 'SendMessage', { message: userMessage('message') }, opts);
      tt.equal((msg.result?.message as JsonObject)?.role, 'ROLE_AGENT', 'Message reply');

      const got = await call(h.gateway, 'GetTask', { id, historyLength: 1 }, opts);
      tt.equal(got.result?.id, id, 'GetTask');
      const listed = await call(h.gateway, 'ListTasks', { pageSize: 100 }, opts);
      tt.ok(
        (listed.result?.tasks as JsonObject[]).some((x) => x.id === id),
        'ListTasks has the task',
      );
      tt.equal(listed.result?.pageSize, 100, 'ListTasks pageSize');

      const waiting = await call(h.gateway, 'SendMessage', { message: userMessage('input') }, opts);
      const waitingId = String((waiting.result?.task as JsonObject).id);
      const canceled = await call(h.gateway, 'CancelTask', { id: waitingId }, opts);
      tt.equal((canceled.result?.status as JsonObject)?.state, 'TASK_STATE_CANCELED', 'CancelTask');

      const cfg = { taskId: id, id: 'cfg-1', url: 'https://example.com/hook', token: 'tok' };
      const created = await call(h.gateway, 'CreateTaskPushNotificationConfig', cfg, opts);
      tt.same(created.result, cfg, 'CreateTaskPushNotificationConfig');
      const fetched = await call(h.gateway, 'GetTaskPushNotificationConfig', { taskId: id, id: 'cfg-1' }, opts);
      tt.same(fetched.result, cfg, 'GetTaskPushNotificationConfig');
      const configs = await call(h.gateway, 'ListTaskPushNotificationConfigs', { taskId: id }, opts);
      tt.same(configs.result?.configs, [cfg], 'ListTaskPushNotificationConfigs');
      const deleted = await call(h.gateway, 'DeleteTaskPushNotificationConfig', { taskId: id, id: 'cfg-1' }, opts);
      tt.same(deleted.result, {}, 'DeleteTaskPushNotificationConfig → Empty');
      const after = await call(h.gateway, 'ListTaskPushNotificationConfigs', { taskId: id }, opts);
      tt.same(after.result?.configs ?? [], [], 'config gone');

      const card = await call(h.gateway, 'GetExtendedAgentCard', {}, opts);
      tt.match(card.result?.name, /Echo Agent/, 'GetExtendedAgentCard');

      // A2A errors from the upstream, in the caller's binding.
      assertError(
        tt,
        inbound,
        await call(h.gateway, 'GetTask', { id: 'no-such-task' }, opts),
        'TASK_NOT_FOUND',
        'no-such-task',
      );
      assertError(tt, inbound, await call(h.gateway, 'CancelTask', { id }, opts), 'TASK_NOT_CANCELABLE', id);
      assertError(
        tt,
        inbound,
        await call(h.gateway, 'CreateTaskPushNotificationConfig', { taskId: id, url: 'https://example.com/h' }, noPush),
        'PUSH_NOTIFICATION_NOT_SUPPORTED',
      );
      const upstreamInvalid = await call(h.gateway, 'ListTasks', { pageSize: 1000 }, opts);
      assertError(tt, inbound, upstreamInvalid, 'INVALID_PARAMS', 'pageSize');
      tt.ok(
        upstreamInvalid.details?.some((d) => d.reason === 'INVALID_PARAMS'),
        "the upstream's ErrorInfo is kept",
      );

      // Errors the gateway itself answers, before any upstream call.
      const badVersion = await call(
        h.gateway,
        'GetTask',
        { id },
        { ...opts, headers: { ...opts.headers, 'a2a-version': '2.0' } },
      );
      assertError(tt, inbound, badVersion, 'VERSION_NOT_SUPPORTED', '2.0');
      const missing = await call(
        h.gateway,
        'SendMessage',
        { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } },
        opts,
      );
      assertError(tt, inbound, missing, 'INVALID_PARAMS');
      const bad = missing.details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
      tt.same(
        bad?.fieldViolations,
        [{ field: 'message.parts', description: 'message.parts is required' }],
        'BadRequest names the field',
      );
    });
  }
}
