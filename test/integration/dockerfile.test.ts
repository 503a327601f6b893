// No Docker engine runs here, so the Dockerfile is checked by doing what it
// does: every RUN step is a project script; the runtime stage's install
// (`npm ci --omit=dev`, --offline: from the npm cache the CI's own `npm ci`
// filled, never the registry) is run in the test's own folder with the built
// `dist/` and `proto/`, and its ENTRYPOINT (with the image's env) must start the
// gateway on docker/gateway.yaml's routes, in front of the two agents the
// demo-agent stage's ENTRYPOINT starts with compose's commands; the
// HEALTHCHECK must find the listener the config names; SIGTERM drains. The
// compose file and the Kubernetes manifests are parsed and checked for what
// operators rely on.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { parseConfig } from '../../src/config/load.js';
import { refusedPort } from '../helpers/broken-upstreams.js';
import { CALLERS, closeGrpcClients, userMessage } from '../helpers/harness.js';
import { ROOT, watchLogs } from '../helpers/cli-process.js';

interface Stage {
  name: string;
  from: string;
  lines: string[];
}

function stages(text: string): Stage[] {
  const joined = text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const out: Stage[] = [];
  for (const l of joined) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(l);
    if (from) out.push({ name: from[2] ?? '', from: from[1]!, lines: [] });
    else out.at(-1)?.lines.push(l);
  }
  return out;
}

const dockerfile = stages(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  engines: { node: string };
};
const stage = (name: string) => dockerfile.find((s) => s.name === name)!;
const runtime = stage('runtime');
const directive = (s: Stage, d: string) =>
  s.lines.filter((l) => l.toUpperCase().startsWith(`${d} `)).map((l) => l.slice(d.length + 1).trim());
const compose = parse(readFileSync(join(ROOT, 'docker/compose.yaml'), 'utf8')) as {
  services: Record<string, { build: { target: string }; command?: string[]; ports?: string[]; profiles?: string[] }>;
};

t.test('every RUN step is a project script CI runs; the image is on Node 24 LTS', async (t) => {
  const runs = dockerfile.flatMap((s) => directive(s, 'RUN'));
  t.ok(runs.length >= 3);
  for (const r of runs) {
    const script = /^npm run ([\w:-]+)$/.exec(r)?.[1];
    t.ok(r === 'npm ci' || r === 'npm ci --omit=dev' || (script !== undefined && script in pkg.scripts), `RUN ${r}`);
  }
  for (const s of dockerfile.filter((s) => !dockerfile.some((o) => o.name === s.from)))
    t.equal(s.from, 'node:24-bookworm-slim', `stage ${s.name}: the current Node LTS`);
  t.equal(pkg.engines.node, '>=20.18', 'engines stays honest: CI runs the code on Node 20 too');
  t.ok(dockerfile.map((s) => s.name).includes('build') && runtime, 'multi-stage: build and runtime');
  t.same(directive(runtime, 'USER'), ['node'], 'runs as a non-root user');
  t.match(directive(runtime, 'EXPOSE')[0], /8080.*50051/, 'exposes HTTP and gRPC');
  t.match(directive(runtime, 'ENTRYPOINT')[0], /^\[/, 'exec-form ENTRYPOINT: no shell swallows SIGTERM');
  t.notMatch(directive(runtime, 'HEALTHCHECK')[0], /:\d{2,5}/, 'the HEALTHCHECK names no fixed port');
});

/** The demo-agent stage's ENTRYPOINT with a compose service's command, on a free loopback port. */
async function composeAgent(t: Test, service: string): Promise<string> {
  const entry = JSON.parse(directive(stage(compose.services[service]!.build.target), 'ENTRYPOINT')[0]!) as string[];
  const command = compose.services[service]!.command!.map((a, i, all) => (all[i - 1] === '--port' ? '0' : a));
  const child: ChildProcess = spawn(process.execPath, [...entry.slice(1), ...command, '--host', '127.0.0.1'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  t.teardown(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  const line = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) resolve(buf.split('\n')[0]!);
    });
    void exited.then(([code]) => reject(new Error(`${service} exited ${String(code)}`)));
  });
  return line.split(' ').at(-1)!; // "<name>: <BINDING> <url>"
}

t.test("the runtime stage's install and entry command start the built gateway", async (t) => {
  const app = t.testdir();
  for (const f of ['package.json', 'package-lock.json']) cpSync(join(ROOT, f), join(app, f));
  const install = directive(runtime, 'RUN')[0]!.split(' ');
  execFileSync(install[0]!, [...install.slice(1), '--ignore-scripts', '--no-audit', '--no-fund', '--offline'], {
    cwd: app,
    stdio: 'ignore',
  });
  for (const copy of directive(runtime, 'COPY').filter((c) => !c.startsWith('package.json'))) {
    const [from, to] = copy.replace('--from=build /app/', '').split(/\s+/) as [string, string];
    cpSync(join(ROOT, from), join(app, to), { recursive: true });
  }
  t.teardown(() => closeGrpcClients());
  const grpcAgent = await composeAgent(t, 'grpc-agent');
  const rpcAgent = await composeAgent(t, 'jsonrpc-agent');
  const config = parse(readFileSync(join(ROOT, 'docker/gateway.yaml'), 'utf8')) as {
    listen: Record<string, unknown>;
    admin: Record<string, unknown>;
    routes: Array<{ upstream: { url: string } }>;
  };
  config.listen = { host: '127.0.0.1', httpPort: 0, grpcPort: 0 };
  config.admin = { host: '127.0.0.1', port: 0 };
  config.routes[0]!.upstream.url = `grpc://${grpcAgent}`;
  config.routes[1]!.upstream.url = rpcAgent;
  writeFileSync(join(app, 'gateway.yaml'), stringify(config));

  const env = Object.fromEntries(
    directive(runtime, 'ENV')
      .join(' ')
      .split(/\s+/)
      .map((kv) => kv.split('=') as [string, string]),
  );
  t.equal(env.A2A_GATEWAY_CONFIG, '/etc/a2a-gateway/gateway.yaml', 'the config path the image reads by default');
  const entry = JSON.parse(directive(runtime, 'ENTRYPOINT')[0]!) as string[];
  t.same(entry, ['node', 'dist/cli/bin.js'], 'the entry command');
  const imageEnv: NodeJS.ProcessEnv = { ...process.env, ...env, A2A_GATEWAY_CONFIG: join(app, 'gateway.yaml') };
  delete imageEnv.A2A_GATEWAY_HEALTH_URL;
  const child = spawn(process.execPath, entry.slice(1), { cwd: app, env: imageEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit');
  const up = await watchLogs(child).logLine((l) => l.msg === 'a2a-gateway listening');

  const healthcheck = JSON.parse(directive(runtime, 'HEALTHCHECK')[0]!.replace(/^.*CMD\s+/, '')) as string[];
  const probe = async (configText: string): Promise<number | null> => {
    writeFileSync(join(app, 'probe.yaml'), configText);
    const hc = spawn(process.execPath, healthcheck.slice(1), {
      cwd: app,
      env: { ...imageEnv, A2A_GATEWAY_CONFIG: join(app, 'probe.yaml') },
    });
    return (await once(hc, 'exit'))[0] as number | null;
  };
  t.equal(await probe(stringify({ ...config, admin: { port: up.admin } })), 0, 'HEALTHCHECK: the admin listener');
  // Without an admin block the probe goes to listen.httpPort (here the port that serves /healthz: the admin one).
  t.equal(
    await probe(stringify({ ...config, admin: undefined, listen: { host: '0.0.0.0', httpPort: up.admin } })),
    0,
    'HEALTHCHECK: the HTTP port when there is no admin block (a wildcard host probed on loopback)',
  );
  t.equal(
    await probe(stringify({ ...config, admin: { port: await refusedPort() } })),
    1,
    'HEALTHCHECK fails where nothing answers',
  );
  for (const name of ['grpc-agent', 'jsonrpc-agent']) {
    const r = await CALLERS.JSONRPC(
      { httpUrl: `http://${String(up.http)}` } as never,
      'SendMessage',
      { message: userMessage('from the image') },
      { tenant: name, prefix: `/${name}` },
    );
    t.equal(r.ok, true, `${name} through the image's gateway`);
  }
  child.kill('SIGTERM');
  t.equal((await exited)[0], 0, 'SIGTERM: drained, exit 0');
});

t.test('compose and Kubernetes manifests', async (t) => {
  const byDefault = Object.keys(compose.services).filter((k) => !compose.services[k]!.profiles);
  t.same(byDefault.sort(), ['gateway', 'grpc-agent', 'jsonrpc-agent']);
  const scale = Object.keys(compose.services).filter((k) => compose.services[k]!.profiles?.includes('scale'));
  t.same(scale.sort(), ['gateway-a', 'gateway-b', 'redis', 'replica-1', 'replica-2'], 'the scale profile');
  const scaled = parseConfig(
    readFileSync(join(ROOT, 'docker/gateway-scale.yaml'), 'utf8'),
    'docker/gateway-scale.yaml',
  );
  t.equal(scaled.state?.redis.url, 'redis://redis:6379', 'the scale profile’s gateways share the redis service');
  t.same(
    scaled.routes[0]!.upstream.endpoints.map((e) => new URL(e.url).hostname),
    ['replica-1', 'replica-2'],
    'over both agent replicas',
  );
  for (const g of ['gateway-a', 'gateway-b'])
    t.ok(
      compose.services[g]!.ports!.filter((p) => p.endsWith(':9090')).every((p) => p.startsWith('127.0.0.1:')),
      `${g}: admin port on the host loopback only`,
    );
  t.equal(compose.services.gateway?.build.target, 'runtime');
  t.ok(
    dockerfile.some((s) => s.name === compose.services['grpc-agent']?.build.target),
    'the agents build from a Dockerfile stage',
  );
  const gatewayConfig = parseConfig(readFileSync(join(ROOT, 'docker/gateway.yaml'), 'utf8'), 'docker/gateway.yaml');
  const adminPort = String(gatewayConfig.admin?.port);
  const published = compose.services.gateway!.ports!.filter((p) => p.split(':').at(-1) === adminPort);
  t.ok(published.length > 0, 'the admin port is published');
  t.ok(
    published.every((p) => p.startsWith('127.0.0.1:')),
    'the admin port is published on the host loopback only',
  );

  const files = ['configmap', 'deployment', 'service', 'hpa', 'pdb'];
  const k8s = files.flatMap((f) =>
    parseAllDocuments(readFileSync(join(ROOT, `docker/kubernetes/${f}.yaml`), 'utf8')).map(
      (d) => d.toJS() as Record<string, any>,
    ),
  );
  const byKind = Object.fromEntries(k8s.map((d) => [d.kind, d]));
  t.same(Object.keys(byKind).sort(), [
    'ConfigMap',
    'Deployment',
    'HorizontalPodAutoscaler',
    'PodDisruptionBudget',
    'Service',
  ]);
  t.ok(parseConfig(byKind.ConfigMap.data['gateway.yaml'], 'configmap'), 'the ConfigMap holds a valid config');
  const pod = byKind.Deployment.spec.template.spec;
  const c = pod.containers[0];
  t.equal(c.readinessProbe.httpGet.path, '/readyz');
  t.equal(c.livenessProbe.httpGet.path, '/healthz');
  t.same(c.lifecycle.preStop, { exec: { command: ['sleep', '5'] } }, 'preStop: exec sleep, for older clusters too');
  t.match(c.resources.requests, { cpu: /m$/, memory: /^\d+Mi$/ }, 'resource requests');
  t.match(
    c.securityContext,
    {
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    },
    'a locked-down container',
  );
  t.notOk(
    c.volumeMounts.some((m: { subPath?: string }) => m.subPath),
    'the ConfigMap is mounted as a folder (a subPath mount never sees updates)',
  );
  t.same(byKind.PodDisruptionBudget.spec.selector.matchLabels, byKind.Deployment.spec.selector.matchLabels);
  t.ok(byKind.PodDisruptionBudget.spec.minAvailable < byKind.Deployment.spec.replicas, 'evictions can proceed');
  t.ok(
    byKind.Service.spec.ports.some((p: { appProtocol: string }) => p.appProtocol === 'grpc'),
    'gRPC port with appProtocol: grpc',
  );
  t.equal(byKind.HorizontalPodAutoscaler.spec.scaleTargetRef.name, byKind.Deployment.metadata.name);
  t.ok(byKind.Deployment.spec.replicas >= 2, 'several gateway replicas');

  const redis = parseAllDocuments(readFileSync(join(ROOT, 'docker/kubernetes/redis.yaml'), 'utf8')).map(
    (d) => d.toJS() as Record<string, any>,
  );
  const redisService = redis.find((d) => d.kind === 'Service')!;
  const redisPod = redis.find((d) => d.kind === 'Deployment')!;
  t.same(redisService.spec.selector, redisPod.spec.selector.matchLabels, 'the Redis Service selects the Redis pod');
  const shared = parseConfig(byKind.ConfigMap.data['gateway.yaml'], 'configmap').state?.redis.url;
  t.equal(shared, `redis://${redisService.metadata.name}:${redisService.spec.ports[0].port}`, 'the gateways use it');
});
