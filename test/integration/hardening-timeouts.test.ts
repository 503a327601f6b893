// Issue 12 item 11: slow or silent callers cannot hold the gateway's
// connections. A request body that pauses longer than limits.bodyTimeoutMs
// (nginx client_body_timeout) is answered 408 in the caller's binding and the
// connection closed; headers that do not arrive within
// limits.headersTimeoutMs are 408 too; an idle keep-alive connection is closed
// after limits.idleTimeoutMs, and so is a gRPC connection that never sends its
// HTTP/2 preface.
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { pino } from 'pino';
import { DEFAULT_LIMITS } from '../../src/config/types.js';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { CATALOGUE } from '../../src/errors/catalogue.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { gatewayConfig } from '../helpers/harness.js';

const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
const gw = await startGateway(
  gatewayConfig([{ name: 'a', upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' } }], {
    limits: { ...DEFAULT_LIMITS, bodyTimeoutMs: 300, headersTimeoutMs: 400, idleTimeoutMs: 500 },
  }),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  await gw.close();
  await agent.close();
});

/** Opens a connection, writes `text`, and resolves with what came back once the gateway closes it. */
function untilClosed(port: number, text: string): Promise<{ answer: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      if (text) socket.write(text);
    });
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve({ answer, socket }));
  });
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

t.test('an idle keep-alive connection is closed after idleTimeoutMs', async (tt) => {
  const r = await untilClosed(gw.httpPort, 'GET /.well-known/agent-card.json HTTP/1.1\r\nHost: a\r\n\r\n');
  tt.match(r.answer, /^HTTP\/1\.1 200 /, 'the request was served, then the idle connection closed');
});

t.test('a gRPC connection that never sends its HTTP/2 preface is closed', async (tt) => {
  const silent = await untilClosed(gw.grpcPort, '');
  tt.pass('closed without a byte from the caller');
  tt.ok(silent.socket.destroyed);
  const partial = await untilClosed(gw.grpcPort, 'PRI * HTTP/2.0\r\n');
  tt.ok(partial.socket.destroyed, 'closed after half a preface');
});
