// One access log line per request in one shape (issue 15 item 4): client
// address, A2A method, path, status (HTTP or gRPC), outcome, bytes in and
// out, for answers, errors, requests no route matches and requests that do
// not parse (a JSON-RPC batch of non-objects: one line and one count per
// item); X-Request-Id returned on every answer (the caller's, or a new one)
// and forwarded upstream; probes and scrapes logged at debug only.
import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import { requestBytes } from '../helpers/codec.js';
import { grpcStreamCall } from '../helpers/streams.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, slug, userMessage } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

type Line = Record<string, any>;
const lines: Line[] = [];
const sink = new Writable({
  write(c: Buffer, _e, cb) {
    for (const l of c.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line);
    cb();
  },
});
const agent = await startEchoAgent({ bindings: BINDINGS });
const gw = await startGateway(
  gatewayConfig(
    [
      ...BINDINGS.map((b) => ({
        name: `to-${b}`,
        match: { tenant: `t-${slug(b)}` },
        upstream: { url: agent.urlFor(b), binding: b, tenant: 'clear' as const },
      })),
      {
        name: 'pt',
        match: { pathPrefix: '/pt' },
        upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const },
        passThrough: true,
      },
    ],
    { admin: { host: '127.0.0.1', port: 0 } },
  ),
  pino({ level: 'debug' }, sink),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await agent.close();
});

const lineOf = (requestId: string) =>
  waitFor(() => lines.find((l) => l.msg === 'call' && l.requestId === requestId), `the line of ${requestId}`);

t.test('a call: one line with client, method, path, status, bytes; the id returned and forwarded', async (tt) => {
  for (const b of BINDINGS) {
    const id = `req-${b.replace('+', '')}-1`;
    const r = await CALLERS[b](
      gw,
      'SendMessage',
      { message: userMessage('hi') },
      { tenant: `t-${slug(b)}`, prefix: '', headers: { 'x-request-id': id } },
    );
    tt.equal(r.ok, true, `${b}: served`);
    if (b !== 'GRPC') tt.equal(r.headers?.['x-request-id'], id, `${b}: the caller's X-Request-Id comes back`);
    tt.equal(agent.lastCall()?.headers['x-request-id'], id, `${b}: and reaches the agent`);
    const line = await lineOf(id);
    tt.match(
      line,
      {
        client: '127.0.0.1',
        method: 'SendMessage',
        inbound: b,
        route: `to-${b}`,
        outcome: 'OK',
        status: b === 'GRPC' ? 0 : 200,
        path: b === 'GRPC' ? '/lf.a2a.v1.A2AService/SendMessage' : b === 'JSONRPC' ? '/' : '/t-rest/message:send',
      },
      `${b}: the line`,
    );
    tt.ok(line.bytesIn > 0 && line.bytesOut > 0, `${b}: bytes in and out`);
  }
});

t.test('errors, no route, unparseable: logged and counted in the same shape', async (tt) => {
  const rest = await request(`${gw.httpUrl}/t-rest/tasks/none`, { headers: { 'a2a-version': '1.0' } });
  await rest.body.dump();
  const restId = String(rest.headers['x-request-id']);
  tt.match(
    await lineOf(restId),
    { method: 'GetTask', status: 404, outcome: 'TASK_NOT_FOUND' },
    'REST error: 404 in the line',
  );
  const nowhere = await request(`${gw.httpUrl}/nowhere/at/all`, {
    method: 'POST',
    body: '{}',
    headers: { 'content-type': 'application/json' },
  });
  const body = await nowhere.body.text();
  tt.ok(nowhere.headers['x-request-id'], 'no route: the answer still names its request');
  const line = await lineOf(String(nowhere.headers['x-request-id']));
  tt.match(
    line,
    { method: null, route: null, outcome: 'METHOD_NOT_FOUND', status: nowhere.statusCode, path: '/nowhere/at/all' },
    'a path that is no A2A operation: logged',
  );
  tt.equal(line.bytesOut, Buffer.byteLength(body), 'with the bytes sent');
  const stranger = await request(`${gw.httpUrl}/nobody/message:send`, {
    method: 'POST',
    body: JSON.stringify({ message: userMessage('x') }),
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
  });
  await stranger.body.dump();
  tt.match(
    await lineOf(String(stranger.headers['x-request-id'])),
    { method: 'SendMessage', route: null, outcome: 'NO_ROUTE', status: stranger.statusCode },
    'a tenant no route serves: logged',
  );
  const garbled = await request(`${gw.httpUrl}/`, {
    method: 'POST',
    body: '{"jsonrpc":',
    headers: { 'content-type': 'application/json' },
  });
  await garbled.body.dump();
  tt.match(
    await lineOf(String(garbled.headers['x-request-id'])),
    { outcome: 'PARSE_ERROR', inbound: 'JSONRPC' },
    'unparseable: logged',
  );
  const metrics = await (await request(`${gw.adminUrl}/metrics`)).body.text();
  tt.match(
    metrics,
    /a2a_gateway_calls_total\{route="-",method="unknown",inbound="JSONRPC",upstream="-",outcome="PARSE_ERROR"[^}]*\} [1-9]/,
    'and counted',
  );
  const g = await new Promise<{ code: number; md: grpc.Metadata }>((resolve) => {
    const client = new grpc.Client(gw.grpcAddress, grpc.credentials.createInsecure());
    let md = new grpc.Metadata();
    const md0 = new grpc.Metadata();
    md0.set('a2a-version', '1.0');
    md0.set('x-request-id', 'grpc-err-1');
    const call = client.makeUnaryRequest(
      '/lf.a2a.v1.A2AService/GetTask',
      (b: Buffer) => b,
      (b: Buffer) => b,
      requestBytes('GetTask', { id: 'none', tenant: 't-grpc' }),
      md0,
      (err) => {
        client.close();
        resolve({ code: err?.code ?? 0, md });
      },
    );
    call.on('metadata', (m) => (md = m));
  });
  tt.equal(g.md.get('x-request-id')[0], 'grpc-err-1', 'gRPC: the id comes back in the response metadata');
  tt.match(
    await lineOf('grpc-err-1'),
    { status: g.code, outcome: 'TASK_NOT_FOUND', inbound: 'GRPC' },
    'gRPC error: its status code in the line',
  );
});

t.test("a JSON-RPC pass-through's error answer (HTTP 200) is logged and counted as its error", async (tt) => {
  const res = await request(`${gw.httpUrl}/pt`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'none' } }),
  });
  tt.equal(res.statusCode, 200);
  tt.match(((await res.body.json()) as { error?: { code: number } }).error, { code: -32001 }, 'relayed as it came');
  tt.match(
    await lineOf(String(res.headers['x-request-id'])),
    { route: 'pt', passThrough: true, outcome: 'TASK_NOT_FOUND' },
    'the line says what the agent answered',
  );
  const metrics = await (await request(`${gw.adminUrl}/metrics`)).body.text();
  tt.match(metrics, /a2a_gateway_calls_total\{route="pt",method="GetTask",[^}]*outcome="TASK_NOT_FOUND"[^}]*\} 1/);
});

t.test('a JSON-RPC batch of non-objects, a body that is one: each item logged and counted', async (tt) => {
  const invalid = async (): Promise<number> => {
    const text = await (await request(`${gw.adminUrl}/metrics`)).body.text();
    const counted =
      /^a2a_gateway_calls_total\{route="-",method="unknown",inbound="JSONRPC",upstream="-",outcome="INVALID_REQUEST"[^}]*\} (\d+)$/m;
    return Number(counted.exec(text)?.[1] ?? 0);
  };
  const post = async (requestId: string, body: string) => {
    const res = await request(`${gw.httpUrl}/`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-request-id': requestId },
    });
    return (await res.body.json()) as unknown;
  };
  const before = await invalid();
  const answers = await post('batch-junk-1', '[1,"x",null]');
  tt.match(
    answers,
    [1, 2, 3].map(() => ({ id: null, error: { code: -32600 } })),
    'three errors, as before',
  );
  const of = (id: string) => lines.filter((l) => l.msg === 'call' && l.requestId === id);
  const logged = await waitFor(() => of('batch-junk-1').length === 3 && of('batch-junk-1'), 'three lines');
  for (const line of logged)
    tt.match(line, { inbound: 'JSONRPC', outcome: 'INVALID_REQUEST', method: null, path: '/' }, 'a line per item');
  tt.equal(await invalid(), before + 3, 'each item counted');
  tt.match(await post('single-junk-1', '"x"'), { id: null, error: { code: -32600 } }, 'a body that is no object');
  tt.match(await lineOf('single-junk-1'), { outcome: 'INVALID_REQUEST' }, 'logged');
  tt.equal(await invalid(), before + 4, 'and counted');
});

t.test('a gRPC stream: its id in the response headers, with events and when it fails before any', async (tt) => {
  // the headers of a stream leave after its upstream call is on its way; a failure answered before then sends them
  // itself ahead of its status (else the status goes trailers-only, without the id)
  const stream = (id: string, tenant: string, method: 'SendStreamingMessage' | 'SubscribeToTask', params: object) =>
    new Promise<{ md?: grpc.Metadata; events: number; code: number }>((resolve) => {
      const call = grpcStreamCall(gw, method, params as never, { tenant, prefix: '', headers: { 'x-request-id': id } });
      const out: { md?: grpc.Metadata; events: number; code: number } = { events: 0, code: 0 };
      call.on('metadata', (m) => (out.md = m));
      call.on('data', () => out.events++);
      call.on('error', (e: grpc.ServiceError) => resolve({ ...out, code: e.code }));
      call.on('end', () => resolve(out));
    });
  const ok = await stream('grpc-stream-1', 't-grpc', 'SendStreamingMessage', { message: userMessage('hi') });
  tt.ok(ok.events > 0 && ok.code === 0, 'the stream is served');
  tt.equal(ok.md?.get('x-request-id')[0], 'grpc-stream-1', 'its id in the headers');
  const noRoute = await stream('grpc-stream-2', 'no-such-tenant', 'SendStreamingMessage', {
    message: userMessage('hi'),
  });
  tt.not(noRoute.code, 0, 'a stream no route takes fails');
  tt.equal(noRoute.md?.get('x-request-id')[0], 'grpc-stream-2', 'with its id in the headers before its status');
  const unknown = await stream('grpc-stream-3', 't-grpc', 'SubscribeToTask', { id: 'no-such-task' });
  tt.equal(unknown.code, grpc.status.NOT_FOUND, "the agent's error before any event");
  tt.equal(unknown.md?.get('x-request-id')[0], 'grpc-stream-3', 'with its id in the headers');
  const again = await stream('grpc-stream-4', 't-grpc', 'SendStreamingMessage', { message: userMessage('again') });
  tt.ok(again.events > 0 && again.code === 0, 'and the gateway goes on serving');
});

t.test('probes and scrapes: at debug, in the same shape', async (tt) => {
  const before = lines.length;
  const r = await request(`${gw.adminUrl}/healthz`);
  await r.body.dump();
  const probe = await waitFor(() => lines.slice(before).find((l) => l.msg === 'probe'), 'the probe line');
  tt.match(
    probe,
    { level: 20, path: '/healthz', status: 200, client: '127.0.0.1' },
    'debug, with path, status and client',
  );
  tt.notOk(
    lines.slice(before).some((l) => l.msg === 'incoming request' || l.msg === 'request completed'),
    "no line in fastify's own format",
  );
});
