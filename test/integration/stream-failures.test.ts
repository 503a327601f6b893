// Streams that break after events have been sent, on every pair: the upstream
// sends two events and then an error event / non-OK gRPC status, drops the
// connection, stalls past the idle timeout, or sends an event over the size
// limit. Every caller gets both events and then an error in its own binding
// (JSON-RPC: a final error response with the same id; REST: a final
// {"error": …} event; gRPC: the status with grpc-status-details-bin) — never a
// silent clean end.
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import type { Binding } from '../../src/config/types.js';
import { toServiceError } from '../../src/bindings/grpc/status.js';
import { A2AError } from '../../src/errors/a2a-error.js';
import { CATALOGUE, GRPC_CODES, type ErrorName } from '../../src/errors/catalogue.js';
import type { JsonObject } from '../../src/proto/json.js';
import { streamEventBytes } from '../helpers/codec.js';
import { startGateway } from '../../src/server/gateway.js';
import {
  brokenGrpcStream,
  brokenSse,
  STREAM_EVENTS,
  type Broken,
  type BreakMode,
} from '../helpers/broken-upstreams.js';
import { BINDINGS, closeGrpcClients, gatewayConfig, slug, userMessage } from '../helpers/harness.js';
import { STREAM_CALLERS } from '../helpers/streams.js';

const encode = (json: unknown): Buffer => streamEventBytes(json as JsonObject);
const vanished = () =>
  toServiceError(A2AError.of('TASK_NOT_FOUND', 'task vanished', { metadata: { taskId: 't-broken' } }));

const MODES: BreakMode[] = ['error', 'drop', 'stall', 'huge'];
const upstreams: Array<{ binding: Binding; mode: BreakMode; server: Broken }> = [];
for (const mode of MODES) {
  for (const binding of BINDINGS) {
    if (binding === 'GRPC' && mode === 'huge') continue; // no SSE on gRPC
    const server = binding === 'GRPC' ? await brokenGrpcStream(mode, encode, vanished) : await brokenSse(binding, mode);
    upstreams.push({ binding, mode, server });
  }
}
const gw = await startGateway(
  gatewayConfig([
    ...upstreams.map(({ binding, mode, server }) => ({
      name: `${mode}-${slug(binding)}`,
      match: { pathPrefix: `/${mode}-${slug(binding)}`, tenant: `${mode}-${slug(binding)}` },
      upstream: { url: binding === 'JSONRPC' ? `${server.url}/rpc` : server.url, binding, tenant: 'clear' as const },
      // only a stall may end in the idle timeout: elsewhere it is long enough that no loaded machine reaches it
      streamIdleTimeoutMs: mode === 'stall' ? 300 : 30_000,
      sseKeepAliveMs: 50,
      maxSseEventBytes: 4096,
    })),
    {
      // keep-alive comments every 50 ms and an idle timeout 30 times as long: at least two come before it ends
      name: 'keepalive',
      match: { pathPrefix: '/keepalive', tenant: 'keepalive' },
      upstream: {
        url: upstreams.find((u) => u.mode === 'stall' && u.binding === 'HTTP+JSON')!.server.url,
        binding: 'HTTP+JSON' as const,
        tenant: 'clear' as const,
      },
      streamIdleTimeoutMs: 1500,
      sseKeepAliveMs: 50,
    },
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await Promise.all(upstreams.map((u) => u.server.close()));
});

const EXPECTED: Record<BreakMode, ErrorName | undefined> = {
  error: 'TASK_NOT_FOUND',
  drop: 'UPSTREAM_UNAVAILABLE',
  stall: 'UPSTREAM_TIMEOUT',
  huge: 'INVALID_AGENT_RESPONSE',
};

for (const { binding: upstream, mode } of upstreams) {
  t.test(`upstream ${upstream} ${mode} after two events`, async (tt) => {
    for (const inbound of BINDINGS) {
      const opts = { tenant: `${mode}-${slug(upstream)}`, prefix: `/${mode}-${slug(upstream)}` };
      const r = await STREAM_CALLERS[inbound](gw, 'SendStreamingMessage', { message: userMessage('x') }, opts);
      tt.same(r.events, STREAM_EVENTS, `${inbound}: both events, unchanged`);
      tt.equal(r.error?.afterEvents, true, `${inbound}: then an error, not a clean end`);
      if (inbound === 'JSONRPC')
        tt.equal(
          r.frames?.at(-1)?.event,
          'error',
          'JSON-RPC: the last SSE event is an error response with the request id',
        );
      if (inbound === 'HTTP+JSON')
        tt.equal(r.frames?.at(-1)?.event, 'error', 'REST: the last SSE event is {"error": …}');
      const name = EXPECTED[mode];
      if (name) {
        const row = CATALOGUE[name];
        const want = inbound === 'JSONRPC' ? row.jsonRpc : inbound === 'HTTP+JSON' ? row.grpc : GRPC_CODES[row.grpc];
        tt.equal(r.error?.code, want, `${inbound}: ${name} in the caller's binding`);
        tt.equal(r.error?.details.find((d) => d.reason)?.reason, name, `${inbound}: ErrorInfo ${name}`);
      }
      if (mode === 'error') {
        tt.equal(r.error?.message, 'task vanished', `${inbound}: the upstream's message kept`);
        tt.same(
          r.error?.details.find((d) => d.reason)?.metadata,
          { taskId: 't-broken' },
          `${inbound}: ErrorInfo metadata kept`,
        );
      }
    }
  });
}

t.test('SSE keep-alive comments while a stream is idle', async (tt) => {
  const res = await request(`${gw.httpUrl}/keepalive/keepalive/message:stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ message: userMessage('x') }),
  });
  const text = await res.body.text();
  tt.ok(
    text.split('\n').filter((l) => l === ': keep-alive').length >= 2,
    'comment lines every sseKeepAliveMs while nothing comes',
  );
  tt.match(
    text.trimEnd().split('\n\n').at(-1),
    /^event: error\ndata: \{"error":/,
    'and the idle timeout still ends the stream with an error event',
  );
});
