// No Docker engine runs here, so the Dockerfile is checked by doing what it
// does: every RUN step is a project script; the runtime stage's install
// (`npm ci --omit=dev`) is run in a scratch folder with the built `dist/` and
// `proto/`, and its ENTRYPOINT (with the image's env) must start the gateway
// on docker/gateway.yaml's routes, pass the HEALTHCHECK command, serve both
// example agents and drain on SIGTERM. The compose file and the Kubernetes
// manifests are parsed and checked for what operators rely on.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { parseConfig } from '../../src/config/load.js';
import { startEchoAgent } from '../../src/demo/echo-agent.js';
import { CALLERS, closeGrpcClients, userMessage } from '../helpers/harness.js';
import { ROOT } from '../helpers/cli-process.js';

interface Stage {
  name: string;
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
    const from = /^FROM\s+\S+(?:\s+AS\s+(\S+))?/i.exec(l);
    if (from) out.push({ name: from[1] ?? '', lines: [] });
    else out.at(-1)?.lines.push(l);
  }
  return out;
}

const dockerfile = stages(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const runtime = dockerfile.find((s) => s.name === 'runtime')!;
const directive = (s: Stage, d: string) =>
  s.lines.filter((l) => l.toUpperCase().startsWith(`${d} `)).map((l) => l.slice(d.length + 1).trim());

t.test('every RUN step is a project script CI runs', async (tt) => {
  const runs = dockerfile.flatMap((s) => directive(s, 'RUN'));
  tt.ok(runs.length >= 3);
  for (const r of runs) {
    const script = /^npm run ([\w:-]+)$/.exec(r)?.[1];
    tt.ok(r === 'npm ci' || r === 'npm ci --omit=dev' || (script !== undefined && script in pkg.scripts), `RUN ${r}`);
  }
  tt.ok(dockerfile.map((s) => s.name).includes('build') && runtime, 'multi-stage: build and runtime');
  tt.same(directive(runtime, 'USER'), ['node'], 'runs as a non-root user');
  tt.match(directive(runtime, 'EXPOSE')[0], /8080.*50051/, 'exposes HTTP and gRPC');
  tt.match(directive(runtime, 'ENTRYPOINT')[0], /^\[/, 'exec-form ENTRYPOINT: no shell swallows SIGTERM');
});

t.test("the runtime stage's install and entry command start the built gateway", async (tt) => {
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  const app = mkdtempSync(join(tmpdir(), 'a2a-gw-image-'));
  for (const f of ['package.json', 'package-lock.json']) cpSync(join(ROOT, f), join(app, f));
  const install = directive(runtime, 'RUN')[0]!.split(' ');
  execFileSync(install[0]!, [...install.slice(1), '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: app,
    stdio: 'ignore',
  });
  cpSync(join(ROOT, 'dist'), join(app, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'proto'), join(app, 'proto'), { recursive: true });

  const grpcAgent = await startEchoAgent({ bindings: ['GRPC'], name: 'gRPC-only agent' });
  const rpcAgent = await startEchoAgent({ bindings: ['JSONRPC'], name: 'JSON-RPC-only agent' });
  tt.teardown(async () => {
    closeGrpcClients();
    await Promise.all([grpcAgent.close(), rpcAgent.close()]);
  });
  const config = parse(readFileSync(join(ROOT, 'docker/gateway.yaml'), 'utf8')) as {
    listen: Record<string, unknown>;
    admin: Record<string, unknown>;
    routes: Array<{ upstream: { url: string } }>;
  };
  config.listen = { host: '127.0.0.1', httpPort: 0, grpcPort: 0 };
  config.admin = { host: '127.0.0.1', port: 0 };
  config.routes[0]!.upstream.url = `grpc://${grpcAgent.grpcAddress}`;
  config.routes[1]!.upstream.url = rpcAgent.jsonRpcUrl;
  writeFileSync(join(app, 'gateway.yaml'), stringify(config));

  const env = Object.fromEntries(
    directive(runtime, 'ENV')
      .join(' ')
      .split(/\s+/)
      .map((kv) => kv.split('=') as [string, string]),
  );
  tt.equal(env.A2A_GATEWAY_CONFIG, '/etc/a2a-gateway/gateway.yaml', 'the config path the image reads by default');
  const entry = JSON.parse(directive(runtime, 'ENTRYPOINT')[0]!) as string[];
  tt.same(entry, ['node', 'dist/cli/bin.js'], 'the entry command');
  const child = spawn(entry[0] === 'node' ? process.execPath : entry[0]!, entry.slice(1), {
    cwd: app,
    env: { ...process.env, ...env, A2A_GATEWAY_CONFIG: join(app, 'gateway.yaml') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const up = await new Promise<{ http: string; admin: number }>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const line = buf.split('\n').find((l) => l.includes('a2a-gateway listening'));
      if (line) resolve(JSON.parse(line) as { http: string; admin: number });
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}`)));
  });
  const healthcheck = JSON.parse(directive(runtime, 'HEALTHCHECK')[0]!.replace(/^.*CMD\s+/, '')) as string[];
  const hc = spawn(process.execPath, healthcheck.slice(1), {
    cwd: app,
    env: { ...process.env, A2A_GATEWAY_HEALTH_URL: `http://127.0.0.1:${up.admin}/healthz` },
  });
  tt.equal((await once(hc, 'exit'))[0], 0, 'the HEALTHCHECK command passes');
  const gw = { httpUrl: `http://${up.http}` } as never;
  for (const name of ['grpc-agent', 'jsonrpc-agent']) {
    const r = await CALLERS.JSONRPC(
      gw,
      'SendMessage',
      { message: userMessage('from the image') },
      { tenant: name, prefix: `/${name}` },
    );
    tt.equal(r.ok, true, `${name} through the image's gateway`);
  }
  child.kill('SIGTERM');
  tt.equal((await once(child, 'exit'))[0], 0, 'SIGTERM: drained, exit 0');
});

t.test('compose and Kubernetes manifests', async (tt) => {
  const compose = parse(readFileSync(join(ROOT, 'docker/compose.yaml'), 'utf8')) as {
    services: Record<string, { build: { target: string }; command?: string[] }>;
  };
  tt.same(Object.keys(compose.services).sort(), ['gateway', 'grpc-agent', 'jsonrpc-agent']);
  tt.equal(compose.services.gateway?.build.target, 'runtime');
  tt.ok(
    dockerfile.some((s) => s.name === compose.services['grpc-agent']?.build.target),
    'the agents build from a Dockerfile stage',
  );
  tt.ok(
    parseConfig(readFileSync(join(ROOT, 'docker/gateway.yaml'), 'utf8'), 'docker/gateway.yaml'),
    'docker/gateway.yaml is a valid config',
  );

  const k8s = ['configmap', 'deployment', 'service', 'hpa'].flatMap((f) =>
    parseAllDocuments(readFileSync(join(ROOT, `docker/kubernetes/${f}.yaml`), 'utf8')).map(
      (d) => d.toJS() as Record<string, any>,
    ),
  );
  const byKind = Object.fromEntries(k8s.map((d) => [d.kind, d]));
  tt.same(Object.keys(byKind).sort(), ['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'Service']);
  tt.ok(parseConfig(byKind.ConfigMap.data['gateway.yaml'], 'configmap'), 'the ConfigMap holds a valid config');
  const c = byKind.Deployment.spec.template.spec.containers[0];
  tt.equal(c.readinessProbe.httpGet.path, '/readyz');
  tt.equal(c.livenessProbe.httpGet.path, '/healthz');
  tt.ok(c.lifecycle.preStop, 'preStop before the drain');
  tt.ok(c.resources.requests.cpu && c.resources.requests.memory, 'resource requests');
  tt.ok(
    byKind.Service.spec.ports.some((p: { appProtocol: string }) => p.appProtocol === 'grpc'),
    'gRPC port with appProtocol: grpc',
  );
  tt.equal(byKind.HorizontalPodAutoscaler.spec.scaleTargetRef.name, byKind.Deployment.metadata.name);
});
