// Conformance: the A2A 1.0 specification's own examples work through the gateway, sent as raw HTTP exactly as
// the spec writes them (test/fixtures/spec-examples.ts holds them, each with its section and what was adapted
// to run it, and why) to a route per upstream binding — an SDK echo agent over JSON-RPC, HTTP+JSON and gRPC.
// This file owns the unary examples: §3.6.1 (A2A-Version as a header and as a request parameter), §6.1, §6.3,
// §6.7, §6.8, §6.9, §9.2, §9.4.1, §9.4.3, §9.4.5, §9.4.8, §11.2, §11.4, §11.5 (a task with history); and the
// error examples: §9.5 (TaskNotFoundError, InvalidParams), §11.6, §6.4, §6.5's validation error, a §6 example
// as written (no A2A-Version, §3.6.2) — and TaskNotFoundError from gRPC callers too (§5.4, §10.6). The streams,
// task listing and push notifications: spec-examples-flows.test.ts.
import t from 'tap';
import type { JsonObject } from '../../src/proto/json.js';
import { ERRORS, MULTI_TURN, UNARY } from '../fixtures/spec-examples.js';
import { callGrpc, closeGrpcClients } from '../helpers/harness.js';
import { check, send, startSpecRig, type Vars } from '../helpers/spec-examples.js';

const rig = await startSpecRig();
t.teardown(async () => {
  closeGrpcClients();
  await rig.close();
});

const EXTENSIONS = ['https://example.com/extensions/geolocation/v1', 'https://standards.org/extensions/citations/v1'];
const taskOf = (body: JsonObject | undefined): JsonObject => (body?.task ?? {}) as JsonObject;

for (const route of rig.routes) {
  t.test(`to a ${route.binding} agent`, async (tt) => {
    const vars: Vars = {};
    const label = `→ ${route.binding}`;
    const run = async (ex: (typeof UNARY)[number]) => {
      const ans = await send(rig.gw, route.prefix, ex, vars);
      check(tt, ex, ans, vars, label);
      return ans.body as JsonObject | undefined;
    };

    // §6.1 first: its task is the one §3.6.1, §11.5 and §9.4.3 name; a task left waiting for input is §9.4.5's
    vars.taskId = String(taskOf(await run(UNARY[0]!)).id);
    const input = await send(rig.gw, route.prefix, MULTI_TURN[0]!, vars);
    vars.inputTaskId = String(taskOf(input.body).id);
    tt.ok(vars.taskId && vars.inputTaskId, 'tasks to name');

    for (const ex of UNARY.slice(1)) {
      const body = await run(ex);
      if (ex.headers['A2A-Extensions']) {
        // (the SDK agent then keeps only those its card declares: none)
        const seen = route.agent.lastCall()?.headers ?? {};
        tt.equal(seen['a2a-extensions'], EXTENSIONS.join(','), `${ex.section}: A2A-Extensions reached the agent`);
      }
      const sentParts = ((ex.body as { message?: JsonObject } | undefined)?.message?.parts ?? []) as JsonObject[];
      if (sentParts.some((p) => p.raw !== undefined || p.metadata !== undefined)) {
        // the echo agent keeps the message in the task's history: the file part and part metadata crossed intact
        const history = (taskOf(body).history ?? []) as JsonObject[];
        tt.match(history[0]?.parts, sentParts, `${ex.section}: the parts reached the agent as sent`);
      }
      if (ex.path.includes('historyLength=10')) {
        const history = (body?.history ?? []) as unknown[];
        tt.ok(history.length >= 1 && history.length <= 10, `${ex.section}: at most 10 history messages`);
      }
    }

    // §6.3: the follow-up names the task of the initial request and completes it
    const initial = await run(MULTI_TURN[0]!);
    vars.bookingTaskId = String(taskOf(initial).id);
    const followUp = await run(MULTI_TURN[1]!);
    tt.equal(taskOf(followUp).contextId, taskOf(initial).contextId, '§6.3: the follow-up keeps the context');

    for (const ex of ERRORS) await run(ex);

    // §9.2 and §11.2 as written (A2A-Version: 0.3 with a 1.0 method and body): VersionNotSupportedError
    const asWritten = UNARY.filter((ex) => ex.headers['A2A-Extensions']);
    for (const ex of asWritten) {
      const ans = await send(rig.gw, route.prefix, { ...ex, headers: { ...ex.headers, 'A2A-Version': '0.3' } }, vars);
      const err = (ans.body?.error ?? {}) as JsonObject;
      const reason = ((err.data ?? err.details) as JsonObject[] | undefined)?.[0]?.reason;
      tt.equal(reason, 'VERSION_NOT_SUPPORTED', `${ex.section} as written (A2A-Version 0.3): VersionNotSupported`);
    }
  });
}

// §9.5's TaskNotFoundError from a gRPC caller: NOT_FOUND (§5.4) with the same ErrorInfo (§10.6)
t.test('TaskNotFoundError from gRPC callers', async (tt) => {
  for (const route of rig.routes) {
    const tenant = `spec-${route.prefix.slice('/via-'.length)}`;
    const r = await callGrpc(rig.gw, 'GetTask', { id: 'nonexistent-task-id' }, { tenant, prefix: '' });
    tt.equal(r.code, 5, `→ ${route.binding}: NOT_FOUND`);
    tt.match(r.details, [{ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }], `→ ${route.binding}: ErrorInfo`);
  }
});
