// Logs: one pino line per call with route, method, inbound and upstream
// binding, outcome, duration and request id; Authorization never logged.
import { Writable } from 'node:stream';
import t from 'tap';
import { pino } from 'pino';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import { CALLERS, closeGrpcClients, gatewayConfig, userMessage } from '../helpers/harness.js';

t.test('one line per call, no secrets', async (tt) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  const agent = await startEchoAgent({ bindings: ['GRPC'] });
  const gw = await startGateway(
    gatewayConfig([{ name: 'logged', upstream: { url: agent.grpcAddress, binding: 'GRPC' } }]),
    pino({ level: 'info' }, sink),
  );
  tt.teardown(async () => {
    closeGrpcClients();
    await gw.close();
    await agent.close();
  });
  const opts = {
    tenant: '',
    prefix: '',
    headers: { authorization: 'Bearer top-secret-token', 'x-request-id': 'req-42' },
  };
  await CALLERS['HTTP+JSON'](gw, 'SendMessage', { message: userMessage('log me') }, opts);
  await CALLERS.JSONRPC(gw, 'GetTask', { id: 'missing' }, opts);
  await CALLERS.GRPC(gw, 'GetTask', { id: 'missing' }, opts);
  const calls = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'call');
  tt.equal(calls.length, 3, 'one line per call');
  tt.match(calls[0], {
    route: 'logged',
    method: 'SendMessage',
    inbound: 'HTTP+JSON',
    upstream: 'GRPC',
    outcome: 'OK',
    requestId: 'req-42',
  });
  tt.match(calls[1], { method: 'GetTask', inbound: 'JSONRPC', upstream: 'GRPC', outcome: 'TASK_NOT_FOUND' });
  tt.match(calls[2], { method: 'GetTask', inbound: 'GRPC', outcome: 'TASK_NOT_FOUND' });
  for (const c of calls) tt.type(c.durationMs, 'number', 'duration');
  tt.notOk(
    lines.some((l) => l.includes('top-secret-token')),
    'Authorization is never logged',
  );
});
