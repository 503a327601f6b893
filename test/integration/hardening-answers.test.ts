// What hostile or broken upstreams answer, and what the caller gets. Issue 12
// item 4: an answer over the route's maxResponseBytes (unary, the non-SSE body
// of a stream, a gRPC message) is INVALID_AGENT_RESPONSE and the upstream's
// connection is dropped, even for an endless body (declaring a length over
// the limit or none). Item 14: an empty gRPC OK
// where the method must return something, and a stream that ends without an
// event, are INVALID_AGENT_RESPONSE. Item 17: an upstream's bare HTTP 404 is
// TaskNotFound only for a call that names a task, METHOD_NOT_FOUND otherwise.
// Item 18: an unreachable upstream's address is logged, never answered.
import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { METHODS } from '../../src/core/methods.js';
import { CATALOGUE, type ErrorName } from '../../src/errors/catalogue.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { brokenGrpc, brokenHttp, refusedPort, type Broken } from '../helpers/broken-upstreams.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, userMessage } from '../helpers/harness.js';
import { STREAM_CALLERS } from '../helpers/streams.js';
import { eventually } from '../helpers/wait.js';

const MiB = 1024 * 1024;

/** Whether each endless answer's connection was dropped by the gateway (the writer saw it close). */
const dropped: string[] = [];
/** Writes JSON without end (with backpressure) until the reader goes away. */
function endless(res: ServerResponse, what: string, contentLength?: number): void {
  res.writeHead(200, {
    'content-type': 'application/json',
    ...(contentLength !== undefined ? { 'content-length': String(contentLength) } : {}),
  });
  res.write('{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"');
  const chunk = 'x'.repeat(64 * 1024);
  const pump = (): void => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', pump);
  };
  res.on('close', () => dropped.push(what));
  pump();
}

const huge = await brokenHttp((req, res) => {
  if (req.method === 'GET') return void res.writeHead(404).end();
  req.resume();
  req.on('end', () => endless(res, req.url ?? ''));
});
const declared = await brokenHttp((req, res) => {
  if (req.method === 'GET') return void res.writeHead(404).end();
  req.resume();
  req.on('end', () => endless(res, 'declared', 300 * MiB));
});
const grpcHuge = await brokenGrpc((cb) => cb(null, Buffer.alloc(2 * MiB, 0x0a)));
const grpcEmpty = await brokenGrpc((cb) => cb(null, Buffer.alloc(0)));
// A gRPC agent whose streams end at once, without an event.
const grpcNoEvents: Broken = await (async () => {
  const server = new grpc.Server();
  const def: grpc.UntypedServiceImplementation = {};
  const service: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {};
  for (const m of METHODS.values()) {
    if (!m.streaming) continue;
    service[m.name] = {
      path: `/lf.a2a.v1.A2AService/${m.name}`,
      requestStream: false,
      responseStream: true,
      requestSerialize: (b: Buffer) => b,
      requestDeserialize: (b: Buffer) => b,
      responseSerialize: (b: Buffer) => b,
      responseDeserialize: (b: Buffer) => b,
    };
    def[m.name] = (call: grpc.ServerWritableStream<Buffer, Buffer>) => call.end();
  }
  server.addService(service, def);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { url: `127.0.0.1:${port}`, close: async () => server.forceShutdown() };
})();
// SSE agents (JSON-RPC and REST flavour) whose streams end without an event.
const sseNoEvents = await brokenHttp((req, res) => {
  if (req.method === 'GET') return void res.writeHead(404).end();
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(': nothing\n\n'));
});
// A REST agent that answers every call with a bare 404, or a NOT_FOUND status without an A2A reason.
const bare404 = await brokenHttp((req, res) => {
  req.resume();
  if (req.url?.startsWith('/status')) {
    res.writeHead(404, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify({ error: { code: 404, status: 'NOT_FOUND', message: 'no such thing' } }));
  }
  res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
});
const refused = await refusedPort();

const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, cb) {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    cb();
  },
});
const r = (name: string, url: string, binding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC' | 'auto', extra = {}) => ({
  name,
  match: { pathPrefix: `/${name}`, tenant: name },
  upstream: { url, binding, tenant: 'clear' as const },
  timeoutMs: 5000,
  maxResponseBytes: MiB,
  ...extra,
});
const gw = await startGateway(
  gatewayConfig([
    r('huge-rpc', `${huge.url}/rpc`, 'JSONRPC'),
    r('huge-rest', `${huge.url}/rest`, 'HTTP+JSON'),
    r('declared', `${declared.url}/rpc`, 'JSONRPC'),
    r('huge-grpc', grpcHuge.url, 'GRPC'),
    r('empty-grpc', grpcEmpty.url, 'GRPC'),
    r('silent-grpc', grpcNoEvents.url, 'GRPC'),
    r('silent-rpc', `${sseNoEvents.url}/rpc`, 'JSONRPC'),
    r('silent-rest', `${sseNoEvents.url}/rest`, 'HTTP+JSON'),
    r('bare', `${bare404.url}/plain`, 'HTTP+JSON'),
    r('status', `${bare404.url}/status`, 'HTTP+JSON'),
    r('refused-rpc', `http://127.0.0.1:${refused}/rpc`, 'JSONRPC'),
    r('refused-grpc', `127.0.0.1:${refused}`, 'GRPC'),
    r('refused-card', `http://127.0.0.1:${refused}`, 'auto'),
  ]),
  pino({ level: 'info' }, sink),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  for (const s of [huge, declared, grpcHuge, grpcEmpty, grpcNoEvents, sseNoEvents, bare404]) await s.close();
});

const reason = (x: { details?: JsonObject[] }): unknown =>
  x.details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo')?.reason;
const opts = (name: string) => ({ tenant: name, prefix: `/${name}` });

t.test('an answer over maxResponseBytes: INVALID_AGENT_RESPONSE, the connection dropped', async (tt) => {
  for (const inbound of BINDINGS) {
    for (const name of ['huge-rpc', 'huge-rest', 'declared', 'huge-grpc']) {
      const res = await CALLERS[inbound](gw, 'SendMessage', { message: userMessage('big') }, opts(name));
      tt.equal(reason(res), 'INVALID_AGENT_RESPONSE', `${inbound} → ${name}: INVALID_AGENT_RESPONSE`);
      tt.match(res.message, /maxResponseBytes/, `${inbound} → ${name}: says why`);
    }
  }
  // each agent's writer sees its connection close when the gateway drops it, which may come after the answer
  const drops = async (is: (d: string) => boolean): Promise<boolean> =>
    eventually(() => dropped.filter(is).length >= BINDINGS.length);
  tt.ok(await drops((d) => d === '/rpc'), 'the endless JSON-RPC answers were dropped');
  tt.ok(await drops((d) => d.startsWith('/rest')), 'the endless REST answers were dropped');
  tt.ok(await drops((d) => d === 'declared'), 'the answers declaring 300 MiB were dropped too');
  const streamed = await STREAM_CALLERS.JSONRPC(
    gw,
    'SendStreamingMessage',
    { message: userMessage('s') },
    opts('huge-rpc'),
  );
  tt.equal(reason(streamed.error ?? {}), 'INVALID_AGENT_RESPONSE', 'a stream answered by an endless JSON body too');
});

t.test('an empty gRPC OK, or a stream without an event: INVALID_AGENT_RESPONSE', async (tt) => {
  for (const inbound of BINDINGS) {
    for (const method of ['SendMessage', 'GetTask'] as const) {
      const res = await CALLERS[inbound](
        gw,
        method,
        method === 'GetTask' ? { id: 't' } : { message: userMessage('e') },
        opts('empty-grpc'),
      );
      tt.equal(reason(res), 'INVALID_AGENT_RESPONSE', `${inbound} ${method}: an empty ${method} answer is not success`);
    }
    for (const name of ['silent-grpc', 'silent-rpc', 'silent-rest']) {
      const s = await STREAM_CALLERS[inbound](gw, 'SendStreamingMessage', { message: userMessage('s') }, opts(name));
      tt.same(
        [s.events.length, reason(s.error ?? {})],
        [0, 'INVALID_AGENT_RESPONSE'],
        `${inbound} → ${name}: a stream that ends without an event is an error`,
      );
    }
  }
});

t.test("an upstream's bare 404 is read by method", async (tt) => {
  const expect = (name: ErrorName): number => CATALOGUE[name].jsonRpc;
  for (const route of ['bare', 'status']) {
    const get = await CALLERS.JSONRPC(gw, 'GetTask', { id: 't-1' }, opts(route));
    tt.equal(get.code, expect('TASK_NOT_FOUND'), `${route}: GetTask → TaskNotFound`);
    const cancel = await CALLERS.JSONRPC(gw, 'CancelTask', { id: 't-1' }, opts(route));
    tt.equal(cancel.code, expect('TASK_NOT_FOUND'), `${route}: CancelTask → TaskNotFound`);
    const send = await CALLERS.JSONRPC(gw, 'SendMessage', { message: userMessage('x') }, opts(route));
    tt.equal(send.code, expect('METHOD_NOT_FOUND'), `${route}: SendMessage → METHOD_NOT_FOUND, not TaskNotFound`);
    const list = await CALLERS['HTTP+JSON'](gw, 'ListTasks', {}, opts(route));
    tt.same(
      [list.httpStatus, list.status],
      [501, 'UNIMPLEMENTED'],
      `${route}: ListTasks to a REST caller → 501 UNIMPLEMENTED`,
    );
    const grpcSend = await CALLERS.GRPC(gw, 'SendMessage', { message: userMessage('x') }, opts(route));
    tt.equal(grpcSend.code, grpc.status.UNIMPLEMENTED, `${route}: SendMessage to a gRPC caller → UNIMPLEMENTED`);
  }
});

t.test('an unreachable upstream: the address is logged, not answered', async (tt) => {
  for (const inbound of BINDINGS) {
    for (const name of ['refused-rpc', 'refused-grpc', 'refused-card']) {
      const res = await CALLERS[inbound](gw, 'SendMessage', { message: userMessage('x') }, opts(name));
      tt.equal(reason(res), 'UPSTREAM_UNAVAILABLE', `${inbound} → ${name}: UPSTREAM_UNAVAILABLE`);
      const answered = JSON.stringify(res.raw ?? {}) + (res.message ?? '') + JSON.stringify(res.details ?? []);
      tt.notOk(answered.includes(String(refused)), `${inbound} → ${name}: the port is not answered`);
      tt.notOk(answered.includes('127.0.0.1'), `${inbound} → ${name}: the address is not answered`);
    }
  }
  const logged = lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'call' && String(l.route).startsWith('refused-'));
  tt.equal(logged.length, 9, 'each call logged');
  tt.ok(
    logged.every((l) => String(l.errorDetail ?? '').includes(`127.0.0.1:${refused}`)),
    'each log line has the address',
  );
  const res = await request(`${gw.httpUrl}/refused-card/.well-known/agent-card.json`);
  const text = await res.body.text();
  tt.equal(res.statusCode, 503, "the route's card: 503");
  tt.notOk(text.includes(String(refused)), 'the card error does not name the address either');
});
