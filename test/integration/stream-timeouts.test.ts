// A stream's timeouts, translated and pass-through alike (pipeline/stages/send.ts,
// core/idle-timeout.ts): no first event within the route's timeoutMs ends the
// stream with UPSTREAM_TIMEOUT ("did not answer within"), and so does no event
// for streamIdleTimeoutMs after one ("sent no event for"); before, a gRPC
// stream waited only for the idle timeout and a relayed stream, gRPC or SSE,
// for ever; a caller leaving a relayed SSE stream ends the agent's; a 0.3
// agent's resubscribe (which resumes only later updates) has no first-event
// limit. Agents: a raw HTTP/2 one that answers as the request's text says
// (hold: nothing; one: a message, then nothing) and a JSON-RPC one that sends
// one SSE event and then nothing; each caller in its own binding.
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { create, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import t from 'tap';
import { request } from 'undici';
import { SendMessageRequestSchema } from '../../src/gen/a2a_pb.js';
import { startGateway } from '../../src/server/gateway.js';
import { jsonRpcAgent } from '../helpers/broken-upstreams.js';
import { gatewayConfig } from '../helpers/harness.js';
import { TestSseParser } from '../helpers/sse.js';
import { waitFor } from '../helpers/wait.js';

const held: http2.ServerHttp2Stream[] = [];
const grpcAgent = http2.createServer();
grpcAgent.on('stream', (stream) => {
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => {
    held.push(stream);
    if (!Buffer.concat(chunks).includes('one')) return; // hold: no answer at all
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
    stream.write(Buffer.from([0, 0, 0, 0, 0])); // one (empty) message, then nothing
  });
});
await new Promise<void>((r) => grpcAgent.listen(0, '127.0.0.1', r));
const grpcUrl = `127.0.0.1:${(grpcAgent.address() as AddressInfo).port}`;

let sseDropped = 0;
const sseAgent = await jsonRpcAgent((body, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders();
  res.on('close', () => sseDropped++);
  // a 0.3 resubscribe: nothing (a quiet task); anything else: one event, then nothing more
  if (body.method !== 'tasks/resubscribe')
    res.write('data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","contextId":"c"}}}\n\n');
});

const gw = await startGateway(
  gatewayConfig([
    // gRPC callers without a tenant: the pass-through; the first event within 300 ms, then 400 ms between events
    {
      name: 'grpc-pt',
      upstream: { url: grpcUrl, binding: 'GRPC' },
      passThrough: true,
      timeoutMs: 1000,
      streamIdleTimeoutMs: 400,
    },
    // JSON-RPC callers to a gRPC agent, translated: the idle time far off, so only the first-event limit can end it
    {
      name: 'translated',
      match: { pathPrefix: '/tr' },
      upstream: { url: grpcUrl, binding: 'GRPC' },
      timeoutMs: 300,
      streamIdleTimeoutMs: 20_000,
    },
    // a 0.3 agent's resubscribe: no first-event limit, only the idle one
    {
      name: 'v03',
      match: { pathPrefix: '/v03' },
      upstream: { url: sseAgent.url, binding: 'JSONRPC', version: '0.3' },
      timeoutMs: 300,
      streamIdleTimeoutMs: 1500,
    },
    {
      name: 'sse-pt',
      match: { pathPrefix: '/sse' },
      upstream: { url: sseAgent.url, binding: 'JSONRPC' },
      passThrough: true,
      streamIdleTimeoutMs: 400,
    },
  ]),
);
const client = new grpc.Client(`127.0.0.1:${gw.grpcPort}`, grpc.credentials.createInsecure());
t.teardown(async () => {
  client.close();
  for (const s of held) s.close();
  await gw.close();
  await new Promise((r) => grpcAgent.close(r));
  await sseAgent.close();
});

const message = (text: string) => ({
  messageId: 'm',
  role: 1,
  parts: [{ content: { case: 'text' as const, value: text } }],
});
const asIs = (b: Buffer): Buffer => b;

/** A gRPC SendStreamingMessage through the gateway: the messages it got and how it ended. */
function grpcStream(text: string): Promise<{ messages: number; error: grpc.ServiceError | undefined }> {
  const bytes = Buffer.from(
    toBinary(SendMessageRequestSchema, create(SendMessageRequestSchema, { message: message(text) })),
  );
  const md = new grpc.Metadata();
  md.set('a2a-version', '1.0');
  const call = client.makeServerStreamRequest('/lf.a2a.v1.A2AService/SendStreamingMessage', asIs, asIs, bytes, md, {});
  let messages = 0;
  call.on('data', () => messages++);
  return new Promise((resolve) => {
    call.on('error', (error: grpc.ServiceError) => resolve({ messages, error }));
    call.on('end', () => resolve({ messages, error: undefined }));
  });
}

t.test(
  'a relayed gRPC stream with no first message: UPSTREAM_TIMEOUT at timeoutMs',
  { timeout: 15_000 },
  async (tt) => {
    const { messages, error } = await grpcStream('hold');
    tt.equal(messages, 0);
    tt.equal(error?.code, grpc.status.DEADLINE_EXCEEDED);
    tt.match(error?.details, /did not answer within 1000 ms/);
  },
);

t.test(
  'a relayed gRPC stream silent after a message: UPSTREAM_TIMEOUT at the idle time',
  { timeout: 15_000 },
  async (tt) => {
    const { messages, error } = await grpcStream('one');
    tt.equal(messages, 1, 'the message came through');
    tt.equal(error?.code, grpc.status.DEADLINE_EXCEEDED);
    tt.match(error?.details, /sent no event for 400 ms/);
  },
);

t.test('a translated stream to a gRPC agent with no first event: UPSTREAM_TIMEOUT at timeoutMs', async (tt) => {
  const res = await request(`${gw.httpUrl}/tr`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendStreamingMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hold' }] } },
    }),
  });
  // an error before the first event is the JSON-RPC answer itself, after one an SSE event
  const text = await res.body.text();
  const sse = String(res.headers['content-type']).startsWith('text/event-stream');
  const parser = new TestSseParser();
  const last = sse ? [...parser.push(text), ...parser.end()].at(-1)!.data : text;
  const error = (JSON.parse(last) as { error: { code: number; message: string } }).error;
  tt.equal(error.code, -32052, 'UPSTREAM_TIMEOUT');
  tt.match(error.message, /did not answer within 300 ms/, 'the first-event limit, not the 20 s idle time');
});

t.test(
  'a relayed SSE stream silent after an event: cut at the idle time, the agent let go',
  { timeout: 15_000 },
  async (tt) => {
    const res = await request(`${gw.httpUrl}/sse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: {} } }),
    });
    tt.equal(res.statusCode, 200);
    let text = '';
    const ended = await (async () => {
      for await (const chunk of res.body) text += String(chunk);
    })().then(
      () => 'ended',
      () => 'cut',
    );
    tt.match(text, /"task":\{"id":"t"/, 'the event came through');
    tt.equal(ended, 'cut', 'the stream did not end as if complete');
    await waitFor(() => sseDropped > 0, "the agent's stream closed");
  },
);

t.test("a caller that leaves a relayed SSE stream: the agent's stream ends too", async (tt) => {
  const before = sseDropped;
  const res = await request(`${gw.httpUrl}/sse`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: {} } }),
  });
  for await (const chunk of res.body) {
    tt.match(String(chunk), /"task"/, 'the event came through');
    break; // the caller leaves
  }
  await waitFor(() => sseDropped > before, "the agent's stream closed");
});

t.test("a 0.3 agent's resubscribe may wait past timeoutMs for its first event: only the idle limit", async (tt) => {
  const res = await request(`${gw.httpUrl}/v03`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: 't' } }),
  });
  const text = await res.body.text();
  tt.notMatch(text, /did not answer within 300 ms/, 'not cut at timeoutMs');
  tt.match(text, /sent no event for 1500 ms/, 'ended by the idle limit');
});
