// Fuzzing the A2A 0.3 side of each inbound binding (fast-check; bridge-0.3-1.0.md
// §1, §3–§7): random and mutated 0.3 requests — JSON-RPC with the 0.3 method
// names and objects (kinds, lower-case roles), REST under /v1 with the 0.3 proto's
// ProtoJSON, gRPC bytes of the 0.3 proto to a2a.v1.A2AService — against a gateway
// whose 1.0 upstream refuses connections, so every valid call ends
// UPSTREAM_UNAVAILABLE and every invalid one is the caller's mistake. The
// gateway never answers a 5xx (gRPC INTERNAL/UNKNOWN) for a caller's mistake,
// nor a JSON-RPC error other than a caller's (INTERNAL_ERROR comes with HTTP 200
// like the rest: helpers/caller-mistakes.ts), and every answer has 0.3's form in
// the caller's binding: a JSON-RPC response without 1.0's google.rpc arrays (a
// stream's refusal: a stream of exactly one `event: error`), a REST
// `{code, message}` body, a gRPC status.
// FUZZ_RUNS sets the cases per binding (`npm test` 1,000; `npm run fuzz` 100,000).
import t from 'tap';
import fc from 'fast-check';
import * as grpc from '@grpc/grpc-js';
import { toBinary, fromJson, type JsonValue } from '@bufbuild/protobuf';
import { V03_METHODS } from '../../src/compat/v0_3/methods.js';
import { SendMessageRequestSchema as SendV03 } from '../../src/gen/a2a/v1/a2a_pb.js';
import { callerErrorOf, Outcomes } from '../helpers/caller-mistakes.js';
import { refusingTarget } from '../helpers/fuzz-gateway.js';
import { grpcStatusOf } from '../helpers/harness.js';
import { TestSseParser } from '../helpers/sse.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const { pool, client } = await refusingTarget(t);

const ROWS = [...V03_METHODS.values()];
const message03 = { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'fuzz' }] };
const validParams = fc.constantFrom<Record<string, unknown>>(
  { message: message03 },
  { message: { ...message03, parts: [{ kind: 'file', file: { uri: 'https://example.com/f', mimeType: 'a/b' } }] } },
  { message: { ...message03, parts: [{ kind: 'data', data: { a: 1 } }] }, configuration: { blocking: false } },
  { id: 'task-1', historyLength: 2 },
  { id: 't', pushNotificationConfigId: 'c' },
  { taskId: 't', pushNotificationConfig: { url: 'https://example.com/h', authentication: { schemes: ['Bearer'] } } },
  {},
);
/** A valid-looking object with random mutations: fields replaced, removed, or added with any JSON. */
const mutated = fc
  .tuple(
    validParams,
    fc.dictionary(fc.constantFrom('message', 'id', 'kind', 'parts', 'role', 'x'), fc.jsonValue({ maxDepth: 3 }), {
      maxKeys: 2,
    }),
    fc.array(fc.constantFrom('message', 'id', 'taskId', 'x'), { maxLength: 2 }),
  )
  .map(([base, extra, drop]) => {
    const o: Record<string, unknown> = { ...base, ...extra };
    for (const k of drop) delete o[k];
    return o;
  });
/** No 1.0 google.rpc arrays in a 0.3 error: `{code, message, data?}` with `data` an object or absent. */
const isV03Error = (e: unknown): boolean => {
  const o = e as { code?: unknown; message?: unknown; data?: unknown };
  return (
    typeof o?.code === 'number' &&
    typeof o.message === 'string' &&
    (o.data === undefined || (typeof o.data === 'object' && !Array.isArray(o.data)))
  );
};

t.test(`JSON-RPC 0.3: ${RUNS} cases`, async (tt) => {
  const body = fc.oneof(
    fc
      .record({
        jsonrpc: fc.constantFrom('2.0', '1.0'),
        id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
        method: fc.oneof(fc.constantFrom(...ROWS.map((m) => m.jsonRpc)), fc.string({ maxLength: 12 })),
        params: fc.oneof(mutated, fc.jsonValue({ maxDepth: 2 })),
      })
      .map((o) => JSON.stringify(o)),
    fc.string({ maxLength: 64 }),
  );
  let count = 0;
  const outcomes = new Outcomes();
  /** A 0.3 JSON-RPC response: a result, or an error a caller's mistake (or the refusing agent) earns. */
  const response = (json: string): boolean => {
    const r = JSON.parse(json) as { jsonrpc?: string; result?: unknown; error?: { code?: unknown } };
    if (r.jsonrpc !== '2.0') return false;
    const name = 'result' in r ? 'result' : callerErrorOf(r.error?.code);
    outcomes.saw(name ?? `code ${String(r.error?.code)}`);
    return name === 'result' || (name !== undefined && isV03Error(r.error));
  };
  await fc.assert(
    fc.asyncProperty(body, async (b) => {
      const res = await pool.request({
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json' }, // no A2A-Version: a 0.3 caller
        body: b,
      });
      const text = await res.body.text();
      count++;
      if (res.statusCode === 204) return text === '';
      // HTTP 200: every JSON-RPC error is (INTERNAL_ERROR too, but 401, 408 and 413: jsonrpc/wire.ts httpStatusOf),
      // so only its code tells a gateway failure apart
      if (res.statusCode !== 200) return false;
      if (!String(res.headers['content-type']).startsWith('text/event-stream')) return response(text);
      // a 0.3 stream's refusal (the agent refuses every call) is a stream of one error event, as 0.3 servers write it
      const parser = new TestSseParser();
      const events = [...parser.push(text), ...parser.end()];
      outcomes.saw('stream');
      return events.length === 1 && events[0]!.event === 'error' && response(events[0]!.data);
    }),
    { numRuns: RUNS },
  );
  tt.comment(`${outcomes}`);
  tt.equal(count, RUNS, "every case answered with a 0.3 JSON-RPC result or a caller's error, never INTERNAL_ERROR");
  tt.ok(outcomes.has('INVALID_PARAMS'), 'some cases reached the reading of their params');
  tt.ok(outcomes.has('stream'), 'some cases were streams refused with their one error event');
});

t.test(`REST 0.3: ${RUNS} cases`, async (tt) => {
  const segment = fc.oneof(
    fc.constantFrom('v1', 'message:send', 'message:stream', 'tasks', 't-1', 't-1:cancel', 't-1:subscribe', 'card'),
    fc.constantFrom('pushNotificationConfigs', 'c-1', '%', '%zz', '%E0%A4%A', '.', '..'),
    fc.string({ maxLength: 8 }).map(encodeURIComponent),
  );
  const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => `/v1/${s.join('/')}`);
  const body = fc.oneof(
    fc.record({
      message: fc.oneof(
        fc.constant({ messageId: 'm', role: 'ROLE_USER', content: [{ text: 'x' }] }),
        fc.jsonValue({ maxDepth: 2 }),
      ),
    }),
    fc.record({ parent: fc.string({ maxLength: 12 }), config: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }),
    fc.string({ maxLength: 40 }),
  );
  const req = fc.record({
    verb: fc.constantFrom('GET', 'POST', 'DELETE'),
    path,
    query: fc.constantFrom('', '?historyLength=2', '?historyLength=x', '?pageSize=-1'),
    body: body.map((b) => (typeof b === 'string' ? b : JSON.stringify(b))),
  });
  await fc.assert(
    fc.asyncProperty(req, async (r) => {
      const res = await pool.request({
        method: r.verb as 'GET',
        path: `${r.path}${r.query}`,
        headers: { 'content-type': 'application/json' }, // no A2A-Version: a 0.3 caller
        body: r.verb === 'POST' ? r.body : null,
      });
      const text = await res.body.text();
      if (res.statusCode >= 500 && res.statusCode !== 503) return false;
      if (res.statusCode < 300) return true;
      const json = JSON.parse(text) as { jsonrpc?: string; error?: unknown };
      // a POST that is no REST operation is answered as JSON-RPC (docs/routing.md: "How a route is reached")
      if (r.verb === 'POST' && json.jsonrpc === '2.0')
        return isV03Error(json.error) && callerErrorOf((json.error as { code: unknown }).code) !== undefined;
      return isV03Error(json);
    }),
    { numRuns: RUNS },
  );
  tt.pass('every case answered with a 0.3 `{code, message}` error or a reply, never a 5xx of its own');
});

t.test(`gRPC 0.3: ${RUNS} cases`, async (tt) => {
  const valid = Buffer.from(
    toBinary(
      SendV03,
      fromJson(SendV03, {
        request: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'x' }], metadata: { a: 1 } },
        configuration: { blocking: true, historyLength: 2 },
      } as JsonValue),
    ),
  );
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
    fc.integer({ min: 0, max: valid.length }).map((n) => valid.subarray(0, n)), // truncated
    fc.tuple(fc.integer({ min: 0, max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })).map(([i, v]) => {
      const b = Buffer.from(valid);
      b[i] = v;
      return b;
    }),
  );
  const rpc = fc.constantFrom(...ROWS);
  // DEADLINE_EXCEEDED is the client's own deadline (the tests' bound on any wait): the gateway never answered
  const bad = new Set([grpc.status.INTERNAL, grpc.status.UNKNOWN, grpc.status.DEADLINE_EXCEEDED]);
  await fc.assert(
    fc.asyncProperty(rpc, bytes, async (m, b) => {
      const s = await grpcStatusOf(client, `/a2a.v1.A2AService/${m.grpc}`, b, m.streaming);
      return s.code === grpc.status.OK || (!bad.has(s.code) && s.metadata.get('grpc-status-details-bin').length === 0);
    }),
    { numRuns: RUNS },
  );
  tt.pass('no INTERNAL or UNKNOWN status and no 1.0 details for a malformed 0.3 request, unary or streaming');
  const health = await pool.request({ method: 'GET', path: '/healthz' });
  tt.equal(health.statusCode, 200, 'the gateway is still serving');
  await health.body.dump();
});
