// W3C trace context on every binding pair: a caller's traceparent reaches the
// upstream unchanged (HTTP header ↔ gRPC metadata), a caller without one gets
// a new trace started, and the trace id is in the call's log line.
import { Writable } from 'node:stream';
import t from 'tap';
import { pino } from 'pino';
import { startGateway } from '../../src/server/gateway.js';
import { startEchoAgent } from '../../src/demo/echo-agent.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, slug, userMessage } from '../helpers/harness.js';

const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({ write(chunk: Buffer, _enc, cb) { for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>); cb(); } });
const agent = await startEchoAgent({ bindings: BINDINGS });
const gw = await startGateway(gatewayConfig(BINDINGS.map((b) => ({
  name: `up-${slug(b)}`, match: { pathPrefix: `/up-${slug(b)}`, tenant: `up-${slug(b)}` }, upstream: { url: agent.urlFor(b), binding: b, tenant: 'clear' as const },
}))), pino({ level: 'info' }, sink));
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await agent.close();
});

const TP = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

for (const inbound of BINDINGS) {
  for (const upstream of BINDINGS) {
    t.test(`${inbound} → ${upstream}`, async (tt) => {
      const opts = { tenant: `up-${slug(upstream)}`, prefix: `/up-${slug(upstream)}` };
      await CALLERS[inbound](gw, 'SendMessage', { message: userMessage('traced') }, { ...opts, headers: { traceparent: TP, tracestate: 'vendor=1' } });
      tt.same([agent.lastCall()?.headers.traceparent, agent.lastCall()?.headers.tracestate], [TP, 'vendor=1'], "the caller's trace context reaches the upstream");
      tt.equal(lines.filter((l) => l.msg === 'call').at(-1)?.traceId, '4bf92f3577b34da6a3ce929d0e0e4736', 'its trace id is in the log line');
      await CALLERS[inbound](gw, 'SendMessage', { message: userMessage('untraced') }, opts);
      const started = agent.lastCall()?.headers.traceparent ?? '';
      tt.match(started, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/, 'a caller without one: a new trace is started');
      tt.equal(lines.filter((l) => l.msg === 'call').at(-1)?.traceId, started.split('-')[1], 'and logged');
    });
  }
}
