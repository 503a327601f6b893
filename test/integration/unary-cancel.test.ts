// A unary call whose caller goes away while the agent is still working: the
// gateway drops its request to the agent (the edge's CallSignal, util/
// call-signal.ts, reaches the upstream client), over each inbound binding,
// translated and pass-through, and keeps serving.
import * as grpc from '@grpc/grpc-js';
import t from 'tap';
import { request } from 'undici';
import { startGateway } from '../../src/server/gateway.js';
import { holdingAgent } from '../helpers/broken-upstreams.js';
import { requestBytes } from '../helpers/codec.js';
import { gatewayConfig } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

/** The agent holds every request but "quick"'s, and counts those the gateway dropped. */
const agent = await holdingAgent();
const held = agent.held;
const gw = await startGateway(
  gatewayConfig([
    { name: 'pt', match: { pathPrefix: '/pt' }, upstream: { url: agent.url, binding: 'JSONRPC' }, passThrough: true },
    { name: 'tr', upstream: { url: agent.url, binding: 'JSONRPC' } },
  ]),
);
const grpcClient = new grpc.Client(gw.grpcAddress, grpc.credentials.createInsecure());
t.teardown(async () => {
  grpcClient.close();
  await gw.close();
  await agent.close();
});

const jsonRpc = (id: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } });
const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** The ways a caller sends a GetTask and then goes away (each resolves once its call is open at the agent). */
const callers: Record<string, (id: string) => () => void> = {
  'JSON-RPC, translated': (id) => {
    const ac = new AbortController();
    request(`${gw.httpUrl}/`, { method: 'POST', headers, body: jsonRpc(id), signal: ac.signal }).catch(() => {});
    return () => ac.abort();
  },
  'REST, translated': (id) => {
    const ac = new AbortController();
    request(`${gw.httpUrl}/tasks/${id}`, { headers: { 'a2a-version': '1.0' }, signal: ac.signal }).catch(() => {});
    return () => ac.abort();
  },
  'gRPC, translated': (id) => {
    const md = new grpc.Metadata();
    md.set('a2a-version', '1.0');
    const call = grpcClient.makeUnaryRequest(
      '/lf.a2a.v1.A2AService/GetTask',
      (b: Buffer) => b,
      (b: Buffer) => b,
      requestBytes('GetTask', { id }),
      md,
      () => {},
    );
    return () => call.cancel();
  },
  'JSON-RPC, pass-through': (id) => {
    const ac = new AbortController();
    request(`${gw.httpUrl}/pt`, { method: 'POST', headers, body: jsonRpc(id), signal: ac.signal }).catch(() => {});
    return () => ac.abort();
  },
};

for (const [name, send] of Object.entries(callers)) {
  t.test(`${name}: the caller goes away, the agent's request is dropped`, async (t) => {
    const before = agent.dropped();
    const leave = send(`slow-${name.replace(/\W+/g, '-')}`);
    await waitFor(() => held.size === 1, 'the call to reach the agent');
    leave();
    await waitFor(() => agent.dropped() === before + 1 && held.size === 0, "the agent's request to be dropped");
    t.pass("the gateway dropped the agent's request");
    const next = await request(`${gw.httpUrl}/`, { method: 'POST', headers, body: jsonRpc('quick') });
    t.equal(next.statusCode, 200, 'the gateway keeps serving');
    await next.body.text();
  });
}
