// Fuzzing what agents answer (fast-check): a raw HTTP agent answers the
// gateway's JSON-RPC and REST calls and a raw HTTP/2 agent its gRPC calls,
// each as an A2A 1.0 and as a 0.3 agent, unary and streaming, with the
// random and mutated answers of test/helpers/agent-answers*.ts, some cut
// off where the agent dies (a reset stream, a dropped connection). Whatever
// comes, the caller (JSON-RPC or gRPC) gets a well-formed answer of its own
// binding; a failure is the agent's (INVALID_AGENT_RESPONSE, UPSTREAM_*) or
// the agent's own error, never an exception of the gateway's ("internal
// gateway error"); an error ends a stream, and an answer cut off ends in one;
// the gateway keeps serving.
// FUZZ_RUNS / 5 is the cases per property (`npm test` 200; `npm run fuzz` 20,000).
import { createServer } from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import fc from 'fast-check';
import * as grpc from '@grpc/grpc-js';
import t from 'tap';
import type { Binding } from '../../src/config/types.js';
import { cutGrpc, GRPC_V03, GRPC_V1, grpcAnswers, validGrpc, type GrpcAnswer } from '../helpers/agent-answers-grpc.js';
import {
  cutHttp,
  httpAnswers,
  INF,
  REST_V03,
  restAnswers,
  RESULT,
  results03,
  type HttpAnswer,
  TASK03,
  validHttp,
} from '../helpers/agent-answers.js';
import { requestBytes } from '../helpers/codec.js';
import { fuzzTarget } from '../helpers/fuzz-gateway.js';
import { gatewayConfig, userMessage } from '../helpers/harness.js';
import { TestSseParser } from '../helpers/sse.js';
import { BOUND_MS, eventually } from '../helpers/wait.js';

const RUNS = Math.max(1, Math.round(Number(process.env.FUZZ_RUNS ?? 1000) / 5));
const GATEWAY_BUG = 'internal gateway error';
/**
 * A call that took this long is not held to failing when its answer was cut off: after an event that ends a stream
 * (a completed task) the gateway gives the agent 1 s to end it (FINAL_GRACE_MS, pipeline/stages/send.ts), then ends
 * it cleanly itself — on a slow enough machine before it read the cut (the margin: its clock and this one's).
 */
const GRACE_MS = 900;
/** What the cases ended in (a property that only ever saw one outcome would test little). */
const outcomes = new Map<string, number>();
const saw = (what: string): void => void outcomes.set(what, (outcomes.get(what) ?? 0) + 1);

/** The agents' next answer: set by each case before its call. */
let httpAnswer: (id: unknown) => HttpAnswer = () => ({ status: 404, contentType: 'text/plain', body: '' });
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
    res.writeHead(a.status, a.contentType ? { 'content-type': a.contentType } : {});
    if (!a.cut) return void res.end(body);
    // the agent dies mid-answer: HTTP/1.1 has no stream of its own to reset, so either way its connection goes
    res.write(Buffer.from(body).subarray(0, a.cut.at), () => res.socket?.destroy());
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
// the sockets under the agent's sessions, to drop one as a network failure would (an HTTP/2 session's own socket
// may not be touched)
const agentSockets = new Map<number, Socket>();
grpcAgent.on('connection', (socket: Socket) => {
  agentSockets.set(socket.remotePort!, socket);
  socket.on('close', () => agentSockets.delete(socket.remotePort!));
});
grpcAgent.on('stream', (stream) => {
  stream.on('error', () => undefined);
  stream.resume();
  stream.on('end', () => {
    const a = grpcAnswer;
    const head = { ':status': a.status, 'content-type': 'application/grpc' };
    if (a.cut) {
      // the agent dies mid-answer: its stream reset (INTERNAL_ERROR), or its connection dropped. Without trailers
      // to wait for: node:http2 (20.20) aborts the process on an assertion when a stream that waits for its trailers
      // is reset right after a write
      const { at, how } = a.cut;
      stream.respond(head);
      const port = stream.session?.socket.remotePort;
      return void stream.write(Buffer.concat(a.messages).subarray(0, at), () =>
        how === 'stream' ? stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR) : agentSockets.get(port!)?.destroy(),
      );
    }
    stream.respond(head, { waitForTrailers: true });
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
// the gateway, its pool and gRPC client closed at teardown (fuzz-gateway.ts); the agents in a teardown of their own
const { gw, pool, client } = await fuzzTarget(
  t,
  gatewayConfig([
    route('j', `${httpBase}/rpc`, 'JSONRPC'),
    route('j03', `${httpBase}/rpc`, 'JSONRPC', '0.3'),
    route('r', `${httpBase}/rest`, 'HTTP+JSON'),
    route('r03', `${httpBase}/rest03`, 'HTTP+JSON', '0.3'),
    route('g', grpcAddress, 'GRPC'),
    route('g03', grpcAddress, 'GRPC', '0.3'),
  ]),
);
t.teardown(async () => {
  await new Promise((r) => agent.close(r));
  for (const s of agentSessions) s.destroy();
  await new Promise((r) => grpcAgent.close(r));
});

/**
 * A JSON-RPC call through route `prefix`: every answer a JSON-RPC response, at least one; a failure never the
 * gateway's own, and the last one (an error frame ends a stream); an answer `cut` off ends in an error.
 */
async function viaJsonRpc(prefix: string, streaming: boolean, cut = false): Promise<boolean> {
  const started = performance.now();
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
  const mustFail = cut && performance.now() - started < GRACE_MS;
  const rs = answers.map(
    (a) => JSON.parse(a) as { jsonrpc?: string; id?: unknown; result?: unknown; error?: { message?: string } },
  );
  const wellFormed = rs.every((r) => {
    if (r.jsonrpc !== '2.0' || r.id !== 7) return false;
    saw(r.error ? `JSON-RPC ${String((r.error as { code?: unknown }).code)}` : 'JSON-RPC result');
    if (r.error) return typeof r.error.message === 'string' && r.error.message !== GATEWAY_BUG;
    return r.result !== undefined;
  });
  // (an SSE answer opens with its first event: never empty)
  const errorAt = rs.findIndex((r) => r.error !== undefined);
  return wellFormed && rs.length > 0 && (errorAt === -1 ? !mustFail : errorAt === rs.length - 1);
}

/** A gRPC call through tenant `tenant`: a status, never the gateway's own failure; not OK when the answer was `cut`. */
function viaGrpc(tenant: string, streaming: boolean, cut = false): Promise<boolean> {
  const started = performance.now();
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
      // (DEADLINE_EXCEEDED from an agent's trailers is an answer; the client's own deadline is none)
      if (!e) return resolve(!(cut && performance.now() - started < GRACE_MS));
      resolve(e.details !== GATEWAY_BUG && !/^Deadline exceeded after/.test(e.details));
    };
    const path = `/lf.a2a.v1.A2AService/${method}`;
    // a call the gateway never answers fails the case at the tests' bound on any wait (DEADLINE_EXCEEDED)
    const opts = { deadline: Date.now() + BOUND_MS };
    if (!streaming) return void client.makeUnaryRequest(path, raw, raw, body, md, opts, (e) => ok(e));
    const call = client.makeServerStreamRequest(path, raw, raw, body, md, opts);
    call.on('data', () => undefined);
    call.on('error', (e: grpc.ServiceError) => ok(e));
    call.on('end', () => ok(null));
  });
}

/** Each agent: its route, its answers, a valid answer, and how a case's answer is given to it. */
const http = (a: (id: unknown) => HttpAnswer) => (httpAnswer = a);
const grpcGive = (a: GrpcAnswer) => (grpcAnswer = a);
const AGENTS = [
  { name: 'JSON-RPC', route: 'j', answers: httpAnswers, valid: (s: boolean) => validHttp(RESULT, true, s), give: http },
  { name: 'REST', route: 'r', answers: restAnswers, valid: (s: boolean) => validHttp(RESULT, false, s), give: http },
  {
    name: 'JSON-RPC 0.3',
    route: 'j03',
    answers: (s: boolean) => httpAnswers(s, results03),
    valid: (s: boolean) => validHttp(TASK03, true, s),
    give: http,
  },
  {
    name: 'REST 0.3',
    route: 'r03',
    answers: (s: boolean) => restAnswers(s, REST_V03),
    valid: (s: boolean) => validHttp(REST_V03.result, false, s),
    give: http,
  },
  { name: 'gRPC', route: 'g', answers: () => grpcAnswers(GRPC_V1), valid: () => validGrpc(GRPC_V1), give: grpcGive },
  {
    name: 'gRPC 0.3',
    route: 'g03',
    answers: () => grpcAnswers(GRPC_V03),
    valid: () => validGrpc(GRPC_V03),
    give: grpcGive,
  },
] as const;

for (const streaming of [false, true]) {
  for (const agent of AGENTS) {
    t.test(`a ${agent.name} agent's answers to ${streaming ? 'streams' : 'unary calls'}: ${RUNS} cases`, async (tt) => {
      let cases = 0;
      const given = agent.answers(streaming);
      // some answers cut off where the agent dies (its stream reset or its connection gone)
      const answers = (
        agent.route.startsWith('g')
          ? cutGrpc(given as fc.Arbitrary<GrpcAnswer>)
          : cutHttp(given as fc.Arbitrary<(id: unknown) => HttpAnswer>)
      ) as fc.Arbitrary<Parameters<typeof agent.give>[0]>;
      await fc.assert(
        fc.asyncProperty(answers, fc.boolean(), async (answer, grpcCaller) => {
          (agent.give as (a: typeof answer) => void)(answer);
          cases++;
          const cut = (typeof answer === 'function' ? answer(7) : answer).cut !== undefined;
          return grpcCaller ? viaGrpc(agent.route, streaming, cut) : viaJsonRpc(agent.route, streaming, cut);
        }),
        { numRuns: RUNS },
      );
      tt.equal(cases, RUNS, 'every case answered well-formed, none with the gateway failing');
    });
  }
}

t.test("the gateway keeps serving: each agent's valid answer goes through, to either caller", async (tt) => {
  for (const streaming of [false, true]) {
    for (const agent of AGENTS) {
      (agent.give as (a: ReturnType<typeof agent.valid>) => void)(agent.valid(streaming));
      const [results, oks] = [outcomes.get('JSON-RPC result') ?? 0, outcomes.get('gRPC 0') ?? 0];
      const what = `${agent.name} ${streaming ? 'stream' : 'unary'}`;
      tt.ok(await viaJsonRpc(agent.route, streaming), `${what}: a JSON-RPC answer`);
      tt.equal(outcomes.get('JSON-RPC result'), results + 1, `${what}: a JSON-RPC result`);
      tt.ok(await viaGrpc(agent.route, streaming), `${what}: a gRPC answer`);
      tt.equal(outcomes.get('gRPC 0'), oks + 1, `${what}: gRPC OK`);
    }
  }
});

t.test('no stream is counted open after the cases', async (tt) => {
  // each series 0 (a leak on one route and a double count on another must not cancel out)
  const open = async (): Promise<string[]> =>
    (await gw.metrics.text())
      .split('\n')
      .filter((l) => l.startsWith('a2a_gateway_active_streams{') && Number(l.split(' ').at(-1)) !== 0);
  tt.ok(await eventually(async () => (await open()).length === 0), `a2a_gateway_active_streams 0 (${await open()})`);
});

t.test('the cases reached answers and the agent-error outcomes alike', async (tt) => {
  tt.comment([...outcomes].map(([k, n]) => `${k}: ${n}`).join(', '));
  tt.ok(outcomes.get('JSON-RPC result'), 'some answers were results');
  tt.ok(outcomes.get('gRPC 0'), 'some gRPC calls ended OK');
  tt.ok(outcomes.get('JSON-RPC -32006'), 'some were INVALID_AGENT_RESPONSE');
});
