// Same-binding pass-through (`passThrough: true`): calls and streams reach the
// SDK agent of the caller's binding without being decoded, the agent's errors
// come back as the agent sent them, and the version check, size limit, logs
// and metrics still apply (a relayed stream's events counted in its log line
// and metric, an HTTP one's from its SSE bytes).
import { Writable } from 'node:stream';
import t from 'tap';
import { pino } from 'pino';
import type { Binding } from '../../src/config/types.js';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, userMessage } from '../helpers/harness.js';
import { STREAM_CALLERS } from '../helpers/streams.js';
import { waitFor } from '../helpers/wait.js';

const agent = await startEchoAgent({ bindings: BINDINGS });
const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(c: Buffer, _e, cb) {
    for (const l of c.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
    cb();
  },
});
// One gateway per binding: a pass-through route at the root (gRPC reaches only tenantless routes by :authority or root).
const gateways = new Map<Binding, Awaited<ReturnType<typeof startGateway>>>();
for (const b of BINDINGS) {
  gateways.set(
    b,
    await startGateway(
      gatewayConfig([
        { name: `pt-${b}`, upstream: { url: agent.urlFor(b), binding: b }, passThrough: true, maxBodyBytes: 4096 },
      ]),
      pino({ level: 'info' }, sink),
    ),
  );
}
t.teardown(async () => {
  closeGrpcClients();
  await Promise.all([...gateways.values()].map((g) => g.close()));
  await agent.close();
});

for (const b of BINDINGS) {
  t.test(`${b} pass-through`, async (tt) => {
    const gw = gateways.get(b)!;
    const opts = { tenant: '', prefix: '', headers: { 'x-not-allowed': 'dropped' } };
    const sent = await CALLERS[b](gw, 'SendMessage', { message: userMessage('through') }, opts);
    tt.equal(((sent.result?.task as JsonObject)?.status as JsonObject)?.state, 'TASK_STATE_COMPLETED', 'SendMessage');
    tt.equal(agent.lastCall()?.headers['x-not-allowed'], undefined, 'headers still filtered');
    tt.equal(agent.lastCall()?.headers['a2a-version'], '1.0');
    const missing = await CALLERS[b](gw, 'GetTask', { id: 'nope' }, opts);
    tt.equal(missing.details?.find((d) => d.reason)?.reason, 'TASK_NOT_FOUND', "the agent's error as it sent it");
    const stream = await STREAM_CALLERS[b](gw, 'SendStreamingMessage', { message: userMessage('stream') }, opts);
    tt.same(stream.events, agent.published(), 'streams relayed event by event');
    // the stream's log line and metric count its events (an HTTP stream's from the SSE bytes piped as they came)
    const streamLine = await waitFor(
      () => lines.find((l) => l.route === `pt-${b}` && l.method === 'SendStreamingMessage'),
      'the stream logged',
    );
    tt.ok(stream.events.length > 1, 'the agent sent several events');
    tt.equal(streamLine.events, stream.events.length, 'the log line counts the events relayed');
    tt.match(
      await gw.metrics.text(),
      `a2a_gateway_stream_events_total{route="pt-${b}",inbound="${b}"} ${stream.events.length}\n`,
      'and so does the metric',
    );
    const badVersion = await CALLERS[b](gw, 'GetTask', { id: 'x' }, { ...opts, headers: { 'a2a-version': '0.3' } });
    tt.equal(badVersion.details?.find((d) => d.reason)?.reason, 'VERSION_NOT_SUPPORTED', 'the version check stays');
    const big = await CALLERS[b](gw, 'SendMessage', { message: userMessage('x'.repeat(8000)) }, opts);
    if (b === 'GRPC') tt.equal(big.code, 8, 'the size limit stays (RESOURCE_EXHAUSTED from the listener)');
    else tt.equal(big.details?.find((d) => d.reason)?.reason, 'PAYLOAD_TOO_LARGE', 'the size limit stays');
    tt.ok(
      lines.some((l) => l.msg === 'call' && l.passThrough === true && l.route === `pt-${b}`),
      'logged as pass-through',
    );
  });
}
