// Issue 13, `versions:` per route: a route with `versions: ['1.0']` refuses
// 0.3 callers with VersionNotSupported in their own binding and dialect —
// JSON-RPC 0.3 error object (code -32009, no 1.0 ErrorInfo array; for a
// stream, its one `event: error` frame, as 0.3 clients read it), 0.3 REST
// `{code, message}` body with HTTP 400, 0.3 gRPC status FAILED_PRECONDITION
// with a message and no grpc-status-details-bin — before anything reaches
// the agent, for unary and streaming methods alike; the official 0.3.14
// transports read it; 1.0 callers of the route are served; and a route with
// `versions: ['0.3']` refuses 1.0 callers the same way. The agent is reached
// through a proxy that records each call, so "nothing reached it" is a count.
import * as grpc from '@grpc/grpc-js';
import t from 'tap';
import { pino } from 'pino';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { JsonRpcTransport, RestTransport } from 'a2a-sdk-03/client';
import { GrpcTransport } from 'a2a-sdk-03/client/grpc';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, userMessage } from '../helpers/harness.js';
import { v03Message } from '../helpers/sdk-v03.js';
import { TestSseParser } from '../helpers/sse.js';

const agent = await startEchoAgent({ bindings: BINDINGS });
// the gateway reaches the agent through a proxy that records each A2A call (the card fetches apart)
const calls: string[] = [];
const proxy = createServer((req, res) => {
  if (!req.url!.includes('/.well-known/')) calls.push(`${req.method} ${req.url}`);
  const up = httpRequest(`${agent.httpUrl}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode!, answer.headers);
    answer.pipe(res);
  });
  up.on('error', () => res.destroy());
  req.pipe(up);
});
await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
const viaProxy = (url: string) =>
  url.replace(agent.httpUrl, `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
const gw = await startGateway(
  gatewayConfig([
    // the root route (0.3 gRPC callers reach only root and host routes) takes 1.0 callers only
    { name: 'strict', upstream: { url: viaProxy(agent.jsonRpcUrl), binding: 'JSONRPC' }, versions: ['1.0'] },
    {
      name: 'legacy',
      match: { pathPrefix: '/legacy' },
      upstream: { url: viaProxy(agent.restUrl), binding: 'HTTP+JSON' },
      versions: ['0.3'],
    },
  ]),
  pino({ level: 'silent' }),
);
const grpcClient = new grpc.Client(gw.grpcAddress, grpc.credentials.createInsecure());
t.teardown(async () => {
  grpcClient.close();
  closeGrpcClients();
  await gw.close();
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
  await agent.close();
});

/** The calls that reached the agent since `from` (a count of calls before): a refusal adds none. */
const reached = (from: number): string[] => calls.slice(from);
const lastText = () => agent.lastCall()?.text;

t.test('JSON-RPC: a 0.3 method on a 1.0-only route is -32009 in the 0.3 error form', async (tt) => {
  const before = calls.length;
  for (const [method, params] of [
    ['tasks/get', { id: 'x' }],
    ['message/send', { message: v03Message('refused') }],
    ['message/stream', { message: v03Message('refused') }],
  ] as const) {
    const res = await request(`${gw.httpUrl}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
    });
    let body: any;
    if (method === 'message/stream') {
      // 0.3 clients read a stream only as SSE: the refusal is the stream's one error event
      tt.match(res.headers['content-type'], /text\/event-stream/, `${method}: a stream`);
      const events = new TestSseParser().push(await res.body.text());
      tt.same(
        events.map((e) => e.event),
        ['error'],
        `${method}: one error event`,
      );
      body = JSON.parse(events[0]?.data ?? '{}');
    } else {
      tt.match(res.headers['content-type'], /application\/json/, `${method}: a plain JSON answer`);
      body = await res.body.json();
    }
    tt.equal(body.id, 7);
    tt.equal(body.error?.code, -32009, `${method}: -32009`);
    tt.match(
      body.error?.message,
      /not supported on route "strict"; route "strict" speaks only 1\.x$/,
      `${method}: says why`,
    );
    tt.notOk(Array.isArray(body.error?.data), `${method}: 0.3 data is no ErrorInfo array`);
  }
  const transport = new JsonRpcTransport({ endpoint: `${gw.httpUrl}/` });
  await tt.rejects(transport.getTask({ id: 'x' }), /\(Code: -32009\)/, 'the 0.3.14 JSON-RPC transport reads it');
  const stream = transport.sendMessageStream({ message: v03Message('refused') });
  await tt.rejects(stream.next(), /SSE event contained an error: .*\(Code: -32009\)/, 'and its stream reader');
  tt.same(reached(before), [], 'nothing reached the agent');
});

t.test('REST: a /v1 call without A2A-Version on a 1.0-only route is the 0.3 body with HTTP 400', async (tt) => {
  const before = calls.length;
  for (const [verb, path, body] of [
    ['GET', '/v1/tasks/x', undefined],
    ['POST', '/v1/message:send', { message: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'x' }] } }],
    ['POST', '/v1/message:stream', { message: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'x' }] } }],
  ] as const) {
    const res = await request(`${gw.httpUrl}${path}`, {
      method: verb,
      headers: body ? { 'content-type': 'application/json' } : {},
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    tt.equal(res.statusCode, 400, `${verb} ${path}: 400`);
    tt.match(res.headers['content-type'], /application\/json/);
    const json = (await res.body.json()) as any;
    tt.equal(json.code, -32009, `${verb} ${path}: {code: -32009}`);
    tt.type(json.message, 'string');
    tt.notOk('error' in json, 'not the 1.0 {error: …} body');
  }
  const transport = new RestTransport({ endpoint: gw.httpUrl });
  await tt.rejects(transport.getTask({ id: 'x' }), /\(Code: -32009\)/, 'the 0.3.14 REST transport reads it');
  tt.same(reached(before), [], 'nothing reached the agent');
});

t.test('gRPC: a2a.v1.A2AService on a 1.0-only route is FAILED_PRECONDITION without details', async (tt) => {
  const before = calls.length;
  const unary = await new Promise<grpc.ServiceError | undefined>((resolve) =>
    grpcClient.makeUnaryRequest(
      '/a2a.v1.A2AService/GetTask',
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.from([0x0a, 0x07, ...Buffer.from('tasks/x')]),
      new grpc.Metadata(),
      (err) => resolve(err ?? undefined),
    ),
  );
  tt.equal(unary?.code, grpc.status.FAILED_PRECONDITION, 'unary: FAILED_PRECONDITION');
  tt.match(unary?.details, /not supported on route "strict"/);
  tt.same(unary?.metadata.get('grpc-status-details-bin'), [], 'no 1.0 details (0.3 has none)');
  const transport = new GrpcTransport({ endpoint: gw.grpcAddress });
  await tt.rejects(transport.getTask({ id: 'x' }), /! 9 .*not supported/, 'the 0.3.14 gRPC transport reads it');
  const stream = transport.sendMessageStream({ message: v03Message('refused') });
  await tt.rejects(stream.next(), /! 9 .*not supported/, 'streaming: the same, before any event');
  tt.same(reached(before), [], 'nothing reached the agent');
});

t.test('1.0 callers of the 1.0-only route are served; 0.3-only refuses 1.0 callers', async (tt) => {
  for (const b of BINDINGS) {
    const before = calls.length;
    const sent = await CALLERS[b](
      gw,
      'SendMessage',
      { message: userMessage(`v1 over ${b}`) },
      { tenant: '', prefix: '' },
    );
    tt.ok(sent.ok, `${b}: a 1.0 call is served`);
    tt.same([reached(before).length, lastText()], [1, `v1 over ${b}`], `${b}: one call reached the agent`);
  }
  const refusedFrom = calls.length;
  for (const b of ['JSONRPC', 'HTTP+JSON'] as const) {
    const refused = await CALLERS[b](gw, 'GetTask', { id: 'x' }, { tenant: '', prefix: '/legacy' });
    tt.equal(
      refused.details?.find((d) => d.reason)?.reason,
      'VERSION_NOT_SUPPORTED',
      `${b}: a 1.0 caller of a 0.3-only route is refused in 1.0 form`,
    );
    tt.equal(
      (refused.details?.find((d) => d.reason)?.metadata as { supportedVersions?: string } | undefined)
        ?.supportedVersions,
      '0.3',
      `${b}: naming what the route speaks, not what the gateway does`,
    );
  }
  tt.same(reached(refusedFrom), [], 'the refused 1.0 calls reached nothing');
  const old = new RestTransport({ endpoint: `${gw.httpUrl}/legacy` });
  const task = await old.sendMessage({ message: v03Message('v03 on legacy'), configuration: { blocking: true } });
  tt.equal(task.kind, 'task', 'a 0.3 caller of the 0.3-only route is served');
  tt.equal(lastText(), 'v03 on legacy');
});
