// A call whose caller went away while it waited in an earlier stage
// (authentication, a card fetch, a rate-limit store) reaches the upstream
// with its signal already aborted: an abort listener added then never runs
// (AbortSignal and CallSignal alike), so the upstream call must be stopped at
// once, not left running until the agent answers or the deadline. Checked on
// the gRPC pass-through relay (unary and streaming) and the stream path of
// the `send` stage (util/call-signal.ts whenAborted).
import type { ServerResponse } from 'node:http';
import t from 'tap';
import { JsonRpcUpstream } from '../../src/bindings/jsonrpc/outbound.js';
import { relay } from '../../src/bindings/grpc/relay.js';
import { limitsOf } from '../../src/config/types.js';
import { envelopeOf, serviceParameters } from '../../src/core/envelope.js';
import { methodInfo, type AnyRequest } from '../../src/core/methods.js';
import { A2AError } from '../../src/errors/a2a-error.js';
import { Metrics } from '../../src/ops/metrics.js';
import type { Call } from '../../src/pipeline/call.js';
import { send } from '../../src/pipeline/stages/send.js';
import { RouteTable } from '../../src/routing/generation.js';
import { UpstreamRegistry, type ClientFactories } from '../../src/upstream/registry.js';
import { CallSignal } from '../../src/util/call-signal.js';
import { brokenGrpc, brokenHttp } from '../helpers/broken-upstreams.js';
import { requestBytes } from '../helpers/codec.js';
import { gatewayConfig } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

const json = (t: unknown, u: UpstreamRegistry) => new JsonRpcUpstream(t as never, u);
/** The route's limits in the send case: far beyond STOP_BOUND_MS, so a lost stop fails the test, not a timeout. */
const LIMIT_MS = 600_000;
/** How long the stopped stream may take to end: a bound on a hang, not a timing assertion. */
const STOP_BOUND_MS = 10_000;
const FACTORIES = { JSONRPC: { '1.0': json, '0.3': json } } as unknown as ClientFactories;

/** A signal whose caller has already gone. */
function gone(): CallSignal {
  const s = new CallSignal();
  s.abort();
  return s;
}

t.test('gRPC pass-through relay: an aborted call is cancelled at once', async (t) => {
  const agent = await brokenGrpc(() => undefined); // never answers
  const config = gatewayConfig([{ name: 'g', upstream: { url: `grpc://${agent.url}`, binding: 'GRPC' } }]);
  const table = new RouteTable(config, (c) => new UpstreamRegistry(FACTORIES, limitsOf(c)));
  t.teardown(async () => {
    await table.generation.upstreams.close();
    await agent.close();
  });
  const target = {
    route: config.routes[0]!,
    url: `grpc://${agent.url}`,
    headers: { 'a2a-version': '1.0' },
    signal: gone(),
    generation: table.generation,
    streaming: false,
  };
  const bytes = requestBytes('GetTask', { id: 't' });
  const unary = await relay('/lf.a2a.v1.A2AService/GetTask', false, bytes, target).catch((e: unknown) => e);
  t.ok(unary instanceof A2AError, 'the unary relay ends at once');
  t.equal((unary as A2AError).errorName, 'CANCELLED');
  const stream = await relay('/lf.a2a.v1.A2AService/SendStreamingMessage', true, bytes, {
    ...target,
    streaming: true,
  });
  if (stream.kind !== 'relayStream') throw new Error(stream.kind);
  const read = async (): Promise<unknown> => {
    for await (const m of stream.messages) void m;
    return undefined;
  };
  const ended = await read().catch((e: unknown) => e);
  t.equal((ended as A2AError).errorName, 'CANCELLED', 'the streaming relay ends at once');
});

t.test('send: a stream whose caller has gone stops the upstream stream at once', async (t) => {
  const open = new Set<ServerResponse>();
  let reached = 0;
  let closed = 0;
  const agent = await brokenHttp((req, res) => {
    if (req.method === 'GET') return void res.writeHead(404).end();
    reached++;
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': open\n\n'); // then nothing: the stream stays open until the gateway drops it
    open.add(res);
    res.on('close', () => {
      open.delete(res);
      closed++;
    });
  });
  // limits far beyond the test's bound: only the stop, never a timeout, can end the stream in time
  const route = { name: 's', upstream: { url: agent.url, binding: 'JSONRPC' as const } };
  const config = gatewayConfig([{ ...route, timeoutMs: LIMIT_MS, streamIdleTimeoutMs: LIMIT_MS }]);
  const table = new RouteTable(config, (c) => new UpstreamRegistry(FACTORIES, limitsOf(c)));
  t.teardown(async () => {
    await agent.close(); // first: it drops a stream a lost stop left open, which the pool's close would wait for
    await table.generation.upstreams.close();
  });
  const method = methodInfo('SendStreamingMessage');
  const request = { $typeName: 'lf.a2a.v1.SendMessageRequest', tenant: '' } as unknown as AnyRequest;
  const call = {
    inbound: 'JSONRPC',
    requestId: 'r',
    signal: gone(),
    generation: table.generation,
    method,
    dialect: '1.0',
    tenant: '',
    request: { size: 0, decode: () => request },
    route: config.routes[0]!,
    upstream: { binding: 'JSONRPC', url: agent.url, tenant: '', version: '1.0' },
    envelope: envelopeOf(method, request, '', serviceParameters('1.0', [], {})),
  } as unknown as Call;
  const answer = await send(new Metrics({ processMetrics: false }), new AbortController().signal)(call);
  if (answer.kind !== 'stream') throw new Error(answer.kind);
  let end: { error: unknown } | undefined;
  answer.events[Symbol.asyncIterator]()
    .next()
    .then(
      (r) => (end = { error: r }),
      (e: unknown) => (end = { error: e }),
    );
  const { error } = await waitFor(() => end, 'the stream to end', STOP_BOUND_MS);
  t.ok(error instanceof A2AError, 'the stream ends with an error, no event');
  t.equal((error as A2AError).errorName, 'CANCELLED', 'ended by the stop, not a timeout');
  await waitFor(() => open.size === 0, 'no upstream stream left open', STOP_BOUND_MS);
  t.equal(closed, reached, `each of the ${reached} request(s) that reached the agent was closed`);
});
