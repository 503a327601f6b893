// The per-call metrics (src/ops/metrics.ts; calls keep their label children
// by label values): each series counts only its own calls, upstream times,
// streams and events, as the exposition shows; process metrics only when
// asked for.
import t from 'tap';
import { Metrics } from '../../src/ops/metrics.js';

/** The value of one series line in the exposition text, or undefined when absent. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

t.test('calls, upstream time, streams and events each count in their own series', async (t) => {
  const m = new Metrics();
  m.call('r1', 'GetTask', 'JSONRPC', 'GRPC', 'OK', 0.002);
  m.call('r1', 'GetTask', 'JSONRPC', 'GRPC', 'OK', 0.003);
  m.call('r1', 'GetTask', 'JSONRPC', 'GRPC', 'TASK_NOT_FOUND', 0.001);
  m.upstreamTime('r1', 'GetTask', 'GRPC', 0.002);
  m.upstreamTime('r1', 'GetTask', 'GRPC', 0.004);
  m.upstreamTime('r2', 'GetTask', 'GRPC', 0.5);
  m.streamOpened('r1', 'GRPC');
  m.streamOpened('r1', 'GRPC');
  m.streamOpened('r2', 'JSONRPC');
  for (let i = 0; i < 5; i++) m.streamEvent('r1', 'GRPC');
  m.streamEvent('r2', 'JSONRPC');
  m.streamClosed('r1', 'GRPC');
  const text = await m.text();
  const calls = (outcome: string): number | undefined =>
    value(
      text,
      `a2a_gateway_calls_total{route="r1",method="GetTask",inbound="JSONRPC",upstream="GRPC",outcome="${outcome}",version="-",upstream_version="-"}`,
    );
  t.equal(calls('OK'), 2);
  t.equal(calls('TASK_NOT_FOUND'), 1);
  const up = (route: string): number | undefined =>
    value(text, `a2a_gateway_upstream_duration_seconds_count{route="${route}",method="GetTask",upstream="GRPC"}`);
  t.equal(up('r1'), 2);
  t.equal(up('r2'), 1);
  t.equal(value(text, 'a2a_gateway_upstream_duration_seconds_sum{route="r2",method="GetTask",upstream="GRPC"}'), 0.5);
  t.equal(value(text, 'a2a_gateway_active_streams{route="r1",inbound="GRPC"}'), 1, 'two opened, one closed');
  t.equal(value(text, 'a2a_gateway_active_streams{route="r2",inbound="JSONRPC"}'), 1);
  t.equal(value(text, 'a2a_gateway_stream_events_total{route="r1",inbound="GRPC"}'), 5);
  t.equal(value(text, 'a2a_gateway_stream_events_total{route="r2",inbound="JSONRPC"}'), 1);
});

t.test('process metrics only when asked for (the gateway asks when it has an admin listener)', async (t) => {
  const processSeries = (text: string): string[] =>
    text.split('\n').filter((l) => /^a2a_gateway_(process|nodejs)_/.test(l));
  const without = new Metrics({ processMetrics: false });
  without.call('r1', 'GetTask', 'JSONRPC', 'GRPC', 'OK', 0.002);
  const text = await without.text();
  t.same(processSeries(text), [], 'no process, heap, event loop or GC series');
  t.ok(text.includes('a2a_gateway_calls_total{route="r1"'), 'the call metrics as ever');
  const withThem = await new Metrics().text();
  t.ok(
    processSeries(withThem).some((l) => l.startsWith('a2a_gateway_process_resident_memory_bytes')),
    'by default',
  );
  t.ok(
    processSeries(withThem).some((l) => l.startsWith('a2a_gateway_nodejs_eventloop_lag')),
    'event loop lag too',
  );
});
