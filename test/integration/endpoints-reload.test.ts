// A route's endpoints across a reload (issue 14 with config generations): the
// active health checks read the upstream TLS files again (a client
// certificate renewed at the same paths heals the endpoints and readiness); a
// check still under way when a reload turns checks off leaves no verdict; an
// endpoint the reload removed does not bring its metric series back when its
// last call ends; and the admin console does not file an old call's failure
// against the URL a reload gave the route. Real gateways and agents on
// 127.0.0.1, the TLS fixtures copied to a test directory. A client key that
// cannot be read (a renewal caught half-way) fails the gRPC checks, not the
// process.
import { copyFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { parseConfig } from '../../src/config/load.js';
import type { GatewayConfig } from '../../src/config/types.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import type { JsonObject } from '../../src/proto/json.js';
import { jsonRpcAgent, refusedPort } from '../helpers/broken-upstreams.js';
import { clientCertFiles } from '../helpers/client-cert-files.js';
import { callJsonRpc, gatewayConfig, userMessage } from '../helpers/harness.js';
import { eventually, waitFor } from '../helpers/wait.js';

const FIX = new URL('../fixtures/tls/', import.meta.url).pathname;
const silent = pino({ level: 'silent' });
const at = { tenant: '', prefix: '' };

/** A gateway config from its routes, with an admin listener (readiness, the console). */
function config(routes: JsonObject[]): GatewayConfig {
  return parseConfig(
    JSON.stringify({
      listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
      admin: { host: '127.0.0.1', port: 0 },
      log: { level: 'silent' },
      routes,
    }),
    '<endpoints-reload test>',
  );
}

const statusOf = (gw: RunningGateway, name: string): string | undefined =>
  gw.endpointStates()[0]?.endpoints.find((e) => e.name === name)?.status;

/** A JSON-RPC agent that holds every POST until told to answer (a completed task) or to drop the connection. */
async function heldAgent() {
  const held: Array<{ id: unknown; res: ServerResponse }> = [];
  const agent = await jsonRpcAgent((body, res) => void held.push({ id: body.id, res }));
  return {
    ...agent,
    held,
    answer(): void {
      for (const { id, res } of held.splice(0)) {
        const task = { id: 't-held', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { task } }));
      }
    },
    drop(): void {
      for (const { res } of held.splice(0)) res.socket?.destroy();
    },
  };
}

t.test('health checks read renewed client certificates after a reload', async (tt) => {
  const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
  tt.teardown(() => agent.close());
  // two agents over TLS that take only client certificates of the test CA
  const fronts = await Promise.all(
    [0, 1].map(() =>
      startGateway(
        gatewayConfig([{ name: 'front', upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' } }], {
          tls: {
            cert: join(FIX, 'server.pem'),
            key: join(FIX, 'server-key.pem'),
            clientCa: join(FIX, 'ca.pem'),
            requireClientCert: true,
          },
        }),
        silent,
      ),
    ),
  );
  tt.teardown(() => Promise.all(fronts.map((f) => f.close())));
  // the client certificate's paths first hold one of another CA, which the agents refuse
  const dir = tt.testdir();
  const cert = join(dir, 'client.pem');
  const key = join(dir, 'client-key.pem');
  copyFileSync(join(FIX, 'rogue-client.pem'), cert);
  copyFileSync(join(FIX, 'rogue-client-key.pem'), key);
  const routes = (): GatewayConfig =>
    config([
      {
        name: 'replicas',
        upstream: {
          binding: 'JSONRPC',
          endpoints: fronts.map((f, i) => ({ url: `${f.httpUrl}/`, name: `tls-${i}` })),
          tls: { ca: join(FIX, 'ca.pem'), cert, key },
          healthCheck: { intervalMs: 200, timeoutMs: 200 },
        },
      },
    ]);
  const gw = await startGateway(routes(), silent);
  tt.teardown(() => gw.close());
  await waitFor(
    () => ['tls-0', 'tls-1'].every((n) => statusOf(gw, n) === 'unhealthy'),
    'both endpoints unhealthy: their checks are refused the certificate',
  );

  copyFileSync(join(FIX, 'client.pem'), cert);
  copyFileSync(join(FIX, 'client-key.pem'), key);
  gw.reload(routes());
  tt.ok((await callJsonRpc(gw, 'SendMessage', { message: userMessage('renewed') }, at)).ok, 'calls go through');
  await waitFor(
    () => ['tls-0', 'tls-1'].every((n) => statusOf(gw, n) === 'healthy'),
    'both endpoints healthy: the checks use the renewed certificate',
    15_000, // checks every 200 ms: a bound that fails well before the test's timeout
  );
  const ready = await waitFor(async () => {
    const res = await request(`${gw.adminUrl}/readyz`);
    const body = await res.body.text();
    return res.statusCode === 200 && body;
  }, '/readyz 200');
  tt.match(JSON.parse(ready), { ready: true }, 'ready again');
});

t.test('a check under way when a reload turns checks off leaves no verdict', async (tt) => {
  const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
  tt.teardown(() => agent.close());
  // an endpoint that takes connections and never answers: each check of it runs until its timeout
  const sockets: Socket[] = [];
  const closed = new Set<Socket>();
  const silentAgent = createServer((s) => {
    sockets.push(s);
    s.resume();
    s.on('error', () => undefined);
    s.on('close', () => closed.add(s));
  });
  await new Promise<void>((r) => silentAgent.listen(0, '127.0.0.1', r));
  tt.teardown(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        silentAgent.close(() => r());
      }),
  );
  const silentUrl = `http://127.0.0.1:${(silentAgent.address() as AddressInfo).port}`;
  const routes = (healthCheck: JsonObject | false): GatewayConfig =>
    config([
      {
        name: 'pair',
        upstream: {
          binding: 'JSONRPC',
          endpoints: [
            { url: agent.jsonRpcUrl, name: 'up' },
            { url: silentUrl, name: 'silent' },
          ],
          healthCheck,
        },
      },
    ]);
  // the gateway's debug lines: a check that ends after its checks were replaced says so
  const lines: Array<{ msg?: string; endpoint?: string }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as (typeof lines)[0]);
      cb();
    },
  });
  const dropped = (): boolean =>
    lines.some((l) => l.endpoint === 'silent' && /verdict is not applied/.test(l.msg ?? ''));
  const checks = { intervalMs: 1000, timeoutMs: 1000, unhealthyThreshold: 1 };
  const gw = await startGateway(routes(checks), pino({ level: 'debug' }, sink));
  tt.teardown(() => gw.close());
  await waitFor(() => statusOf(gw, 'silent') === 'unhealthy', 'the silent endpoint failing its check');

  // the next check of it under way, then the reload
  const seen = sockets.length;
  await waitFor(() => sockets.slice(seen).find((s) => !closed.has(s)), 'a check under way');
  // (found open in the turn of the reload: its socket cannot close before the reload runs)
  gw.reload(routes(false));
  tt.equal(statusOf(gw, 'silent'), 'healthy', 'no checks: their verdict dropped');
  await waitFor(
    () => dropped() || statusOf(gw, 'silent') !== 'healthy',
    'the check under way at the reload to end (its verdict dropped, or applied)',
  );
  tt.equal(statusOf(gw, 'silent'), 'healthy', "the late check's verdict was not applied");
  tt.ok(dropped(), 'it was dropped');
  tt.match(
    await gw.metrics.text(),
    /a2a_gateway_endpoint_status\{route="pair",endpoint="silent",status="healthy"\} 1/,
    'nor reported',
  );
});

t.test("a removed endpoint's metric series stay gone when its call ends", async (tt) => {
  const agents = await Promise.all([heldAgent(), heldAgent()]);
  tt.teardown(() => Promise.all(agents.map((a) => a.close())));
  const routes = (n: number): GatewayConfig =>
    config([
      {
        name: 'pair',
        upstream: {
          binding: 'JSONRPC',
          loadBalancing: 'round-robin',
          endpoints: agents.slice(0, n).map((a, i) => ({ url: a.url, name: ['a', 'b'][i]! })),
          healthCheck: false,
        },
      },
    ]);
  const gw = await startGateway(routes(2), silent);
  tt.teardown(() => gw.close());
  const calls = [0, 1].map(() => callJsonRpc(gw, 'SendMessage', { message: userMessage('held') }, at));
  await waitFor(() => agents.every((a) => a.held.length === 1), 'a call in flight on each endpoint');
  tt.match(await gw.metrics.text(), /a2a_gateway_endpoint_active_requests\{route="pair",endpoint="b"\} 1/);

  gw.reload(routes(1));
  tt.notMatch(await gw.metrics.text(), /endpoint="b"/, 'the reload took the series of "b"');
  agents[1]!.answer();
  agents[0]!.answer();
  const results = await Promise.all(calls);
  tt.ok(
    results.every((r) => r.ok),
    'the calls in flight finished normally, the removed endpoint’s too',
  );
  // (a call's slot is released before its answer is written)
  const text = await gw.metrics.text();
  tt.notMatch(text, /endpoint="b"/, 'no series of "b" came back');
  tt.match(text, /a2a_gateway_endpoint_active_requests\{route="pair",endpoint="a"\} 0/, '"a" is still reported');
});

t.test("the console does not file an old call's failure against the route's new URL", async (tt) => {
  const old = await heldAgent();
  const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
  tt.teardown(async () => {
    await old.close();
    await agent.close();
  });
  const routes = (url: string): GatewayConfig => config([{ name: 'moving', upstream: { url, binding: 'JSONRPC' } }]);
  const gw = await startGateway(routes(old.url), silent);
  tt.teardown(() => gw.close());
  const getJson = async (path: string): Promise<any> => (await request(`${gw.adminUrl}${path}`)).body.json();
  const endpoint = async () => (await getJson('/admin/api/routes')).routes[0].endpoints[0];

  const oldCall = callJsonRpc(gw, 'SendMessage', { message: userMessage('before the reload') }, at);
  await waitFor(() => old.held.length === 1, 'the call held by the old URL');
  gw.reload(routes(agent.jsonRpcUrl));
  // calls to the new URL until one is shown (the first ones, right after the reload, may not be filed)
  await waitFor(async () => {
    const r = await callJsonRpc(gw, 'SendMessage', { message: userMessage('after') }, at);
    if (!r.ok) throw new Error(`a call to the new URL failed: ${r.message}`);
    const e = await endpoint();
    return e.url === agent.jsonRpcUrl && e.health === 'healthy';
  }, 'a call to the new URL shown healthy');

  old.drop();
  tt.notOk((await oldCall).ok, 'the old call failed: its agent dropped the connection');
  await waitFor(
    async () => (await getJson('/admin/api/errors')).errors.some((e: any) => e.outcome === 'UPSTREAM_UNAVAILABLE'),
    "the old call's line read by the console",
  );
  tt.match(
    await endpoint(),
    { url: agent.jsonRpcUrl, health: 'healthy', reason: /last call answered/ },
    'the new URL is judged by its own calls',
  );
});

t.test('a client key that cannot be read fails the gRPC health checks, never the gateway', async (tt) => {
  const { cert, key } = clientCertFiles(tt.testdir());
  // two gRPC endpoints with checks (nothing listens: the checks fail either way; what matters is how)
  const [portA, portB] = [await refusedPort(), await refusedPort()];
  const cfg = () =>
    config([
      {
        name: 'g',
        upstream: {
          binding: 'GRPC',
          endpoints: [
            { url: `127.0.0.1:${portA}`, name: 'a' },
            { url: `127.0.0.1:${portB}`, name: 'b' },
          ],
          tls: { ca: join(FIX, 'ca.pem'), cert, key },
          healthCheck: { intervalMs: 500, timeoutMs: 200, unhealthyThreshold: 1 },
        },
      },
    ]);
  const gw = await startGateway(cfg(), silent);
  tt.teardown(() => gw.close());
  // a renewal caught half-way: the key file is not a key any more, and the gateway reloads
  writeFileSync(key, 'not a key\n');
  gw.reload(cfg());
  // (before the reload the checks fail too, on the refused connection: the key's error is what is awaited)
  const reason = await eventually(
    () =>
      gw
        .endpointStates()[0]
        ?.endpoints.find((e) => e.name === 'a' && /key|PEM|DECODER|unsupported/i.test(e.reason ?? ''))?.reason,
  );
  tt.ok(reason, `the check failed with the key's error (${String(reason)})`);
  const res = await request(`${gw.httpUrl}/.well-known/agent-card.json`);
  const card = (await res.body.json()) as { name?: string };
  tt.same([res.statusCode, card.name], [200, 'g'], "and the gateway still answers: the route's card");
});
