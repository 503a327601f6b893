// Issue 12 item 11: slow or silent callers cannot hold the gateway's
// connections. A request body that pauses longer than limits.bodyTimeoutMs
// (nginx client_body_timeout) is answered 408 in the caller's binding and the
// connection closed; headers that do not arrive within
// limits.headersTimeoutMs are 408 too; an idle keep-alive connection is closed
// after limits.idleTimeoutMs, and so is a gRPC connection that never sends its
// HTTP/2 preface. idleTimeoutMs is 8 s here, longer than Node's own keep-alive
// timeout (5 s; Node 20.20 closes 1 s after it), so a close at Node's default
// (the setting not applied) is told from one at the setting by a lower bound
// alone (7 s), which load cannot break: timers fire late, never early.
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import t from 'tap';
import { pino } from 'pino';
import { DEFAULT_LIMITS } from '../../src/config/types.js';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { CATALOGUE } from '../../src/errors/catalogue.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { gatewayConfig } from '../helpers/harness.js';
import { BOUND_MS, waitFor } from '../helpers/wait.js';

const IDLE_MS = 8000;
/** A close this long after the connection went idle is the gateway's setting, not Node's default (5 s + 1 s). */
const AT_LEAST_MS = 7000;

const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
const gw = await startGateway(
  gatewayConfig([{ name: 'a', upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' } }], {
    limits: { ...DEFAULT_LIMITS, bodyTimeoutMs: 300, headersTimeoutMs: 400, idleTimeoutMs: IDLE_MS },
  }),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  await gw.close();
  await agent.close();
});

interface Closed {
  answer: string;
  /** performance.now() at the connect, the last byte received (the connect if none) and the close. */
  connectedAt: number;
  lastDataAt: number;
  closedAt: number;
}
/** Opens a connection, writes `text`, and resolves with what came back once the gateway closes it. */
async function untilClosed(port: number, text: string): Promise<Closed> {
  let closed: Closed | undefined;
  let failed: Error | undefined;
  const at: Closed = { answer: '', connectedAt: 0, lastDataAt: 0, closedAt: 0 };
  const socket = connect(port, '127.0.0.1', () => {
    at.connectedAt = at.lastDataAt = performance.now();
    if (text) socket.write(text);
  });
  socket.on('data', (d: Buffer) => {
    at.answer += d.toString('latin1');
    at.lastDataAt = performance.now();
  });
  socket.on('error', (e) => (failed = e));
  socket.on('close', () => (closed = { ...at, closedAt: performance.now() }));
  // bounded: a connection the gateway never closes fails here, naming the wait, instead of at tap's timeout
  await waitFor(() => closed ?? failed, `the gateway to close a connection to port ${port}`, IDLE_MS + BOUND_MS);
  if (failed) throw failed;
  return closed!;
}
const bodyOf = (answer: string): JsonObject => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as JsonObject;

t.test('a stalled request body: 408 in the caller binding, connection closed', async (tt) => {
  const rpc = await untilClosed(
    gw.httpPort,
    'POST / HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"',
  );
  tt.match(rpc.answer, /^HTTP\/1\.1 408 /, 'JSON-RPC: 408');
  tt.equal((bodyOf(rpc.answer).error as JsonObject).code, CATALOGUE.REQUEST_TIMEOUT.jsonRpc, 'a JSON-RPC error');
  const rest = await untilClosed(
    gw.httpPort,
    'POST /message:send HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
  );
  tt.match(rest.answer, /^HTTP\/1\.1 408 /, 'REST: 408');
  tt.equal((bodyOf(rest.answer).error as JsonObject).status, 'DEADLINE_EXCEEDED', 'a REST error');
});

t.test('100 stalled bodies: every connection is closed', async (tt) => {
  const all = await Promise.all(
    Array.from({ length: 100 }, () =>
      untilClosed(
        gw.httpPort,
        'POST / HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n[',
      ),
    ),
  );
  tt.equal(all.filter((c) => c.answer.startsWith('HTTP/1.1 408 ')).length, 100, '100 of 100 answered 408 and closed');
});

t.test('headers that never finish: 408, closed', async (tt) => {
  const r = await untilClosed(gw.httpPort, 'GET /.well-known/agent-card.json HTTP/1.1\r\nHost: a\r\n');
  tt.match(r.answer, /^HTTP\/1\.1 408 /, '408');
  tt.match(r.answer, /REQUEST_TIMEOUT/, 'an A2A error');
});

t.test('idle connections are closed after idleTimeoutMs: keep-alive, and gRPC without its preface', async (tt) => {
  // at once, so the file waits out idleTimeoutMs once
  const [keepAlive, silent, partial] = await Promise.all([
    untilClosed(gw.httpPort, 'GET /.well-known/agent-card.json HTTP/1.1\r\nHost: a\r\n\r\n'),
    untilClosed(gw.grpcPort, ''),
    untilClosed(gw.grpcPort, 'PRI * HTTP/2.0\r\n'),
  ]);
  tt.match(keepAlive.answer, /^HTTP\/1\.1 200 /, 'keep-alive: the request was served');
  const idle = keepAlive.closedAt - keepAlive.lastDataAt;
  tt.ok(idle >= AT_LEAST_MS, `keep-alive: closed ${Math.round(idle)} ms after the answer, not at Node's default`);
  for (const [what, r] of [
    ['gRPC without a byte from the caller', silent],
    ['gRPC after half a preface', partial],
  ] as const) {
    const open = r.closedAt - r.connectedAt;
    tt.ok(open >= AT_LEAST_MS, `${what}: closed ${Math.round(open)} ms after the connect`);
  }
});
