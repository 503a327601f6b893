// An HTTP upstream's unary answer holding a large `raw` part (spec §4.1.6)
// is read as a caller's request is (http/json-body.ts readAnswerJson): the
// body is gathered into one buffer (of its declared length, or its chunks
// concatenated), its long base64 string left out of JSON.parse and decoded
// in place, so the part's bytes are a view of the answer's own buffer — not
// a 13 MiB string, then its parse, then a buffer of the bytes. Long strings
// anywhere else (an error's message) are read whole. The same for an SSE
// event's data (sse/reader.ts keeps large data as bytes), and a plain JSON
// answer to a stream request (its one event). JSON-RPC and REST
// upstream clients against a node:http server on 127.0.0.1.
import '../../src/util/base64.js'; // before @bufbuild/protobuf loads, as in the gateway's entry points
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import t, { type Test } from 'tap';
import { JsonRpcUpstream } from '../../src/bindings/jsonrpc/outbound.js';
import { RestUpstream } from '../../src/bindings/rest/outbound.js';
import { DEFAULT_LIMITS } from '../../src/config/types.js';
import { envelopeOf, serviceParameters } from '../../src/core/envelope.js';
import { methodInfo } from '../../src/core/methods.js';
import type { UpstreamTarget } from '../../src/core/upstream.js';
import { GetTaskRequestSchema, SubscribeToTaskRequestSchema, type Task } from '../../src/gen/a2a_pb.js';
import { UpstreamRegistry, type ClientFactories } from '../../src/upstream/registry.js';
import { failure } from '../helpers/failure.js';

const MiB = 2 ** 20;
const big = randomBytes(MiB + 2); // base64 with padding
const task = {
  id: 't1',
  contextId: 'c1',
  status: { state: 'TASK_STATE_COMPLETED' },
  history: [{ messageId: 'm1', role: 'ROLE_AGENT', parts: [{ raw: big.toString('base64'), filename: 'big.bin' }] }],
};
const longMessage = 'x'.repeat(100_000);

/** Writes `text` with its length, or chunked (no length: the body is gathered as chunks). */
function answer(res: ServerResponse, status: number, text: string, chunked: boolean): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  if (!chunked) return void res.end(text);
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += 50_000) res.write(bytes.subarray(at, at + 50_000));
  res.end();
}

async function readJson(req: IncomingMessage): Promise<{ id?: number }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString() || '{}') as { id?: number };
}

const server = createServer((req, res) => {
  const chunked = req.url!.includes('chunked');
  void readJson(req).then((body) => {
    if (req.url!.startsWith('/sse')) {
      // a stream of one event: the task (JSON-RPC: in a response), or for /sse-error a REST error event
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (req.url!.startsWith('/sse-error')) {
        const error = { code: 404, status: 'NOT_FOUND', message: longMessage };
        return void res.end(`event: error\ndata: ${JSON.stringify({ error })}\n\n`);
      }
      const data = req.url!.startsWith('/sse-rpc') ? { jsonrpc: '2.0', id: body.id, result: { task } } : { task };
      return void res.end(`data: ${JSON.stringify(data)}\n\n`);
    }
    if (req.url!.startsWith('/plain-missing')) {
      const error = { code: 404, status: 'NOT_FOUND', message: longMessage };
      return answer(res, 404, JSON.stringify({ error }), chunked);
    }
    if (req.url!.startsWith('/plain-empty')) return answer(res, 200, '', chunked);
    if (req.url!.startsWith('/plain')) {
      // a stream request answered with one plain JSON answer instead of a stream (the stream's one event)
      const data = req.url!.startsWith('/plain-rpc') ? { jsonrpc: '2.0', id: body.id, result: { task } } : { task };
      return answer(res, 200, JSON.stringify(data), chunked);
    }
    if (req.url!.startsWith('/rpc-error')) {
      return answer(
        res,
        200,
        JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32001, message: longMessage } }),
        chunked,
      );
    }
    if (req.url!.startsWith('/rpc')) {
      return answer(res, 200, JSON.stringify({ jsonrpc: '2.0', id: body.id, result: task }), chunked);
    }
    if (req.url!.startsWith('/missing')) {
      const error = { code: 404, status: 'NOT_FOUND', message: longMessage };
      return answer(res, 404, JSON.stringify({ error }), chunked);
    }
    return answer(res, 200, JSON.stringify(task), chunked);
  });
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const registry = new UpstreamRegistry({} as ClientFactories, DEFAULT_LIMITS);
t.teardown(async () => {
  await registry.close();
  await new Promise<void>((r) => server.close(() => r()));
});

const target = (url: string): UpstreamTarget => ({
  url,
  version: '1.0',
  timeoutMs: 10_000,
  maxSseEventBytes: 8 * MiB,
  maxResponseBytes: 8 * MiB,
  tls: undefined,
});
const getTask = () =>
  envelopeOf(methodInfo('GetTask'), create(GetTaskRequestSchema, { id: 't1' }), '', serviceParameters('1.0', [], {}));
const live = () => new AbortController().signal;
const subscribe = () =>
  envelopeOf(
    methodInfo('SubscribeToTask'),
    create(SubscribeToTaskRequestSchema, { id: 't1' }),
    '',
    serviceParameters('1.0', [], {}),
  );

function checkTask(tt: Test, answered: unknown, what: string): void {
  const raw = (answered as Task).history[0]?.parts[0]?.content;
  if (raw?.case !== 'raw') return void tt.fail(`${what}: no raw part`);
  tt.ok(Buffer.from(raw.value).equals(big), `${what}: the raw part, byte for byte`);
  // a view of the answer's body: its buffer holds the whole JSON (a decoded copy would be a buffer of its own size)
  tt.ok(raw.value.buffer.byteLength > (big.length * 4) / 3, `${what}: decoded in the answer's own buffer`);
}

for (const chunked of [false, true]) {
  const how = chunked ? 'chunked' : 'with its length';
  t.test(`JSON-RPC, an answer ${how}`, async (tt) => {
    const rpc = new JsonRpcUpstream(target(`${base}/rpc${chunked ? '-chunked' : ''}`), registry);
    checkTask(tt, await rpc.unary(getTask(), live()), 'result');
    const errorRpc = new JsonRpcUpstream(target(`${base}/rpc-error${chunked ? '-chunked' : ''}`), registry);
    const err = await failure(errorRpc.unary(getTask(), live()));
    tt.equal(err.message.length, longMessage.length, 'an error with a long message: the message read whole');
  });

  t.test(`REST, an answer ${how}`, async (tt) => {
    const rest = new RestUpstream(target(`${base}/rest${chunked ? '-chunked' : ''}`), registry);
    checkTask(tt, await rest.unary(getTask(), live()), 'task');
    const missing = new RestUpstream(target(`${base}/missing${chunked ? '-chunked' : ''}`), registry);
    const err = await failure(missing.unary(getTask(), live()));
    tt.equal(err.errorName, 'TASK_NOT_FOUND', 'an error answer: its catalogue error');
    tt.equal(err.message.length, longMessage.length, 'its long message read whole');
  });
}

t.test(
  'a stream event, or a plain answer to a stream request, holding a large part: decoded in place too; long error messages read whole',
  async (tt) => {
    const streamOf = (env: ReturnType<typeof subscribe>, client: JsonRpcUpstream | RestUpstream) =>
      client.stream(env, new AbortController().signal)[Symbol.asyncIterator]();
    for (const [name, client, what] of [
      ['JSON-RPC', new JsonRpcUpstream(target(`${base}/sse-rpc`), registry), 'event'],
      ['REST', new RestUpstream(target(`${base}/sse-rest`), registry), 'event'],
      ['JSON-RPC', new JsonRpcUpstream(target(`${base}/plain-rpc`), registry), 'plain answer to a stream request'],
      ['REST', new RestUpstream(target(`${base}/plain-rest`), registry), 'plain answer to a stream request'],
    ] as const) {
      const first = await streamOf(subscribe(), client).next();
      const event = first.value as { payload: { case: string; value: unknown } } | undefined;
      tt.equal(event?.payload.case, 'task', `${name} ${what}: the task event`);
      checkTask(tt, event?.payload.value, `${name} ${what}`);
    }
    const missing = await failure(
      streamOf(subscribe(), new RestUpstream(target(`${base}/plain-missing`), registry)).next(),
    );
    tt.equal(
      missing.errorName,
      'TASK_NOT_FOUND',
      'REST: a plain error answer to a stream request, its catalogue error',
    );
    tt.equal(missing.message.length, longMessage.length, 'its long message read whole');
    for (const [name, client] of [
      ['JSON-RPC', new JsonRpcUpstream(target(`${base}/plain-empty`), registry)],
      ['REST', new RestUpstream(target(`${base}/plain-empty`), registry)],
    ] as const) {
      const empty = await failure(streamOf(subscribe(), client).next());
      tt.equal(empty.errorName, 'INVALID_AGENT_RESPONSE', `${name}: an empty plain answer to a stream request`);
    }
    const err = await failure(streamOf(subscribe(), new RestUpstream(target(`${base}/sse-error`), registry)).next());
    tt.equal(err.errorName, 'TASK_NOT_FOUND', 'REST: an error event, its catalogue error');
    tt.equal(err.message.length, longMessage.length, 'its long message read whole');
  },
);
