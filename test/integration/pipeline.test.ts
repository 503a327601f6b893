// One pipeline for every call (issue 11): a route's policy is reached the
// same way whatever the binding and whether the call is translated or passed
// through — a gRPC call naming a protected tenant through a pass-through root
// route is authenticated like the same call over JSON-RPC and REST;
// pass-through streams take the route's stream slots and show in the
// active-streams gauge; two tenant routes under one prefix each apply their
// own forwarded headers and body limit.
import t from 'tap';
import { pino } from 'pino';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, userMessage } from '../helpers/harness.js';
import { STREAM_CALLERS, type StreamResult } from '../helpers/streams.js';
import { eventually } from '../helpers/wait.js';

const KEY = 'acme-secret-key-1';
const agent = await startEchoAgent({ bindings: BINDINGS });
const gw = await startGateway(
  gatewayConfig([
    // the root route passes gRPC through; the acme tenant needs an API key
    { name: 'root', upstream: { url: agent.urlFor('GRPC'), binding: 'GRPC' }, passThrough: true },
    {
      name: 'acme',
      match: { tenant: 'acme' },
      upstream: { url: agent.urlFor('GRPC'), binding: 'GRPC' },
      auth: { apiKey: { in: 'header', name: 'x-api-key', keys: [{ id: 'acme', key: KEY }] } },
    },
    // two tenant routes under one prefix, each with its own forwarded header and body limit
    {
      name: 'two-a',
      match: { pathPrefix: '/two', tenant: 'a' },
      upstream: { url: agent.urlFor('JSONRPC'), binding: 'JSONRPC', tenant: 'clear' },
      forwardHeaders: ['x-for-a'],
      maxBodyBytes: 100_000,
    },
    {
      name: 'two-b',
      match: { pathPrefix: '/two', tenant: 'b' },
      upstream: { url: agent.urlFor('JSONRPC'), binding: 'JSONRPC', tenant: 'clear' },
      forwardHeaders: ['x-for-b'],
      maxBodyBytes: 2_000,
    },
    // pass-through routes with a cap of two open streams, one per HTTP binding
    ...(['JSONRPC', 'HTTP+JSON'] as const).map((b) => ({
      name: `capped-${b === 'JSONRPC' ? 'rpc' : 'rest'}`,
      match: { pathPrefix: `/capped-${b === 'JSONRPC' ? 'rpc' : 'rest'}` },
      upstream: { url: agent.urlFor(b), binding: b },
      passThrough: true,
      maxConcurrentStreams: 2,
    })),
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await agent.close();
});

t.test("a protected tenant's policy holds on every binding, through a pass-through root route too", async (tt) => {
  for (const b of BINDINGS) {
    const opts = { tenant: 'acme', prefix: '' };
    const refused = await CALLERS[b](gw, 'SendMessage', { message: userMessage('sneak') }, opts);
    tt.equal(refused.ok, false, `${b}: refused without the key`);
    tt.equal(
      refused.details?.find((d) => d.reason)?.reason,
      'UNAUTHENTICATED',
      `${b}: UNAUTHENTICATED, as the tenant route demands`,
    );
    const allowed = await CALLERS[b](
      gw,
      'SendMessage',
      { message: userMessage('with key') },
      { ...opts, headers: { 'x-api-key': KEY } },
    );
    tt.equal(allowed.ok, true, `${b}: served with the key`);
  }
  const rootCall = await CALLERS.GRPC(gw, 'SendMessage', { message: userMessage('root') }, { tenant: '', prefix: '' });
  tt.equal(rootCall.ok, true, 'the root pass-through route still serves calls without a tenant');
});

t.test('two tenant routes under one prefix: each its own forwarded headers and body limit', async (tt) => {
  const headers = { 'x-for-a': 'A', 'x-for-b': 'B' };
  for (const [tenant, kept, dropped] of [
    ['a', 'x-for-a', 'x-for-b'],
    ['b', 'x-for-b', 'x-for-a'],
  ] as const) {
    const r = await CALLERS.JSONRPC(
      gw,
      'SendMessage',
      { message: userMessage('hi') },
      { tenant, prefix: '/two', headers },
    );
    tt.equal(r.ok, true, `tenant ${tenant} served`);
    tt.equal(agent.lastCall()?.headers[kept], headers[kept], `tenant ${tenant}: ${kept} forwarded`);
    tt.equal(agent.lastCall()?.headers[dropped], undefined, `tenant ${tenant}: ${dropped} not forwarded`);
  }
  const big = { message: userMessage('x'.repeat(5_000)) };
  const toB = await CALLERS.JSONRPC(gw, 'SendMessage', big, { tenant: 'b', prefix: '/two' });
  tt.equal(toB.details?.find((d) => d.reason)?.reason, 'PAYLOAD_TOO_LARGE', "tenant b's 2,000-byte limit applies");
  const toA = await CALLERS.JSONRPC(gw, 'SendMessage', big, { tenant: 'a', prefix: '/two' });
  tt.equal(toA.ok, true, "tenant a's larger limit lets the same body through");
});

async function activeStreams(route: string): Promise<number> {
  const text = await gw.metrics.text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('a2a_gateway_active_streams{') && l.includes(`route="${route}"`));
  return line ? Number(line.split(' ').pop()) : 0;
}

for (const b of ['JSONRPC', 'HTTP+JSON'] as const) {
  const slug = b === 'JSONRPC' ? 'rpc' : 'rest';
  t.test(`${b} pass-through streams take the route's stream slots and show in the gauge`, async (tt) => {
    const opts = { tenant: '', prefix: `/capped-${slug}` };
    /** Two held streams, each past its first event (a stream refused gets none: its wait ends with its result). */
    const holdTwo = async () => {
      const opened: Array<{ first: Promise<boolean>; result: Promise<StreamResult>; abort: AbortController }> = [];
      for (let i = 0; i < 2; i++) {
        const abort = new AbortController();
        let ready!: () => void;
        const event = new Promise<true>((r) => (ready = () => r(true)));
        const result = STREAM_CALLERS[b](
          gw,
          'SendStreamingMessage',
          { message: userMessage('hold') },
          { ...opts, signal: abort.signal, onEvent: ready },
        );
        opened.push({ first: Promise.race([event, result.then(() => false)]), result, abort });
      }
      const accepted = await Promise.all(opened.map((o) => o.first));
      const close = async () => {
        for (const o of opened) o.abort.abort();
        await Promise.all(opened.map((o) => o.result.catch(() => undefined)));
      };
      return { accepted, close };
    };
    const opened = await holdTwo();
    tt.same(opened.accepted, [true, true], 'two streams open');
    tt.equal(await activeStreams(`capped-${slug}`), 2, 'both open streams are in a2a_gateway_active_streams');
    const third = await STREAM_CALLERS[b](gw, 'SendStreamingMessage', { message: userMessage('hold') }, opts);
    tt.equal(third.events.length, 0, 'a third stream gets no event');
    tt.equal(
      (third.error?.details as JsonObject[] | undefined)?.find((d) => d.reason)?.reason,
      'RATE_LIMITED',
      'a third stream is refused: the cap holds for pass-through streams',
    );
    await opened.close();
    // the slots and the gauge come back once the relays have seen the callers go
    const drained = async () => (await activeStreams(`capped-${slug}`)) === 0;
    tt.ok(await eventually(drained), 'closed streams leave the gauge');
    const again = await holdTwo();
    tt.same(again.accepted, [true, true], 'both slots are free again: two new streams open');
    await again.close();
    tt.ok(await eventually(drained), 'and leave the gauge too');
  });
}
