// Operating a real gateway process (the built CLI, spawned) in front of real
// SDK agents: liveness and readiness over HTTP and grpc.health.v1, metrics
// after a matrix of calls (on the admin listener only), gRPC reflection
// through a grpc-js reflection client, reload (atomic file replace and
// SIGHUP, valid and invalid, with the reload metrics), drain on SIGTERM with
// unary and stream calls in flight, and two replicas sharing no task state.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import t from 'tap';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import type { JsonObject } from '../../src/proto/json.js';
import { brokenHttp, refusedPort } from '../helpers/broken-upstreams.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/cli-process.js';
import { BINDINGS, CALLERS, callGrpcRaw, closeGrpcClients, slug, userMessage } from '../helpers/harness.js';
import { streamRest } from '../helpers/streams.js';

const agent = await startEchoAgent({ bindings: BINDINGS });
const down = await refusedPort();
// A JSON-RPC upstream that holds every SendMessage until the test releases it.
let slowReceived: () => void = () => undefined;
const slowGotCall = new Promise<void>((r) => (slowReceived = r));
let releaseSlow: () => void = () => undefined;
const slowReleased = new Promise<void>((r) => (releaseSlow = r));
const slow = await brokenHttp((req, res) => {
  let body = '';
  req.on('data', (d: Buffer) => (body += d.toString()));
  req.on('end', () => {
    if (req.method === 'GET') return res.writeHead(404).end();
    slowReceived();
    void slowReleased.then(() => {
      const { id } = JSON.parse(body) as { id: number };
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          result: { message: { messageId: 'slow', role: 'ROLE_AGENT', parts: [{ text: 'late but here' }] } },
        }),
      );
    });
  });
});
t.teardown(async () => {
  closeGrpcClients();
  await Promise.all([agent.close(), slow.close()]);
});

const cardOf = (b: string) => (b === 'GRPC' ? { card: { url: `${agent.httpUrl}/.well-known/agent-card.json` } } : {});
const baseRoutes = BINDINGS.map((b) => ({
  name: `up-${slug(b)}`,
  match: { pathPrefix: `/up-${slug(b)}`, tenant: `up-${slug(b)}` },
  upstream: { url: agent.urlFor(b), binding: b, tenant: 'clear' },
  ...cardOf(b),
}));
const ADMIN = { admin: { host: '127.0.0.1', port: 0 } };
const config = (extra: Record<string, unknown> = {}, routes: unknown[] = baseRoutes) => ({
  listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
  log: { level: 'info' },
  shutdownGraceMs: 400,
  routes,
  ...extra,
});
const gw = (p: GatewayProcess) => ({ httpUrl: `http://${p.http}`, grpcAddress: p.grpc }) as never;

async function get(url: string): Promise<{ status: number; text: string }> {
  const res = await request(url);
  return { status: res.statusCode, text: await res.body.text() };
}

function healthCheck(address: string, service: string): Promise<number | string> {
  const req = Buffer.concat([Buffer.from([0x0a, Buffer.byteLength(service)]), Buffer.from(service)]);
  return callGrpcRaw(address, 'Check' as never, req, {}, '/grpc.health.v1.Health/Check').then((r) =>
    r.err ? (r.err.code === grpc.status.NOT_FOUND ? 'unknown service' : `error ${r.err.code}`) : r.value![1]!,
  );
}

/** Polls a state (not a timer standing in for one) with a generous bound for loaded machines. */
async function until(cond: () => Promise<boolean> | boolean, ms = 30_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return cond();
}

t.test('health, readiness, metrics, reflection', async (tt) => {
  const p = await startGatewayProcess(
    tt.testdir(),
    config(ADMIN, [
      ...baseRoutes,
      { name: 'down', match: { pathPrefix: '/down' }, upstream: { url: `http://127.0.0.1:${down}`, binding: 'auto' } },
    ]),
  );
  tt.teardown(() => p.stop());
  tt.same(await get(`http://${p.admin}/healthz`), { status: 200, text: '{"status":"ok"}' }, '/healthz');
  const ready = await get(`http://${p.admin}/readyz`);
  tt.equal(ready.status, 503, '/readyz: not ready while an upstream is down');
  const body = JSON.parse(ready.text) as { routes: Array<{ name: string; ready: boolean; reason?: string }> };
  tt.match(
    body.routes.find((r) => r.name === 'down'),
    { ready: false, reason: /agent card/ },
    'names the route and why',
  );
  tt.ok(
    body.routes.filter((r) => r.name !== 'down').every((r) => r.ready),
    'the others are ready',
  );
  tt.equal(await healthCheck(p.grpc, ''), 1, 'gRPC health: the gateway is SERVING');
  tt.ok(
    await until(async () => (await healthCheck(p.grpc, 'a2a-gateway.route.down')) === 2),
    'gRPC health: the down route is NOT_SERVING',
  );
  tt.ok(
    await until(async () => (await healthCheck(p.grpc, 'a2a-gateway.route.up-rest')) === 1),
    'gRPC health: a ready route is SERVING',
  );

  for (const inbound of BINDINGS)
    for (const upstream of BINDINGS) {
      await CALLERS[inbound](
        gw(p),
        'SendMessage',
        { message: userMessage('metric') },
        { tenant: `up-${slug(upstream)}`, prefix: `/up-${slug(upstream)}` },
      );
    }
  await CALLERS.JSONRPC(gw(p), 'GetTask', { id: 'nope' }, { tenant: 'up-grpc', prefix: '/up-grpc' });
  const metrics = (await get(`http://${p.admin}/metrics`)).text;
  for (const inbound of BINDINGS)
    for (const upstream of BINDINGS) {
      const line = `a2a_gateway_calls_total{route="up-${slug(upstream)}",method="SendMessage",inbound="${inbound}",upstream="${upstream}",outcome="OK",version="1.0",upstream_version="1.0"} 1`;
      tt.ok(metrics.includes(line), `metrics: ${inbound} → ${upstream}`);
    }
  tt.match(
    metrics,
    'a2a_gateway_calls_total{route="up-grpc",method="GetTask",inbound="JSONRPC",upstream="GRPC",outcome="TASK_NOT_FOUND",version="1.0",upstream_version="1.0"} 1',
    'outcome is the error reason',
  );
  tt.match(metrics, /a2a_gateway_call_duration_seconds_bucket\{/, 'latency histogram');
  tt.match(
    metrics,
    /a2a_gateway_upstream_duration_seconds_count\{route="up-rest",method="SendMessage",upstream="HTTP\+JSON"\} 3/,
    'upstream part',
  );
  tt.match(metrics, /a2a_gateway_card_refreshes_total\{route="down",outcome="failed"\}/, 'card refreshes');
  tt.match(metrics, /a2a_gateway_process_resident_memory_bytes/, 'process metrics');
  tt.notMatch(metrics, /task-|[0-9a-f]{8}-[0-9a-f]{4}-/, 'no task ids in labels');

  // Both versions grpcurl may ask (their descriptors are built on the first call): services, then the A2A file
  for (const version of ['v1', 'v1alpha'] as const) {
    const reflectionProto = join(
      dirname(createRequire(import.meta.url).resolve('@grpc/reflection/package.json')),
      `build/proto/grpc/reflection/${version}/reflection.proto`,
    );
    const def = grpc.loadPackageDefinition(protoLoader.loadSync(reflectionProto)) as unknown as {
      grpc: { reflection: Record<string, { ServerReflection: grpc.ServiceClientConstructor }> };
    };
    const client = new def.grpc.reflection[version]!.ServerReflection(p.grpc, grpc.credentials.createInsecure());
    type Answer = {
      listServicesResponse?: { service: Array<{ name: string }> };
      fileDescriptorResponse?: { fileDescriptorProto: Buffer[] };
    };
    const answers = await new Promise<Answer[]>((resolve, reject) => {
      const got: Answer[] = [];
      const call = client.ServerReflectionInfo!();
      call.on('data', (r: Answer) => {
        got.push(r);
        if (got.length === 2) {
          resolve(got);
          call.end();
        }
      });
      call.on('error', reject);
      call.write({ listServices: '' });
      call.write({ fileContainingSymbol: 'lf.a2a.v1.A2AService' });
    });
    client.close();
    const services = answers[0]?.listServicesResponse?.service.map((s) => s.name) ?? [];
    tt.ok(services.includes('lf.a2a.v1.A2AService'), `${version}: reflection lists lf.a2a.v1.A2AService`);
    tt.ok(services.includes('grpc.health.v1.Health'), `${version}: and grpc.health.v1.Health`);
    const files = answers[1]?.fileDescriptorResponse?.fileDescriptorProto ?? [];
    tt.ok(
      files.some((f) => Buffer.from(f).includes('lf.a2a.v1')),
      `${version}: the file that declares lf.a2a.v1.A2AService`,
    );
  }
});

t.test('the admin listener keeps operations off the public port', async (tt) => {
  const p = await startGatewayProcess(tt.testdir(), config(ADMIN));
  tt.teardown(() => p.stop());
  tt.ok(p.admin, 'an admin port');
  tt.equal((await get(`http://${p.admin}/metrics`)).status, 200, '/metrics on the admin listener');
  tt.equal((await get(`http://${p.admin}/readyz`)).status, 200, '/readyz on the admin listener');
  for (const path of ['/metrics', '/readyz', '/healthz'])
    tt.equal((await get(`http://${p.http}${path}`)).status, 404, `${path}: not on the public one`);
});

t.test('without an admin block: probes on the public port, /metrics nowhere', async (tt) => {
  const p = await startGatewayProcess(tt.testdir(), config());
  tt.teardown(() => p.stop());
  tt.equal(p.admin, undefined, 'no admin listener');
  tt.equal((await get(`http://${p.http}/healthz`)).status, 200, '/healthz on the public port');
  tt.equal((await get(`http://${p.http}/readyz`)).status, 200, '/readyz on the public port');
  tt.equal((await get(`http://${p.http}/metrics`)).status, 404, '/metrics is not served publicly');
});

t.test('reload: atomic file replace and SIGHUP, valid and invalid, with metrics', async (tt) => {
  const p = await startGatewayProcess(tt.testdir(), config(ADMIN));
  tt.teardown(() => p.stop());
  const newRoute = {
    name: 'added',
    match: { pathPrefix: '/added' },
    upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' },
  };
  const send = (prefix: string, tenant = '') =>
    CALLERS.JSONRPC(gw(p), 'SendMessage', { message: userMessage('r') }, { tenant, prefix });
  const metric = async (name: string): Promise<string> => {
    const text = (await get(`http://${p.admin}/metrics`)).text;
    return text.split('\n').find((l) => l.startsWith(name)) ?? '';
  };
  const hashAtStart = await metric('a2a_gateway_config_info{');
  tt.match(hashAtStart, /^a2a_gateway_config_info\{hash="[0-9a-f]{12}"\} 1$/, 'the active config hash');
  tt.match(await metric('a2a_gateway_config_last_reload_success_timestamp_seconds'), / \d{10}/, 'loaded at');
  tt.equal((await send('/added')).code, -32050, 'before: no such route');
  p.writeConfig(config(ADMIN, [...baseRoutes, newRoute]));
  tt.ok(await until(async () => (await send('/added')).ok), 'a replaced file adds the route');
  tt.equal((await send('/up-rest', 'up-rest')).ok, true, 'unchanged routes keep working');
  tt.equal(
    await metric('a2a_gateway_config_reload_total{outcome="success"}'),
    'a2a_gateway_config_reload_total{outcome="success"} 1',
  );
  tt.not(await metric('a2a_gateway_config_info{'), hashAtStart, 'a new hash');
  p.writeConfig({ routes: [{ name: 'broken', upstream: { binding: 'SOAP' } }] });
  const rejected = await p.logLine((l) => String(l.msg).includes('NOT reloaded'));
  tt.match(
    (rejected.problems as string[]).join('\n'),
    /routes\[0\]: missing required field "upstream"|routes\[0\].upstream/,
    'an invalid file is logged with exactly what is wrong',
  );
  tt.equal((await send('/added')).ok, true, 'and the previous configuration stays in force');
  tt.equal(
    await metric('a2a_gateway_config_reload_total{outcome="rejected"}'),
    'a2a_gateway_config_reload_total{outcome="rejected"} 1',
  );
  p.writeConfig(config(ADMIN));
  tt.ok(await until(async () => (await send('/added')).code === -32050), 'the next valid replace applies');
  p.writeConfig(config(ADMIN, [...baseRoutes, { ...newRoute, name: 'hup', match: { pathPrefix: '/hup' } }]));
  p.child.kill('SIGHUP');
  tt.ok(await until(async () => (await send('/hup')).ok), 'SIGHUP reloads too');
});

/** A REST stream the echo agent holds open ("hold"), once the agent has it. */
async function heldStream(p: GatewayProcess) {
  const stream = streamRest(
    gw(p),
    'SendStreamingMessage',
    { message: userMessage('hold') },
    { tenant: 'up-jsonrpc', prefix: '/up-jsonrpc' },
  );
  await until(() => agent.openCalls() > 0);
  return { result: stream };
}

t.test('drain on SIGTERM: unary calls finish, streams end with an error event, exit 0', async (tt) => {
  const p = await startGatewayProcess(
    tt.testdir(),
    config({}, [
      ...baseRoutes,
      { name: 'slow', match: { pathPrefix: '/slow' }, upstream: { url: `${slow.url}/rpc`, binding: 'JSONRPC' } },
    ]),
  );
  // (a no-op once the drain has ended it; a failure on the way leaves no gateway behind)
  tt.teardown(() => p.stop('SIGKILL'));
  const stream = await heldStream(p);
  const unary = CALLERS.JSONRPC(
    gw(p),
    'SendMessage',
    { message: userMessage('slow') },
    { tenant: '', prefix: '/slow' },
  );
  await slowGotCall;
  p.child.kill('SIGTERM');
  await p.logLine((l) => String(l.msg).startsWith('draining'));
  // a repeated SIGTERM (npm or an init forwarding the group's signal) must not cut the drain
  p.child.kill('SIGTERM');
  releaseSlow();
  const [u, s, code] = await Promise.all([unary, stream.result, p.exited]);
  tt.equal(u.ok, true, 'the unary call in flight finished');
  tt.equal(((u.result?.message as JsonObject)?.parts as JsonObject[])?.[0]?.text, 'late but here');
  tt.same(
    s.events.map((e) => Object.keys(e)[0]),
    ['task', 'statusUpdate'],
    'the stream got its events',
  );
  tt.same([s.error?.afterEvents, s.error?.code], [true, 'UNAVAILABLE'], 'then a final error event');
  tt.match(s.error?.message, 'shutting down');
  tt.equal(code, 0, 'exit 0');
  tt.equal(p.logs.filter((l) => l.msg === 'shutting down').length, 1, 'the second SIGTERM was ignored');
  await tt.rejects(request(`http://${p.http}/healthz`), 'no longer accepting');
});

t.test('a reload applies shutdownGraceMs and log.level too', async (tt) => {
  // a grace no test waits out: only the reloaded one can end the drain
  const p = await startGatewayProcess(tt.testdir(), config({ shutdownGraceMs: 600_000 }));
  tt.teardown(() => p.stop('SIGKILL'));
  const stream = await heldStream(p);
  p.writeConfig(config({ shutdownGraceMs: 50, log: { level: 'warn' } }));
  await p.logLine((l) => l.msg === 'configuration reloaded');
  const reloadedAt = p.logs.length;
  tt.ok(
    (await CALLERS.JSONRPC(gw(p), 'GetTask', { id: 'nope' }, { tenant: 'up-jsonrpc', prefix: '/up-jsonrpc' })).code,
  );
  p.child.kill('SIGTERM');
  // a warn line: written at the reloaded level, after the reloaded grace
  await p.logLine((l) => String(l.msg).startsWith('grace period over'));
  const [s, code] = await Promise.all([stream.result, p.exited]);
  tt.match(s.error?.message, 'shutting down', 'the stream ended at the reloaded grace');
  tt.equal(code, 0);
  tt.same(
    p.logs.slice(reloadedAt).filter((l) => l.msg === 'call' || l.level === 30),
    [],
    'no info line after the reload to warn: no call line, no "shutting down"',
  );
});

t.test('--log-level stays in force across a reload, as every command-line setting', async (tt) => {
  const p = await startGatewayProcess(tt.testdir(), config(ADMIN), process.env, ['--log-level', 'debug']);
  tt.teardown(() => p.stop());
  const probe = async () => (await get(`http://${p.admin}/healthz`)).status;
  const probes = () => p.logs.filter((l) => l.msg === 'probe' || l.path === '/healthz').length;
  tt.equal(await probe(), 200);
  tt.ok(await until(() => probes() > 0), 'a probe is logged at debug');
  p.child.kill('SIGHUP');
  await p.logLine((l) => l.msg === 'configuration reloaded');
  const before = probes();
  tt.equal(await probe(), 200);
  tt.ok(await until(() => probes() > before, 5000), 'a probe is still logged at debug after the reload');
});

t.test('two replicas share no task state', async (tt) => {
  const dir = tt.testdir({ a: {}, b: {} });
  const [a, b] = await Promise.all([
    startGatewayProcess(join(dir, 'a'), config()),
    startGatewayProcess(join(dir, 'b'), config()),
  ]);
  tt.teardown(async () => {
    await Promise.all([a!.stop(), b!.stop()]);
  });
  const opts = { tenant: 'up-grpc', prefix: '/up-grpc' };
  const created = await CALLERS['HTTP+JSON'](gw(a!), 'SendMessage', { message: userMessage('input') }, opts);
  const id = String((created.result?.task as JsonObject).id);
  const read = await CALLERS.JSONRPC(gw(b!), 'GetTask', { id }, opts);
  tt.equal(read.result?.id, id, 'created through one, read through the other');
  const canceled = await CALLERS.GRPC(gw(b!), 'CancelTask', { id }, opts);
  tt.equal((canceled.result?.status as JsonObject)?.state, 'TASK_STATE_CANCELED', 'and canceled through the other');
});
