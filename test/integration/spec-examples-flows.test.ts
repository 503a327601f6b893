// Conformance: the A2A 1.0 specification's own examples that span more than one call work through the gateway,
// sent as raw HTTP exactly as written (test/fixtures/spec-examples.ts: each with its section and what was
// adapted) to a route per upstream binding (SDK echo agents over JSON-RPC, HTTP+JSON and gRPC). This file owns
// the streams — §6.2, §11.7, §9.4.2 (a Task first, updates, closed at a terminal state: §3.1.2), §9.4.6 and
// §11.3.2 SubscribeToTask (the Task first, closed by its cancellation: §3.1.6; a terminal task refused with
// UnsupportedOperationError) — task listing (§6.5, §11.5, §9.4.4: filters, pagination, §3.1.4's nextPageToken
// and omitted artifacts) and push notifications (§6.6: the webhook gets the StreamResponse with the
// Authorization shown; §11.3.3 and §9.4.7: the configuration methods). The unary examples:
// spec-examples.test.ts.
import t, { type Test } from 'tap';
import type { JsonObject } from '../../src/proto/json.js';
import {
  CANCEL,
  LISTS,
  PUSH,
  STREAMS,
  SUBSCRIBE_TERMINAL,
  UNARY,
  type SpecExample,
} from '../fixtures/spec-examples.js';
import {
  check,
  eventMismatches,
  kinds,
  notification,
  send,
  startSpecRig,
  type Vars,
} from '../helpers/spec-examples.js';

const rig = await startSpecRig();
t.teardown(() => rig.close());

const C295 = 'c295ea44-7543-4f78-b524-7a38915ad6e4';
const HOLD: SpecExample = {
  ...STREAMS[0]!,
  body: { message: { role: 'ROLE_USER', parts: [{ text: 'hold' }], messageId: 'h' } },
};
const STREAM_RESPONSE = ['task', 'message', 'statusUpdate', 'artifactUpdate'];
const taskOf = (body: JsonObject | undefined): JsonObject => (body?.task ?? {}) as JsonObject;

for (const route of rig.routes) {
  const label = `→ ${route.binding}`;
  const vars: Vars = { webhook: rig.webhookUrl };
  const run = async (tt: Test, ex: SpecExample, onEvent?: (n: number) => Promise<void>) => {
    const ans = await send(rig.gw, route.prefix, ex, vars, { onEvent });
    check(tt, ex, ans, vars, label);
    return ans;
  };
  /** A task held working by the echo agent ("hold"): the first two events, then the caller hangs up. */
  const hold = async (): Promise<string> => {
    const held = await send(rig.gw, route.prefix, HOLD, vars, { take: 2 });
    return String(taskOf(held.events[0] as JsonObject).id);
  };

  t.test(`streams, to a ${route.binding} agent`, async (tt) => {
    for (const ex of STREAMS.slice(0, 3)) {
      const ans = await run(tt, ex);
      const last = (ans.events.at(-1)?.result ?? ans.events.at(-1)) as JsonObject;
      tt.equal(Object.keys(ans.events[0]?.result ?? ans.events[0] ?? {})[0], 'task', `${ex.section}: a Task first`);
      tt.match(last, { statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } }, `${ex.section}: ends completed`);
      if (ex.path === '/') {
        tt.ok(
          ans.events.every((e) => e.jsonrpc === '2.0' && e.id === 1 && 'result' in e),
          `${ex.section}: every event a JSON-RPC response with the request's id`,
        );
      }
    }
    // SubscribeToTask: the task as it is first, then the stream follows it to its cancellation
    for (const ex of STREAMS.slice(3)) {
      vars.heldTaskId = await hold();
      const ans = await run(tt, ex, async (n) => {
        if (n === 1) check(tt, CANCEL, await send(rig.gw, route.prefix, CANCEL, vars), vars, label);
      });
      tt.equal(ans.events.length >= 2, true, `${ex.section}: closed after the cancellation`);
    }
    vars.taskId = String(taskOf((await send(rig.gw, route.prefix, UNARY[0]!, vars)).body).id);
    for (const ex of SUBSCRIBE_TERMINAL) await run(tt, ex);
  });

  t.test(`task listing, to a ${route.binding} agent`, async (tt) => {
    const seed = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const message = {
          ...(UNARY[0]!.body as { message: JsonObject }).message,
          contextId: C295,
          messageId: `s-${i}`,
        };
        tt.equal((await send(rig.gw, route.prefix, { ...UNARY[0]!, body: { message } }, vars)).status, 200);
      }
    };
    await seed(5);
    const [inContext, working, paged, filtered, rpc] = LISTS as [SpecExample, ...SpecExample[]];
    const first = (await run(tt, inContext)).body as JsonObject;
    const tasks = first.tasks as JsonObject[];
    tt.equal(tasks.length, 5, '§6.5: the five tasks of the context');
    tt.ok(
      tasks.every((x) => x.contextId === C295 && !('artifacts' in x) && ((x.history as unknown[]) ?? []).length <= 3),
      '§6.5: all of the context, artifacts omitted (§3.1.4), at most 3 history messages',
    );
    tt.equal(first.nextPageToken, '', '§3.1.4: nextPageToken "" on the last page');

    const heldId = await hold();
    const all = (await run(tt, working!)).body as JsonObject;
    tt.same(
      (all.tasks as JsonObject[]).map((x) => x.id),
      [heldId],
      '§6.5: the one working task',
    );

    await seed(10);
    const page1 = await send(rig.gw, route.prefix, inContext, vars);
    vars.pageToken = String(page1.body?.nextPageToken ?? '');
    tt.ok(vars.pageToken, 'a first page of 10 of 15 has a nextPageToken');
    const page2 = (await run(tt, paged!)).body as JsonObject;
    const ids = [...(page1.body?.tasks as JsonObject[]), ...(page2.tasks as JsonObject[])].map((x) => x.id);
    tt.equal(new Set(ids).size, 15, '§6.5: the two pages hold the 15 tasks, none twice');
    await run(tt, filtered!);
    await run(tt, rpc!);
  });

  t.test(`push notifications, to a ${route.binding} agent`, async (tt) => {
    const [setup, create, get, list, ...rest] = PUSH as [SpecExample, ...SpecExample[]];
    const sent = taskOf((await run(tt, { ...setup, events: undefined })).body);
    const pushed = await notification(
      rig,
      (n) =>
        (n.body.statusUpdate as JsonObject | undefined)?.taskId === sent.id &&
        ((n.body.statusUpdate as JsonObject).status as JsonObject).state === 'TASK_STATE_COMPLETED',
    );
    tt.equal(pushed.headers.authorization, 'Bearer secure-client-token-for-task-aaa', '§6.6: the Authorization shown');
    tt.match(pushed.headers['content-type'], /^application\/a2a\+json/, '§6.6: application/a2a+json');
    // every POST for the task is one StreamResponse (§4.3.3), the one shown among them
    const mine = rig.notifications.filter((n) => JSON.stringify(n.body).includes(String(sent.id))).map((n) => n.body);
    tt.ok(
      mine.every((b) => Object.keys(b).length === 1 && STREAM_RESPONSE.includes(Object.keys(b)[0]!)),
      '§6.6: each notification a StreamResponse',
    );
    tt.same(eventMismatches(mine, setup.events!, vars), [], '§6.6: the notification shown');
    tt.same(kinds(mine), [], '§6.6: 1.0 forms, no kind');

    vars.taskId = String(sent.id);
    vars.configId = String(((await run(tt, create!)).body as JsonObject).id);
    await run(tt, get!);
    await run(tt, list!);
    for (const ex of rest) await run(tt, ex);
  });
}
