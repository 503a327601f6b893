// Fuzzing each inbound binding (fast-check): random and mutated valid requests
// — JSON-RPC bodies, REST paths, queries and bodies, gRPC protobuf bytes
// (random, truncated, with overlong varints) — against a gateway whose
// upstream refuses connections, so every valid call ends UPSTREAM_UNAVAILABLE
// and every invalid one is the caller's mistake. The gateway never crashes,
// never answers 500 (or gRPC INTERNAL/UNKNOWN) for a client's mistake, nor a
// JSON-RPC error other than a caller's (INTERNAL_ERROR comes with HTTP 200 like
// the rest: helpers/caller-mistakes.ts), and every answer is a well-formed
// reply or error of the caller's binding.
// FUZZ_RUNS sets the cases per binding (`npm test` 1,000; `npm run fuzz` 100,000).
import t from 'tap';
import fc from 'fast-check';
import * as grpc from '@grpc/grpc-js';
import { METHODS } from '../../src/core/methods.js';
import type { JsonObject } from '../../src/proto/json.js';
import { requestBytes } from '../helpers/codec.js';
import { callerErrorOf, Outcomes } from '../helpers/caller-mistakes.js';
import { refusingTarget } from '../helpers/fuzz-gateway.js';
import { grpcStatusOf, userMessage } from '../helpers/harness.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const { pool, client } = await refusingTarget(t);

const METHOD_NAMES = [...METHODS.keys()];
const validParams = fc.constantFrom<Record<string, unknown>>(
  { message: userMessage('fuzz') },
  { id: 'task-1' },
  { taskId: 't', id: 'c' },
  { taskId: 't', url: 'https://example.com/h' },
  { pageSize: 10 },
  {},
);
/** The requests' own field names, so a mutation gives a field the wrong type as often as it adds an unknown one. */
const FIELDS = ['message', 'id', 'taskId', 'url', 'pageSize', 'historyLength', 'configuration', 'metadata', 'tenant'];
/** A valid-looking object with random mutations: fields replaced, removed, or added with any JSON. */
const mutated = fc
  .tuple(
    validParams,
    fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 12 })), fc.jsonValue({ maxDepth: 3 }), {
      maxKeys: 3,
    }),
    fc.array(fc.string({ maxLength: 12 }), { maxLength: 2 }),
  )
  .map(([base, extra, drop]) => {
    const o: Record<string, unknown> = { ...base, ...extra };
    for (const k of drop) delete o[k];
    return o;
  });

t.test(`JSON-RPC: ${RUNS} cases`, async (tt) => {
  // mostly well-framed requests, so most cases reach the reading of their params
  const body = fc.oneof(
    {
      arbitrary: fc
        .record({
          jsonrpc: fc.oneof({ arbitrary: fc.constant('2.0'), weight: 4 }, fc.constantFrom('1.0', 2)),
          id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.object()),
          method: fc.oneof({ arbitrary: fc.constantFrom(...METHOD_NAMES), weight: 3 }, fc.string()),
          params: fc.oneof({ arbitrary: mutated, weight: 3 }, fc.jsonValue({ maxDepth: 2 })),
        })
        .map((o) => JSON.stringify(o)),
      weight: 4,
    },
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 64 }),
  );
  let count = 0;
  const outcomes = new Outcomes();
  await fc.assert(
    fc.asyncProperty(body, async (b) => {
      const res = await pool.request({
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: b,
      });
      const text = await res.body.text();
      count++;
      if (res.statusCode === 204) return text === ''; // notifications alone
      const json = JSON.parse(text) as unknown;
      // each response a result or a caller's error, HTTP 200: every JSON-RPC error is (INTERNAL_ERROR too, but
      // 401, 408 and 413: bindings/jsonrpc/wire.ts httpStatusOf), so only its code tells a gateway failure apart
      if (res.statusCode !== 200) return false;
      const one = (r: { jsonrpc?: unknown; result?: unknown; error?: { code?: unknown } }): boolean => {
        if (r.jsonrpc !== '2.0') return false;
        const name = 'result' in r ? 'result' : callerErrorOf(r.error?.code);
        outcomes.saw(name ?? `code ${String(r.error?.code)}`);
        return name !== undefined;
      };
      return Array.isArray(json) ? json.every((r) => one(r as object)) : one(json as object);
    }),
    { numRuns: RUNS },
  );
  tt.comment(`${outcomes}`);
  tt.equal(count, RUNS, "every case answered with a result or a caller's error, never INTERNAL_ERROR");
  tt.ok(outcomes.has('INVALID_PARAMS'), 'some cases reached the decoding of their params');
});

t.test(`REST: ${RUNS} cases`, async (tt) => {
  const segment = fc.oneof(
    fc.constantFrom(
      'tasks',
      'message:send',
      'message:stream',
      'pushNotificationConfigs',
      'extendedAgentCard',
      't-1:cancel',
      't-1',
      '%',
      '%zz',
      '..',
    ),
    fc.string({ maxLength: 8 }).map(encodeURIComponent),
  );
  const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join('/')}`);
  const query = fc
    .dictionary(
      fc.constantFrom('pageSize', 'historyLength', 'status', 'includeArtifacts', 'statusTimestampAfter', 'x'),
      fc.string({ maxLength: 10 }),
      { maxKeys: 3 },
    )
    .map((q) => new URLSearchParams(q).toString());
  const req = fc.record({
    verb: fc.constantFrom('GET', 'POST', 'DELETE'),
    path,
    query,
    body: fc.oneof(
      mutated.map((m) => JSON.stringify(m)),
      fc.string({ maxLength: 40 }),
    ),
  });
  await fc.assert(
    fc.asyncProperty(req, async (r) => {
      const res = await pool.request({
        method: r.verb as 'GET',
        path: `${r.path}${r.query ? `?${r.query}` : ''}`,
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: r.verb === 'POST' ? r.body : null,
      });
      const text = await res.body.text();
      if (res.statusCode === 503)
        return (JSON.parse(text) as { error: { status: string } }).error.status === 'UNAVAILABLE';
      // no such operation: METHOD_NOT_FOUND is UNIMPLEMENTED, HTTP 501 (google.rpc's table), not a failure
      if (res.statusCode === 501)
        return (JSON.parse(text) as { error: { status: string } }).error.status === 'UNIMPLEMENTED';
      if (res.statusCode >= 500) return false;
      const json = JSON.parse(text) as { jsonrpc?: string; error?: { code: number; status: string } };
      // A POST that is no REST operation is answered as JSON-RPC (docs/routing.md: "How a route is reached").
      if (r.verb === 'POST' && json.jsonrpc === '2.0') return callerErrorOf(json.error?.code) !== undefined;
      const err = json.error;
      return (
        res.statusCode === 200 || (err !== undefined && err.code === res.statusCode && typeof err.status === 'string')
      );
    }),
    { numRuns: RUNS },
  );
  tt.pass('every case answered with a google.rpc.Status error or a reply, never a 500');
});

t.test(`gRPC: ${RUNS} cases`, async (tt) => {
  const valid = requestBytes('SendMessage', { message: userMessage('fuzz') } as JsonObject);
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
    fc.integer({ min: 0, max: valid.length }).map((n) => valid.subarray(0, n)), // truncated
    fc.tuple(fc.integer({ min: 0, max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })).map(([i, v]) => {
      const b = Buffer.from(valid);
      b[i] = v;
      return b;
    }),
    fc.constant(Buffer.from([0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])), // overlong varint
  );
  const method = fc.constantFrom(...METHODS.values());
  // DEADLINE_EXCEEDED is the client's own deadline (the tests' bound on any wait): the gateway never answered
  const bad = new Set([grpc.status.INTERNAL, grpc.status.UNKNOWN, grpc.status.DEADLINE_EXCEEDED]);
  await fc.assert(
    fc.asyncProperty(method, bytes, async (m, b) => {
      const md = new grpc.Metadata();
      md.set('a2a-version', '1.0');
      const s = await grpcStatusOf(client, `/lf.a2a.v1.A2AService/${m.name}`, b, m.streaming, md);
      return !bad.has(s.code);
    }),
    { numRuns: RUNS },
  );
  tt.pass('no INTERNAL, UNKNOWN or unanswered call for a malformed request, unary or streaming');
  const health = await pool.request({ method: 'GET', path: '/healthz' });
  tt.equal(health.statusCode, 200, 'the gateway is still serving');
  await health.body.dump();
});
