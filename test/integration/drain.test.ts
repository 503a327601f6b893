// A rollout does not cut calls (issue 15 item 1): on drain, readiness fails at
// once, no new connection is taken, and a unary call in flight — to an
// upstream slower than any fixed wait — finishes within shutdownGraceMs and is
// answered; only when the grace period is over do open streams end with
// SHUTTING_DOWN. The upstream answers when the test releases it, so nothing
// here waits on a clock.
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { connect } from 'node:net';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import { brokenHttp, jsonRpcAgent } from '../helpers/broken-upstreams.js';
import { CALLERS, gatewayConfig, userMessage } from '../helpers/harness.js';
import { STREAM_CALLERS } from '../helpers/streams.js';

t.test('a slow unary call in flight finishes during the drain', async (tt) => {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let arrived!: () => void;
  const inFlight = new Promise<void>((r) => (arrived = r));
  const slow = await brokenHttp((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(404).end(); // its card: none
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      arrived();
      const { id } = JSON.parse(body) as { id: number };
      void released.then(() =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            result: { task: { id: 't-slow', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } },
          }),
        ),
      );
    });
  });
  const gw = await startGateway(
    gatewayConfig([{ name: 'slow', upstream: { url: slow.url, binding: 'JSONRPC' }, timeoutMs: 60_000 }], {
      admin: { host: '127.0.0.1', port: 0 },
    }),
    pino({ level: 'silent' }),
  );
  tt.teardown(async () => {
    await gw.close();
    await slow.close();
  });
  const call = CALLERS.JSONRPC(gw, 'SendMessage', { message: userMessage('slow') }, { tenant: '', prefix: '' });
  await inFlight;
  const drained = gw.drain(60_000);
  const ready = await request(`${gw.adminUrl}/readyz`);
  tt.equal(ready.statusCode, 503, 'readiness fails at once');
  await ready.body.dump();
  release();
  const r = await call;
  tt.equal(r.ok, true, 'the call in flight was answered, not cut');
  tt.equal((r.result?.task as { id?: string } | undefined)?.id, 't-slow');
  await drained;
});

t.test('streams still open when the grace period ends get SHUTTING_DOWN', async (tt) => {
  const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
  const gw = await startGateway(
    gatewayConfig([{ name: 'hold', upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' } }]),
    pino({ level: 'silent' }),
  );
  tt.teardown(async () => {
    await gw.close();
    await agent.close();
  });
  let opened!: () => void;
  const first = new Promise<void>((r) => (opened = r));
  const stream = STREAM_CALLERS.JSONRPC(
    gw,
    'SendStreamingMessage',
    { message: userMessage('hold') },
    { tenant: '', prefix: '', onEvent: () => opened() },
  );
  await first;
  await gw.drain(50);
  const result = await stream;
  tt.ok(result.events.length > 0, 'events before the drain arrived');
  tt.equal(
    (result.error?.details as Array<{ reason?: string }> | undefined)?.find((d) => d.reason)?.reason,
    'SHUTTING_DOWN',
    'the stream ended with SHUTTING_DOWN in its own binding',
  );
});

t.test(
  'a request that comes on a kept-alive connection after the drain began is SHUTTING_DOWN, and the connection closes',
  async (tt) => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const inFlight = new Promise<void>((r) => (arrived = r));
    const agent = await jsonRpcAgent((body, res) => {
      arrived();
      void released.then(() =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: body.id,
            result: { task: { id: 't-1', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } },
          }),
        ),
      );
    });
    const gw = await startGateway(
      gatewayConfig([{ name: 'r', upstream: { url: agent.url, binding: 'JSONRPC' } }]),
      pino({ level: 'silent' }),
    );
    tt.teardown(async () => {
      await gw.close();
      await agent.close();
    });
    const socket = connect(gw.httpPort, '127.0.0.1');
    let got = '';
    socket.on('data', (d: Buffer) => (got += d.toString()));
    const ended = once(socket, 'close');
    const post = (id: number, method: string, params: object): string => {
      const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
      const head = `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\na2a-version: 1.0\r\n`;
      return `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    };
    socket.write(post(1, 'SendMessage', { message: userMessage('first') }));
    await inFlight;
    const drained = gw.drain(60_000);
    // the second request on the same connection, after the listener began to close
    socket.write(post(2, 'GetTask', { id: 't-1' }));
    release();
    await ended;
    await drained;
    const answers = got.split(/(?=HTTP\/1\.1 )/);
    tt.equal(answers.length, 2, 'two answers on the connection, then it closed');
    tt.match(answers[0], /^HTTP\/1\.1 200 /, 'the call in flight was answered');
    tt.match(answers[1], /^HTTP\/1\.1 503 /, 'the late one: 503');
    tt.match(answers[1], /\r\nconnection: close\r\n/i, 'with Connection: close');
    const error = JSON.parse(answers[1]!.slice(answers[1]!.indexOf('\r\n\r\n') + 4)) as {
      id: unknown;
      error: { code: number; data?: Array<{ reason?: string }> };
    };
    tt.equal(error.error.code, -32063, 'a JSON-RPC error in the caller binding: SHUTTING_DOWN');
    tt.equal(error.error.data?.find((d) => d.reason)?.reason, 'SHUTTING_DOWN');
  },
);

t.test('pass-through streams end when the grace period ends, as translated ones do', async (tt) => {
  const agent = await startEchoAgent({ bindings: ['JSONRPC', 'GRPC'] });
  const lines: Array<{ msg?: string; route?: string; outcome?: string; activeCalls?: number }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as (typeof lines)[0]);
      cb();
    },
  });
  const card = { url: `${agent.httpUrl}/.well-known/agent-card.json` };
  const gw = await startGateway(
    gatewayConfig([
      {
        name: 'pt-rpc',
        match: { pathPrefix: '/rpc' },
        upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' },
        passThrough: true,
      },
      {
        name: 'pt-grpc',
        match: { tenant: 'g' },
        upstream: { url: agent.urlFor('GRPC'), binding: 'GRPC', tenant: 'keep' },
        card,
        passThrough: true,
      },
    ]),
    pino({ level: 'info' }, sink),
  );
  tt.teardown(async () => {
    await gw.close();
    await agent.close();
  });
  const opened: Array<Promise<void>> = [];
  const open = (caller: 'JSONRPC' | 'GRPC', tenant: string, prefix: string) => {
    let first!: () => void;
    opened.push(new Promise<void>((r) => (first = r)));
    const params = { message: userMessage('hold') };
    return STREAM_CALLERS[caller](gw, 'SendStreamingMessage', params, { tenant, prefix, onEvent: () => first() });
  };
  // the JSON-RPC caller's SSE answer is cut where the agent's was (no event of the gateway's inside a relayed stream)
  const rpc = open('JSONRPC', '', '/rpc').catch((e: unknown) => e);
  const grpc = open('GRPC', 'g', '');
  await Promise.all(opened);
  await gw.drain(50);
  const grpcResult = await grpc;
  await rpc;
  tt.equal(grpcResult.error?.code, 14, 'the gRPC caller: UNAVAILABLE, not a cancelled call');
  tt.match(grpcResult.error?.message ?? '', /shutting down/);
  const drained = lines.find((l) => l.msg === 'drained: closing the listeners');
  tt.equal(drained?.activeCalls, 0, 'no call left open when the listeners close: both streams ended at the grace');
  for (const route of ['pt-rpc', 'pt-grpc']) {
    tt.equal(lines.find((l) => l.route === route && l.msg === 'call')?.outcome, 'SHUTTING_DOWN', `${route} logged`);
  }
});
