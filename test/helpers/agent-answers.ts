// What a fuzzed HTTP agent answers (fast-check arbitraries for
// test/integration/upstream-fuzz.test.ts; gRPC agents' in
// agent-answers-grpc.ts), per binding and A2A version: valid results and
// stream events (1.0 ProtoJSON; 0.3 JSON-RPC objects with kinds; 0.3
// ProtoJSON of package a2a.v1) mutated — a node replaced, removed or given a
// key — or given Struct data JSON reads and cannot write back; JSON-RPC
// envelopes with wrong ids and versions, random error objects (JSON-RPC,
// google.rpc.Status-like, 0.3 REST {code, message, data}); random bytes under
// any status and content type; SSE with random events, CRLF and torn lines;
// and, one answer in five, the answer cut off where the agent dies.
import fc from 'fast-check';
import { isObject, type JsonObject } from '../../src/proto/json.js';

/** Written where a number past a double's range goes: the agent writes `1e999`, which JSON.stringify cannot. */
export const INF = '<a number past a double range>';
/** Where an agent dies mid-answer: after `at` bytes of its body, its stream reset or its whole connection gone. */
export type Cut = { at: number; how: 'stream' | 'connection' };
export type HttpAnswer = { status: number; contentType: string; body: Buffer | string; cut?: Cut };

/** Now and then (one case in five), the answer cut off where the agent dies. */
export const cut = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 4 },
  {
    arbitrary: fc.record({ at: fc.nat({ max: 600 }), how: fc.constantFrom('stream' as const, 'connection' as const) }),
    weight: 1,
  },
);
/** HTTP answers, some cut off. */
export const cutHttp = (answers: fc.Arbitrary<(id: unknown) => HttpAnswer>) =>
  fc.tuple(answers, cut).map(([answer, c]) => (c ? (id: unknown) => ({ ...answer(id), cut: c }) : answer));

export const TASK: JsonObject = {
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-02T03:04:05.678Z' },
  artifacts: [{ artifactId: 'a-1', parts: [{ text: 'out' }, { raw: 'AAEC', mediaType: 'application/octet-stream' }] }],
  history: [{ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'in' }], metadata: { k: [1, 'x'] } }],
  metadata: { n: 1 },
};
export const RESULT: JsonObject = { task: TASK };
export const EVENTS: JsonObject[] = [
  { task: TASK },
  { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } },
  { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { artifactId: 'a', parts: [{ text: 'p' }] } } },
];

/** `base` with one node (the n-th met walking it) replaced by `value`, removed, or given a key `value`. */
function mutate(base: unknown, n: number, op: 'replace' | 'delete' | 'add', key: string, value: unknown): unknown {
  let i = 0;
  const walk = (v: unknown): unknown => {
    if (i++ === n) return op === 'replace' ? value : v;
    if (Array.isArray(v)) return v.map(walk).filter((x) => x !== DROP);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const w = i === n && op === 'delete' ? (i++, DROP) : walk(x);
        if (w !== DROP) out[k] = w;
      }
      if (i === n && op === 'add') out[key] = value;
      return out;
    }
    return v;
  };
  return walk(base);
}
const DROP = Symbol('drop');
const mutation = <T>(base: T) =>
  fc
    .tuple(
      fc.nat({ max: 40 }),
      fc.constantFrom('replace' as const, 'delete' as const, 'add' as const),
      fc.constantFrom('id', 'state', 'parts', 'task', 'raw', 'timestamp', 'x', ''),
      fc.oneof(
        fc.jsonValue({ maxDepth: 2 }),
        fc.constantFrom('TASK_STATE_BOGUS', '2026-99-99T00:00:00Z', 'AA=', -1, INF, { $typeName: 'x', n: INF }),
      ),
    )
    .map(([n, op, key, value]) => mutate(base, n, op, key, value));
/** Struct data JSON can read and not write back (a number past a double's range), or keys that look like types. */
const oddMetadata = fc.constantFrom<unknown>(
  { x: INF },
  { $typeName: 'x', n: INF },
  { a: [1, { b: INF }] },
  {
    $typeName: 'google.protobuf.Value',
  },
);
/** A task answer or event whose task's metadata is odd, or the base mutated. */
const mutationOrOdd = (base: JsonObject) =>
  fc.oneof(
    mutation(base),
    // on the payload: the task, the status or artifact update
    oddMetadata.map((metadata) => {
      const [key, payload] = Object.entries(base)[0]!;
      return isObject(payload) ? { ...base, [key]: { ...payload, metadata } } : base;
    }),
  );

/** An A2A 0.3 agent's task and status update (JSON-RPC 0.3: kinds, lower-case states and roles). */
export const TASK03: JsonObject = {
  kind: 'task',
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'completed', timestamp: '2026-01-02T03:04:05.678Z' },
  artifacts: [{ artifactId: 'a-1', parts: [{ kind: 'text', text: 'out' }] }],
  history: [{ kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'in' }] }],
  metadata: { n: 1 },
};
const STATUS03: JsonObject = {
  kind: 'status-update',
  taskId: 't-1',
  contextId: 'c-1',
  status: { state: 'working' },
  final: false,
};
/** 0.3 results: mutated, or with odd metadata. */
export const results03 = fc.oneof(
  ...[TASK03, STATUS03].map((base) =>
    fc.oneof(
      mutation(base),
      oddMetadata.map((metadata) => ({ ...base, metadata })),
    ),
  ),
);

/** A JSON-RPC response body for request `id`: the result mutated, an error object, a wrong envelope. */
const jsonRpcBodies = (results: fc.Arbitrary<unknown>) =>
  fc.oneof(
    results.map((result) => (id: unknown) => ({ jsonrpc: '2.0', id, result })),
    fc
      .record({ code: fc.oneof(fc.integer(), fc.jsonValue()), message: fc.jsonValue(), data: fc.jsonValue() })
      .map((error) => (id: unknown) => ({ jsonrpc: '2.0', id, error })),
    fc
      .record({ jsonrpc: fc.jsonValue(), id: fc.jsonValue(), result: fc.jsonValue({ maxDepth: 2 }) })
      .map((o) => () => o),
  );
const noise = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
);
const anyStatus = fc.oneof(fc.constant(200), fc.integer({ min: 200, max: 599 }));
const contentType = fc.constantFrom('application/json', 'text/plain', 'text/event-stream', '', 'application/json; x');

/** SSE text: events of data lines (JSON or noise), names, comments, CRLF or LF, maybe torn at the end. */
const sse = (data: fc.Arbitrary<string>) =>
  fc
    .tuple(
      fc.array(
        fc.record({
          event: fc.option(fc.constantFrom('message', 'error', 'x'), { nil: undefined }),
          data,
          comment: fc.boolean(),
        }),
        { maxLength: 4 },
      ),
      fc.constantFrom('\n', '\r\n', '\r'),
      fc.nat({ max: 20 }),
    )
    .map(([events, nl, tear]) => {
      const text = events
        .map((e) => `${e.comment ? `: c${nl}` : ''}${e.event ? `event: ${e.event}${nl}` : ''}data: ${e.data}${nl}${nl}`)
        .join('');
      return tear > 15 ? text.slice(0, text.length - tear) : text;
    });

/** A JSON-RPC agent's answers: `results` (1.0 by default) in a response, errors, wrong envelopes, noise. */
export function httpAnswers(
  streaming: boolean,
  results: fc.Arbitrary<unknown> = mutationOrOdd(RESULT),
): fc.Arbitrary<(id: unknown) => HttpAnswer> {
  const jsonRpcBody = jsonRpcBodies(results);
  const json = jsonRpcBody.map((f) => (id: unknown) => ({
    status: 200,
    contentType: 'application/json',
    body: JSON.stringify(f(id)),
  }));
  const raw = fc
    .tuple(anyStatus, contentType, noise)
    .map(([status, ct, body]) => () => ({ status, contentType: ct, body }));
  if (!streaming) return fc.oneof(json, raw);
  const events = fc
    .array(fc.oneof(jsonRpcBody, fc.constant(undefined)), { maxLength: 4 })
    .chain((fs) => sse(fc.constantFrom('{}', ...fs.map((f) => JSON.stringify(f ? f(1) : { jsonrpc: '2.0', id: 1 })))));
  const stream = fc.tuple(events, fc.boolean()).map(([text, echo]) => (id: unknown) => ({
    status: 200,
    contentType: 'text/event-stream',
    body: echo ? text.replaceAll('"id":1', `"id":${JSON.stringify(id)}`) : text,
  }));
  const noisy = sse(fc.string({ maxLength: 30 })).map((text) => () => ({
    status: 200,
    contentType: 'text/event-stream',
    body: text,
  }));
  return fc.oneof(json, raw, stream, noisy);
}

/** A REST agent's version: its result and events (ProtoJSON), and the error bodies it may answer. */
export interface RestDialect {
  result: JsonObject;
  events: JsonObject[];
  error: fc.Arbitrary<unknown>;
}
/** 1.0: google.rpc.Status-like `{error}` bodies. */
export const REST_V1: RestDialect = {
  result: RESULT,
  events: EVENTS,
  error: fc.jsonValue({ maxDepth: 3 }).map((error) => ({ error })),
};

/** An A2A 0.3 agent's task in the ProtoJSON of its proto (package a2a.v1: `content`, FilePart, `final`). */
export const TASK03_PROTO: JsonObject = {
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-02T03:04:05.678Z' },
  artifacts: [
    {
      artifactId: 'a-1',
      parts: [{ text: 'out' }, { file: { fileWithBytes: 'AAEC', mimeType: 'application/octet-stream' } }],
    },
  ],
  history: [{ messageId: 'm-1', role: 'ROLE_USER', content: [{ text: 'in' }], metadata: { k: [1, 'x'] } }],
  metadata: { n: 1 },
};
const EVENTS03_PROTO: JsonObject[] = [
  { task: TASK03_PROTO },
  { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' }, final: false } },
  { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { artifactId: 'a', parts: [{ text: 'p' }] } } },
];
/** 0.3 REST (@a2a-js/sdk 0.3.x): `{code, message, data}` error bodies, fields of any type. */
export const REST_V03: RestDialect = {
  result: { task: TASK03_PROTO },
  events: EVENTS03_PROTO,
  error: fc.record(
    {
      code: fc.oneof(fc.integer({ min: -32800, max: -31990 }), fc.jsonValue()),
      message: fc.jsonValue(),
      data: fc.jsonValue(),
    },
    { requiredKeys: [] },
  ),
};

/** REST answers: the result (or an event's JSON) mutated or with odd Struct data, an error body, noise. */
export function restAnswers(
  streaming: boolean,
  dialect: RestDialect = REST_V1,
): fc.Arbitrary<(id: unknown) => HttpAnswer> {
  const body = streaming
    ? fc
        .array(fc.oneof(...dialect.events.map(mutationOrOdd)), { maxLength: 3 })
        .chain((es) => sse(fc.constantFrom('{}', ...es.map((e) => JSON.stringify(e)))))
    : mutationOrOdd(dialect.result).map((r) => JSON.stringify(r));
  const ok = fc
    .tuple(body, contentType)
    .map(([b, ct]) => () => ({ status: 200, contentType: streaming ? 'text/event-stream' : ct, body: b }));
  const error = fc
    .tuple(fc.integer({ min: 400, max: 599 }), dialect.error)
    .map(([status, e]) => () => ({ status, contentType: 'application/json', body: JSON.stringify(e) }));
  const raw = fc
    .tuple(anyStatus, contentType, noise)
    .map(([status, ct, b]) => () => ({ status, contentType: ct, body: b }));
  return fc.oneof(ok, error, raw);
}

/** A valid answer of an HTTP agent: `result` in a JSON-RPC response (`rpc`) or bare (REST), or one SSE event of it. */
export const validHttp =
  (result: JsonObject, rpc: boolean, streaming: boolean) =>
  (id: unknown): HttpAnswer => {
    const json = JSON.stringify(rpc ? { jsonrpc: '2.0', id, result } : result);
    return streaming
      ? { status: 200, contentType: 'text/event-stream', body: `data: ${json}\n\n` }
      : { status: 200, contentType: 'application/json', body: json };
  };
