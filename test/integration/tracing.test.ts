// W3C trace context on every binding pair: a caller's traceparent reaches the
// upstream unchanged (HTTP header ↔ gRPC metadata), a caller without one gets
// a new trace started, and the trace id is in the call's log line; with OTLP
// export on, the gateway's span is exported and becomes the upstream's parent.
import { Writable } from 'node:stream';
import t from 'tap';
import * as grpc from '@grpc/grpc-js';
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

/** An OTLP/HTTP collector: what arrived at /v1/traces (JSON) and the headers it came with. */
async function httpCollector() {
  const received: Array<{ body: Record<string, any>; headers: Record<string, unknown> }> = [];
  const server = await brokenHttp((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces')
        received.push({ body: JSON.parse(body) as Record<string, any>, headers: req.headers });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const spans = () =>
    received.flatMap((r) =>
      (r.body.resourceSpans ?? []).flatMap((rs: any) => (rs.scopeSpans ?? []).flatMap((ss: any) => ss.spans ?? [])),
    );
  return { server, received, spans };
}

const attr = (span: any, key: string) =>
  span?.attributes?.find((a: { key: string }) => a.key === key)?.value?.stringValue as string | undefined;

t.test('OTLP export (OpenTelemetry SDK): a SERVER span per call, parent of the upstream call', async (tt) => {
  const collector = await httpCollector();
  const traced = await startGateway(
    {
      ...gatewayConfig([{ name: 'root', upstream: { url: agent.restUrl, binding: 'HTTP+JSON' as const } }]),
      tracing: {
        otlpEndpoint: collector.server.url,
        protocol: 'http/json',
        headers: { 'x-otlp-key': 'k-123' },
        serviceName: 'gw-under-test',
        sampleRatio: 1,
        flushIntervalMs: 50,
      },
    },
    pino({ level: 'silent' }),
  );
  tt.teardown(async () => {
    await traced.close();
    await collector.server.close();
  });
  await CALLERS.GRPC(
    traced,
    'SendMessage',
    { message: userMessage('exported') },
    { tenant: '', prefix: '', headers: { traceparent: TP } },
  );
  const upstreamTp = agent.lastCall()?.headers.traceparent ?? '';
  await waitFor(() => collector.spans().length > 0, 'the span at the collector');
  const first = collector.received[0]!;
  tt.equal(first.headers['x-otlp-key'], 'k-123', 'the configured OTLP headers are sent');
  const resource = first.body.resourceSpans[0].resource.attributes as Array<{
    key: string;
    value: { stringValue: string };
  }>;
  tt.ok(
    resource.some((a) => a.key === 'service.name' && a.value.stringValue === 'gw-under-test'),
    'service.name',
  );
  const span = collector.spans()[0];
  tt.match(
    span,
    { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentSpanId: '00f067aa0ba902b7', name: 'SendMessage', kind: 2 },
    "a child of the caller's span",
  );
  tt.same(
    upstreamTp.split('-').slice(1, 3),
    ['4bf92f3577b34da6a3ce929d0e0e4736', span?.spanId],
    "the upstream's parent is the gateway's span",
  );
  tt.equal(attr(span, 'rpc.system'), 'grpc', 'semantic conventions: rpc.system');
  tt.equal(attr(span, 'rpc.method'), 'SendMessage', 'rpc.method');
  tt.equal(attr(span, 'a2a.inbound'), 'GRPC', 'and the A2A attributes');

  const before = collector.spans().length;
  await CALLERS.JSONRPC(traced, 'SendMessage', { message: userMessage('root') }, { tenant: '', prefix: '' });
  await waitFor(() => collector.spans().length > before, 'the second span');
  const root = collector.spans().at(-1);
  tt.notOk(root?.parentSpanId, 'a call without traceparent is a root span, not the child of an invented parent');
  tt.equal(agent.lastCall()?.headers.traceparent?.split('-')[2], root?.spanId, "and the upstream's parent is it");
});

t.test("sampling: a caller's sampled=00 is kept; new traces follow sampleRatio", async (tt) => {
  const collector = await httpCollector();
  const traced = await startGateway(
    {
      ...gatewayConfig([{ name: 'root', upstream: { url: agent.restUrl, binding: 'HTTP+JSON' as const } }]),
      tracing: {
        otlpEndpoint: collector.server.url,
        protocol: 'http/json',
        headers: {},
        serviceName: 's',
        sampleRatio: 0,
        flushIntervalMs: 20,
      },
    },
    pino({ level: 'silent' }),
  );
  tt.teardown(async () => {
    await traced.close();
    await collector.server.close();
  });
  const unsampled = TP.replace(/-01$/, '-00');
  await CALLERS.JSONRPC(
    traced,
    'SendMessage',
    { message: userMessage('no') },
    { tenant: '', prefix: '', headers: { traceparent: unsampled } },
  );
  tt.match(
    agent.lastCall()?.headers.traceparent,
    /^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-00$/,
    'the upstream sees the trace unsampled',
  );
  await CALLERS.JSONRPC(traced, 'SendMessage', { message: userMessage('new') }, { tenant: '', prefix: '' });
  tt.match(agent.lastCall()?.headers.traceparent, /-00$/, 'a new trace at ratio 0 is not sampled');
  await CALLERS.JSONRPC(
    traced,
    'SendMessage',
    { message: userMessage('yes') },
    { tenant: '', prefix: '', headers: { traceparent: TP } },
  );
  await waitFor(() => collector.spans().length > 0, 'the sampled call at the collector');
  tt.same(
    collector.spans().map((s: any) => s.traceId),
    ['4bf92f3577b34da6a3ce929d0e0e4736'],
    'only the caller-sampled call is exported (parent-based sampling)',
  );
});

t.test('OTLP over gRPC', async (tt) => {
  const exports: Buffer[] = [];
  const server = new grpc.Server();
  server.addService(
    {
      Export: {
        path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
        requestStream: false,
        responseStream: false,
        requestSerialize: (b: Buffer) => b,
        requestDeserialize: (b: Buffer) => b,
        responseSerialize: (b: Buffer) => b,
        responseDeserialize: (b: Buffer) => b,
      },
    },
    {
      Export: (call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => (
        exports.push(call.request),
        cb(null, Buffer.alloc(0))
      ),
    },
  );
  const port = await new Promise<number>((r, j) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? j(e) : r(p))),
  );
  const traced = await startGateway(
    {
      ...gatewayConfig([{ name: 'root', upstream: { url: agent.restUrl, binding: 'HTTP+JSON' as const } }]),
      tracing: {
        otlpEndpoint: `http://127.0.0.1:${port}`,
        protocol: 'grpc',
        headers: {},
        serviceName: 'g',
        sampleRatio: 1,
        flushIntervalMs: 20,
      },
    },
    pino({ level: 'silent' }),
  );
  tt.teardown(async () => {
    await traced.close();
    server.forceShutdown();
  });
  await CALLERS.JSONRPC(
    traced,
    'SendMessage',
    { message: userMessage('grpc') },
    { tenant: '', prefix: '', headers: { traceparent: TP } },
  );
  await waitFor(() => exports.length > 0, 'an Export call');
  tt.ok(
    exports[0]!.includes(Buffer.from('4bf92f3577b34da6a3ce929d0e0e4736', 'hex')),
    'the span, in protobuf, with its trace id',
  );
});
