// The gateway's gRPC listener and its gRPC upstream channels run without
// channelz (src/server/gateway.ts, upstream/registry.ts): no channelz service
// is served, and its per-call tracking cost each gRPC call 8–16 µs of CPU
// (A/B, issue 11). grpc-js's own channelz registry is read after calls
// through the gateway, gRPC caller to a gRPC agent, translated and passed
// through: nothing of the gateway is in it (the agent's entries are counted
// before; the test's client runs without channelz).
import t from 'tap';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import { requestBytes, responseJson } from '../helpers/codec.js';
import { gatewayConfig } from '../helpers/harness.js';

type Listed = { server?: unknown[]; channel?: unknown[] };
const handlers = grpc.getChannelzHandlers() as unknown as Record<
  string,
  (call: { request: object }, cb: (e: unknown, r: Listed) => void) => void
>;
const count = (method: 'GetServers' | 'GetTopChannels', key: 'server' | 'channel'): Promise<number> =>
  new Promise((resolve) =>
    handlers[method]!({ request: { max_results: 1000, start_server_id: 0, start_channel_id: 0 } }, (_e, r) =>
      resolve(r[key]?.length ?? 0),
    ),
  );

const agent = await startEchoAgent({ bindings: ['GRPC'] });
const servers = await count('GetServers', 'server');
const channels = await count('GetTopChannels', 'channel');
const gateway = await startGateway(
  gatewayConfig([
    { name: 'tr', match: { tenant: 'tr' }, upstream: { url: agent.urlFor('GRPC'), binding: 'GRPC' } },
    {
      name: 'pt',
      match: { tenant: 'pt' },
      upstream: { url: agent.urlFor('GRPC'), binding: 'GRPC' },
      passThrough: true,
    },
  ]),
  pino({ level: 'silent' }),
);
// the test's own client without channelz, so that any channel counted is the gateway's
const client = new grpc.Client(gateway.grpcAddress, grpc.credentials.createInsecure(), { 'grpc.enable_channelz': 0 });
t.teardown(async () => {
  client.close();
  await gateway.close();
  await agent.close();
});

/** SendMessage through the gateway for `tenant`: the agent's task state. */
function sendMessage(tenant: string): Promise<string> {
  const message = { messageId: `m-${tenant}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] };
  const bytes = requestBytes('SendMessage', { tenant, message });
  const md = new grpc.Metadata();
  md.set('a2a-version', '1.0');
  return new Promise((resolve, reject) =>
    client.makeUnaryRequest(
      '/lf.a2a.v1.A2AService/SendMessage',
      (b: Buffer) => b,
      (b: Buffer) => b,
      bytes,
      md,
      (e, value) => (e ? reject(e) : resolve(JSON.stringify(responseJson('SendMessage', value!)))),
    ),
  );
}

t.test('no channelz entries for the gateway after gRPC calls through it', async (tt) => {
  for (const tenant of ['tr', 'pt']) tt.match(await sendMessage(tenant), /"task"|"message"/, `${tenant}: answered`);
  tt.equal(await count('GetServers', 'server'), servers, 'no channelz server for the gateway’s gRPC listener');
  tt.equal(await count('GetTopChannels', 'channel'), channels, 'no channelz channel for its upstreams');
});
