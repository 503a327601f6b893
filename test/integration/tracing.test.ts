// W3C trace context on every binding pair: a caller's traceparent reaches the
// upstream unchanged (HTTP header ↔ gRPC metadata), a caller without one gets
// a new trace started, and the trace id is in the call's log line; with OTLP
// export on, the gateway's span is exported and becomes the upstream's parent.
import { Writable } from 'node:stream';
import t from 'tap';
import { pino } from 'pino';
import { startGateway } from '../../src/server/gateway.js';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { brokenHttp } from '../helpers/broken-upstreams.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, slug, userMessage } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, cb) {
    for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
    cb();
  },
});
const agent = await startEchoAgent({ bindings: BINDINGS });
const gw = await startGateway(
  gatewayConfig(
    BINDINGS.map((b) => ({
      name: `up-${slug(b)}`,
      match: { pathPrefix: `/up-${slug(b)}`, tenant: `up-${slug(b)}` },
      upstream: { url: agent.urlFor(b), binding: b, tenant: 'clear' as const },
    })),
  ),
  pino({ level: 'info' }, sink),
);
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
      await CALLERS[inbound](
        gw,
        'SendMessage',
        { message: userMessage('traced') },
        { ...opts, headers: { traceparent: TP, tracestate: 'vendor=1' } },
      );
      tt.same(
        [agent.lastCall()?.headers.traceparent, agent.lastCall()?.headers.tracestate],
        [TP, 'vendor=1'],
        "the caller's trace context reaches the upstream",
      );
      tt.equal(
        lines.filter((l) => l.msg === 'call').at(-1)?.traceId,
        '4bf92f3577b34da6a3ce929d0e0e4736',
        'its trace id is in the log line',
      );
      await CALLERS[inbound](gw, 'SendMessage', { message: userMessage('untraced') }, opts);
      const started = agent.lastCall()?.headers.traceparent ?? '';
      tt.match(started, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/, 'a caller without one: a new trace is started');
      tt.equal(lines.filter((l) => l.msg === 'call').at(-1)?.traceId, started.split('-')[1], 'and logged');
    });
  }
}

t.test('OTLP export when configured: a SERVER span per call, parent of the upstream call', async (tt) => {
  const received: Array<Record<string, any>> = [];
  const collector = await brokenHttp((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') received.push(JSON.parse(body) as Record<string, any>);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const traced = await startGateway(
    {
      ...gatewayConfig([{ name: 'root', upstream: { url: agent.restUrl, binding: 'HTTP+JSON' as const } }]),
      tracing: { otlpEndpoint: collector.url, serviceName: 'gw-under-test', flushIntervalMs: 50 },
    },
    pino({ level: 'silent' }),
  );
  tt.teardown(async () => {
    await traced.close();
    await collector.close();
  });
  await CALLERS.GRPC(
    traced,
    'SendMessage',
    { message: userMessage('exported') },
    { tenant: '', prefix: '', headers: { traceparent: TP } },
  );
  const upstreamTp = agent.lastCall()?.headers.traceparent ?? '';
  await waitFor(() => received.length > 0, 'the span at the collector');
  const rs = received[0]?.resourceSpans?.[0];
  tt.same(rs?.resource.attributes, [{ key: 'service.name', value: { stringValue: 'gw-under-test' } }]);
  const span = rs?.scopeSpans?.[0]?.spans?.[0];
  tt.match(
    span,
    {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentSpanId: '00f067aa0ba902b7',
      name: 'SendMessage',
      kind: 2,
      status: { code: 1 },
    },
    "a child of the caller's span",
  );
  tt.same(
    upstreamTp.split('-').slice(1, 3),
    ['4bf92f3577b34da6a3ce929d0e0e4736', span?.spanId],
    "the upstream's parent is the gateway's span",
  );
  tt.ok(
    span?.attributes.some(
      (a: { key: string; value: { stringValue: string } }) => a.key === 'a2a.inbound' && a.value.stringValue === 'GRPC',
    ),
    'with call attributes',
  );
});
