// Fuzzing what agents answer (fast-check): a raw HTTP agent answers the
// gateway's JSON-RPC (A2A 1.0 and 0.3) and REST calls, unary and streaming, with random and
// mutated answers — a valid result with fields replaced, removed or added,
// wrong or missing JSON-RPC ids and versions, random error objects, random
// bytes under any status and content type, SSE with random events, CRLF and
// torn lines — and a raw HTTP/2 agent answers gRPC calls with random,
// truncated or mutated messages, random flags and trailers (status, message,
// details). Whatever comes, the caller (JSON-RPC or gRPC) gets a well-formed
// answer of its own binding; a failure is the agent's (INVALID_AGENT_RESPONSE,
// UPSTREAM_*) or the agent's own error, never an exception of the gateway's
// ("internal gateway error"); the gateway keeps serving.
// FUZZ_RUNS / 5 is the cases per property (`npm test` 200; `npm run fuzz` 20,000).
import { createServer } from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import * as grpc from '@grpc/grpc-js';
import t from 'tap';
import { pino } from 'pino';
import { Pool } from 'undici';
import { isObject, type JsonObject } from '../../src/proto/json.js';
import type { Binding } from '../../src/config/types.js';
import { startGateway } from '../../src/server/gateway.js';
import { requestBytes, streamEventBytes } from '../helpers/codec.js';
import { gatewayConfig, userMessage } from '../helpers/harness.js';
import { TestSseParser } from '../helpers/sse.js';

const RUNS = Math.max(1, Math.round(Number(process.env.FUZZ_RUNS ?? 1000) / 5));
const GATEWAY_BUG = 'internal gateway error';
/** What the cases ended in (a property that only ever saw one outcome would test little). */
const outcomes = new Map<string, number>();
const saw = (what: string): void => void outcomes.set(what, (outcomes.get(what) ?? 0) + 1);

const INF = '<a number past a double range>';
/** The agents' next answer: set by each case before its call. */
type HttpAnswer = { status: number; contentType: string; body: Buffer | string };
let httpAnswer: (id: unknown) => HttpAnswer = () => ({ status: 404, contentType: 'text/plain', body: '' });
type GrpcAnswer = { status: number; messages: Buffer[]; trailers: Record<string, string> };
let grpcAnswer: GrpcAnswer = { status: 200, messages: [], trailers: { 'grpc-status': '0' } };

const agent = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    if (req.method === 'GET') return void res.writeHead(404).end(); // no card: the route's binding
    let id: unknown;
    try {
      id = (JSON.parse(Buffer.concat(chunks).toString()) as { id?: unknown }).id;
    } catch {
      id = undefined;
    }
    const a = httpAnswer(id);
    // INF: a number past a double's range, which JSON.stringify cannot write (JSON.parse reads it as Infinity)
    const body = typeof a.body === 'string' ? a.body.replaceAll(JSON.stringify(INF), '1e999') : a.body;
    res.writeHead(a.status, a.contentType ? { 'content-type': a.contentType } : {}).end(body);
  });
});
await new Promise<void>((r) => agent.listen(0, '127.0.0.1', r));
const httpBase = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`;

const grpcAgent = http2.createServer();
// some random trailers make node:http2 end the agent's session with GOAWAY (INTERNAL_ERROR), after which its socket
// no longer reads: the gateway's side closes, and this side is destroyed at teardown
const agentSessions = new Set<http2.ServerHttp2Session>();
grpcAgent.on('session', (s) => {
  agentSessions.add(s);
  s.on('close', () => agentSessions.delete(s));
});
grpcAgent.on('stream', (stream) => {
  stream.on('error', () => undefined);
  stream.resume();
  stream.on('end', () => {
    const a = grpcAnswer;
    stream.respond({ ':status': a.status, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => {
      try {
        stream.sendTrailers(a.trailers);
      } catch {
        stream.close(); // a trailer node:http2 will not send (an invalid character): the stream ends without one
      }
    });
    stream.end(Buffer.concat(a.messages));
  });
});
await new Promise<void>((r) => grpcAgent.listen(0, '127.0.0.1', r));
const grpcAddress = `127.0.0.1:${(grpcAgent.address() as AddressInfo).port}`;

/** A translated route per agent: path prefix and tenant `name`, the agent's tenant cleared. */
const route = (name: string, url: string, binding: Binding, version: '1.0' | '0.3' = '1.0') => ({
  name,
  match: { pathPrefix: `/${name}`, tenant: name },
  upstream: { url, binding, version, tenant: 'clear' as const },
  ssrfGuard: false,
});
const gw = await startGateway(
  gatewayConfig([
    route('j', `${httpBase}/rpc`, 'JSONRPC'),
    route('j03', `${httpBase}/rpc`, 'JSONRPC', '0.3'),
    route('r', `${httpBase}/rest`, 'HTTP+JSON'),
    route('g', grpcAddress, 'GRPC'),
  ]),
  pino({ level: 'silent' }),
);
const pool = new Pool(gw.httpUrl, { connections: 4 });
const client = new grpc.Client(gw.grpcAddress, grpc.credentials.createInsecure());
t.teardown(async () => {
  client.close();
  await pool.close();
  await gw.close();
  await new Promise((r) => agent.close(r));
  for (const s of agentSessions) s.destroy();
  await new Promise((r) => grpcAgent.close(r));
});

const TASK: JsonObject = {
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-02T03:04:05.678Z' },
  artifacts: [{ artifactId: 'a-1', parts: [{ text: 'out' }, { raw: 'AAEC', mediaType: 'application/octet-stream' }] }],
  history: [{ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'in' }], metadata: { k: [1, 'x'] } }],
  metadata: { n: 1 },
};
const RESULT: JsonObject = { task: TASK };
const EVENTS: JsonObject[] = [
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
const TASK03: JsonObject = {
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
const results03 = fc.oneof(
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
function httpAnswers(
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

/** REST answers: the result (or an event's JSON) mutated, a google.rpc.Status-like error, noise. */
function restAnswers(streaming: boolean): fc.Arbitrary<(id: unknown) => HttpAnswer> {
  const body = streaming
    ? fc
        .array(fc.oneof(...EVENTS.map(mutationOrOdd)), { maxLength: 3 })
        .chain((es) => sse(fc.constantFrom('{}', ...es.map((e) => JSON.stringify(e)))))
    : mutationOrOdd(RESULT).map((r) => JSON.stringify(r));
  const ok = fc
    .tuple(body, contentType)
    .map(([b, ct]) => () => ({ status: 200, contentType: streaming ? 'text/event-stream' : ct, body: b }));
  const error = fc
    .tuple(fc.integer({ min: 400, max: 599 }), fc.jsonValue({ maxDepth: 3 }))
    .map(([status, e]) => () => ({ status, contentType: 'application/json', body: JSON.stringify({ error: e }) }));
  const raw = fc
    .tuple(anyStatus, contentType, noise)
    .map(([status, ct, b]) => () => ({ status, contentType: ct, body: b }));
  return fc.oneof(ok, error, raw);
}

const frame = (b: Buffer, flag = 0): Buffer => {
  const p = Buffer.alloc(5);
  p[0] = flag;
  p.writeUInt32BE(b.length, 1);
  return Buffer.concat([p, b]);
};
const VALID_EVENT = streamEventBytes(EVENTS[0]!);
const grpcMessage = fc.oneof(
  fc.uint8Array({ maxLength: 40 }).map((b) => frame(Buffer.from(b))),
  fc.tuple(fc.nat({ max: VALID_EVENT.length - 1 }), fc.integer({ min: 0, max: 255 })).map(([i, v]) => {
    const b = Buffer.from(VALID_EVENT);
    b[i] = v;
    return frame(b);
  }),
  fc.nat({ max: VALID_EVENT.length + 4 }).map((n) => frame(VALID_EVENT).subarray(0, n)), // torn
  fc.constant(frame(VALID_EVENT, 1)), // compressed without an encoding
  fc.constant(frame(VALID_EVENT)),
);
const grpcAnswers: fc.Arbitrary<GrpcAnswer> = fc.record({
  status: fc.oneof(fc.constant(200), fc.constantFrom(400, 429, 500, 503)),
  messages: fc.array(grpcMessage, { maxLength: 3 }),
  trailers: fc
    .record(
      {
        'grpc-status': fc.oneof(fc.constant('0'), fc.integer({ min: -1, max: 20 }).map(String), fc.string()),
        'grpc-message': fc.string({ maxLength: 20 }),
        'grpc-status-details-bin': fc.uint8Array({ maxLength: 30 }).map((b) => Buffer.from(b).toString('base64')),
      },
      { requiredKeys: [] },
    )
    .map((r) => r as Record<string, string>),
});

/** A JSON-RPC call through route `prefix`: every answer a JSON-RPC response; a failure never the gateway's own. */
async function viaJsonRpc(prefix: string, streaming: boolean): Promise<boolean> {
  const method = streaming ? 'SendStreamingMessage' : 'SendMessage';
  const res = await pool.request({
    method: 'POST',
    path: `/${prefix}`,
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { tenant: prefix, message: userMessage('fuzz') } }),
  });
  const text = await res.body.text();
  const sseParser = new TestSseParser();
  const answers: string[] = res.headers['content-type']?.toString().startsWith('text/event-stream')
    ? [...sseParser.push(text), ...sseParser.end()].map((e) => e.data)
    : [text];
  return answers.every((a) => {
    const r = JSON.parse(a) as { jsonrpc?: string; id?: unknown; result?: unknown; error?: { message?: string } };
    if (r.jsonrpc !== '2.0' || r.id !== 7) return false;
    saw(r.error ? `JSON-RPC ${String((r.error as { code?: unknown }).code)}` : 'JSON-RPC result');
    if (r.error) return typeof r.error.message === 'string' && r.error.message !== GATEWAY_BUG;
    return r.result !== undefined;
  });
}

/** A gRPC call through tenant `tenant`: a status (any), never the gateway's own failure. */
function viaGrpc(tenant: string, streaming: boolean): Promise<boolean> {
  const raw = (b: Buffer): Buffer => b;
  const method = streaming ? 'SendStreamingMessage' : 'SendMessage';
  const body = requestBytes(method, { tenant, message: userMessage('fuzz') });
  const md = new grpc.Metadata();
  md.set('a2a-version', '1.0');
  return new Promise((resolve) => {
    let settled = false;
    const ok = (e: grpc.ServiceError | null): void => {
      if (settled) return; // (grpc-js emits 'end' after 'error' too)
      settled = true;
      saw(`gRPC ${e ? e.code : 0}`);
      resolve(!e || e.details !== GATEWAY_BUG);
    };
    const path = `/lf.a2a.v1.A2AService/${method}`;
    if (!streaming) return void client.makeUnaryRequest(path, raw, raw, body, md, {}, (e) => ok(e));
    const call = client.makeServerStreamRequest(path, raw, raw, body, md, {});
    call.on('data', () => undefined);
    call.on('error', (e: grpc.ServiceError) => ok(e));
    call.on('end', () => ok(null));
  });
}

/** Each agent: its route, and how a case's answer is given to it. */
const AGENTS = [
  { name: 'JSON-RPC', route: 'j', answers: httpAnswers, give: (a: (id: unknown) => HttpAnswer) => (httpAnswer = a) },
  { name: 'REST', route: 'r', answers: restAnswers, give: (a: (id: unknown) => HttpAnswer) => (httpAnswer = a) },
  {
    name: 'JSON-RPC 0.3',
    route: 'j03',
    answers: (streaming: boolean) => httpAnswers(streaming, results03),
    give: (a: (id: unknown) => HttpAnswer) => (httpAnswer = a),
  },
  { name: 'gRPC', route: 'g', answers: () => grpcAnswers, give: (a: GrpcAnswer) => (grpcAnswer = a) },
] as const;

for (const streaming of [false, true]) {
  for (const agent of AGENTS) {
    t.test(`a ${agent.name} agent's answers to ${streaming ? 'streams' : 'unary calls'}: ${RUNS} cases`, async (tt) => {
      let cases = 0;
      const answers = agent.answers(streaming) as fc.Arbitrary<Parameters<typeof agent.give>[0]>;
      await fc.assert(
        fc.asyncProperty(answers, fc.boolean(), async (answer, grpcCaller) => {
          (agent.give as (a: typeof answer) => void)(answer);
          cases++;
          return grpcCaller ? viaGrpc(agent.route, streaming) : viaJsonRpc(agent.route, streaming);
        }),
        { numRuns: RUNS },
      );
      tt.equal(cases, RUNS, 'every case answered well-formed, none with the gateway failing');
    });
  }
}

t.test('the gateway keeps serving: a valid answer goes through', async (tt) => {
  httpAnswer = (id) => ({
    status: 200,
    contentType: 'application/json',
    body: JSON.stringify({ jsonrpc: '2.0', id, result: RESULT }),
  });
  const before = outcomes.get('JSON-RPC result') ?? 0;
  tt.ok(await viaJsonRpc('j', false), 'a JSON-RPC answer');
  tt.equal(outcomes.get('JSON-RPC result'), before + 1, 'a result');
  grpcAnswer = { status: 200, messages: [frame(VALID_EVENT)], trailers: { 'grpc-status': '0' } };
  const ok = outcomes.get('gRPC 0') ?? 0;
  tt.ok(await viaGrpc('g', true), 'a gRPC stream');
  tt.equal(outcomes.get('gRPC 0'), ok + 1, 'ended OK');
});

t.test('the cases reached answers and the agent-error outcomes alike', async (tt) => {
  tt.comment([...outcomes].map(([k, n]) => `${k}: ${n}`).join(', '));
  tt.ok(outcomes.get('JSON-RPC result'), 'some answers were results');
  tt.ok(outcomes.get('gRPC 0'), 'some gRPC calls ended OK');
  tt.ok(outcomes.get('JSON-RPC -32006'), 'some were INVALID_AGENT_RESPONSE');
});
