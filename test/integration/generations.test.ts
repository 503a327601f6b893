// Upstream connections per config generation (issue 11): translated and
// pass-through calls to one gRPC agent share one HTTP/2 session (node:http2);
// a reload moves new
// calls to new connections while a call in flight finishes on the old one,
// which then closes; a client certificate renewed at the same path is used
// after the reload. Connections are counted by a TCP relay in front of the
// real SDK agent.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import t from 'tap';
import { pino } from 'pino';
import type { ListenerTls } from '../../src/config/types.js';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, userMessage } from '../helpers/harness.js';
import { clientCertFiles } from '../helpers/client-cert-files.js';
import { countingRelay } from '../helpers/counting-relay.js';
import { STREAM_CALLERS } from '../helpers/streams.js';

const agent = await startEchoAgent({ bindings: BINDINGS });
const relay = await countingRelay(Number(agent.grpcAddress.split(':').pop()));
const upstream = { url: `127.0.0.1:${relay.port}`, binding: 'GRPC' as const };
const config = () =>
  gatewayConfig([
    { name: 'root', upstream, passThrough: true },
    { name: 'rpc', match: { pathPrefix: '/rpc' }, upstream: { ...upstream, tenant: 'clear' } },
  ]);
const gw = await startGateway(config(), pino({ level: 'silent' }));
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await relay.close();
  await agent.close();
});

t.test('one connection per agent, shared by translated and pass-through calls', async (tt) => {
  const translated = await CALLERS.JSONRPC(
    gw,
    'SendMessage',
    { message: userMessage('a') },
    { tenant: '', prefix: '/rpc' },
  );
  tt.equal(translated.ok, true, 'JSON-RPC → gRPC (translated)');
  const passed = await CALLERS.GRPC(gw, 'SendMessage', { message: userMessage('b') }, { tenant: '', prefix: '' });
  tt.equal(passed.ok, true, 'gRPC → gRPC (pass-through)');
  tt.equal(relay.total, 1, 'over the session the translated call opened');
  const again = await CALLERS['HTTP+JSON'](
    gw,
    'SendMessage',
    { message: userMessage('c') },
    { tenant: '', prefix: '/rpc' },
  );
  tt.equal(again.ok, true, 'HTTP+JSON → gRPC (translated)');
  tt.equal(relay.total, 1, 'over that session still');
});

t.test('a reload: new calls on new connections; the old ones close once their calls end', async (tt) => {
  const abort = new AbortController();
  let started!: () => void;
  const first = new Promise<void>((r) => (started = r));
  const held = STREAM_CALLERS.JSONRPC(
    gw,
    'SendStreamingMessage',
    { message: userMessage('hold') },
    { tenant: '', prefix: '/rpc', signal: abort.signal, onEvent: () => started() },
  ).catch(() => undefined);
  await first;
  const before = relay.total;
  gw.reload(config());
  const after = await CALLERS.JSONRPC(gw, 'GetTask', { id: 'none' }, { tenant: '', prefix: '/rpc' });
  tt.equal(after.details?.find((d) => d.reason)?.reason, 'TASK_NOT_FOUND', 'a call after the reload is served');
  tt.equal(relay.total, before + 1, 'over a new connection (the new generation has its own session)');
  tt.equal(relay.open, 2, "the old generation's session stays while the stream started before the reload runs");
  abort.abort();
  await held;
  await relay.openAtMost(1);
  tt.equal(relay.open, 1, "the old generation's connections closed when its last call ended");
  const again = await CALLERS.JSONRPC(gw, 'SendMessage', { message: userMessage('c') }, { tenant: '', prefix: '/rpc' });
  tt.equal(again.ok, true, 'and the new one keeps serving');
  tt.equal(relay.total, before + 1, 'without a new connection');
  const passed = await CALLERS.GRPC(gw, 'SendMessage', { message: userMessage('d') }, { tenant: '', prefix: '' });
  tt.equal(passed.ok, true, 'a pass-through call after the reload is served');
  tt.equal(relay.total, before + 1, "over the new generation's session, as its translated calls");
});

const FIX = new URL('../fixtures/tls/', import.meta.url).pathname;
const listener = (name: string): ListenerTls => ({
  cert: join(FIX, `${name}.pem`),
  key: join(FIX, `${name}-key.pem`),
  clientCa: join(FIX, 'ca.pem'),
  requireClientCert: true,
});

t.test('a client certificate renewed at the same path is used after a reload', async (tt) => {
  const callers: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) {
        const line = JSON.parse(l) as { msg?: string; caller?: string };
        if (line.msg === 'call' && line.caller) callers.push(line.caller);
      }
      cb();
    },
  });
  // "front": an A2A server on TLS that requires a client certificate and takes it as the caller's identity
  const front = await startGateway(
    gatewayConfig([{ name: 'front', upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' }, auth: { mtls: true } }], {
      tls: listener('server'),
    }),
    pino({ level: 'info' }, sink),
  );
  const { cert, key } = clientCertFiles(tt.testdir());
  const backConfig = () =>
    gatewayConfig([
      {
        name: 'back',
        upstream: { url: `${front.httpUrl}/`, binding: 'JSONRPC', tls: { ca: join(FIX, 'ca.pem'), cert, key } },
      },
    ]);
  const back = await startGateway(backConfig(), pino({ level: 'silent' }));
  tt.teardown(async () => {
    await back.close();
    await front.close();
  });
  const call = () => CALLERS.JSONRPC(back, 'SendMessage', { message: userMessage('who') }, { tenant: '', prefix: '' });
  tt.equal((await call()).ok, true, 'served over mTLS');
  tt.equal(callers.at(-1), 'mtls:alice', 'the upstream saw the first certificate');
  copyFileSync(join(FIX, 'client2.pem'), cert);
  copyFileSync(join(FIX, 'client2-key.pem'), key);
  back.reload(backConfig());
  tt.equal((await call()).ok, true, 'served after the reload');
  tt.equal(callers.at(-1), 'mtls:alice (renewed)', 'the renewed certificate at the same path was read and used');
});
