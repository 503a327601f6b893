// The npm package as a user gets it: `npm pack` in a clean copy of the
// sources (no dist/: prepack must build it), then, in a fresh folder,
// `npm install <tarball>` and `npx a2a-gateway` — --version, and the
// --upstream quick start serving a real agent. The package holds exactly the
// built JavaScript, the protos, the config's JSON Schema and the docs: no
// TypeScript, source maps, tests or demo.
//
// No network: the install resolves from the npm cache that `npm ci` filled.
// `npm ci` caches tarballs but not the registry's metadata, which a plain
// `npm install <tarball>` in an empty folder must fetch, so the fresh folder
// gets a lockfile pinning the project's own production versions (from its
// package-lock.json) and the install runs with --offline.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { ROOT, watchLogs } from '../helpers/cli-process.js';
import { userMessage } from '../helpers/harness.js';

const NOT_SOURCES = new Set(['node_modules', 'dist', '.git', '.tap', 'coverage']);
const npm = (args: string[], cwd: string): string =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

interface Lock {
  packages: Record<string, { dev?: boolean; [k: string]: unknown }>;
}

t.test('npm pack from clean sources; npm install <tarball> and npx a2a-gateway in a fresh folder', async (t) => {
  const dir = t.testdir({ clone: {}, app: {} });
  const clone = join(dir, 'clone');
  for (const entry of readdirSync(ROOT).filter((e) => !NOT_SOURCES.has(e)))
    cpSync(join(ROOT, entry), join(clone, entry), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');

  const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], clone)) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  const files = packed!.files.map((f) => f.path);
  t.ok(files.includes('dist/cli/bin.js'), 'prepack built dist/');
  const outside = files.filter(
    (f) =>
      !/^dist\/.+\.js$/.test(f) &&
      !/^proto\/.+\.proto$/.test(f) &&
      !['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'SECURITY.md'].includes(f) &&
      f !== 'schema/a2a-gateway.schema.json',
  );
  t.same(outside, [], 'nothing but the built JavaScript, protos, schema and docs');
  for (const f of ['LICENSE', 'CHANGELOG.md', 'schema/a2a-gateway.schema.json', 'proto/a2a.proto'])
    t.ok(files.includes(f), `ships ${f}`);
  t.notOk(
    files.some((f) => f.startsWith('dist/demo') || f.startsWith('examples')),
    'the demo agent (devDependencies) stays out',
  );
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    version: string;
    private?: boolean;
    dependencies: Record<string, string>;
  };
  t.equal(pkg.private, undefined, 'publishable');

  const app = join(dir, 'app');
  const tarball = `file:../${packed!.filename}`;
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
  const production = Object.entries(lock.packages).filter(([path, p]) => path.startsWith('node_modules/') && !p.dev);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }));
  writeFileSync(
    join(app, 'package-lock.json'),
    JSON.stringify({
      name: 'app',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'app', dependencies: { 'a2a-gateway': tarball } },
        'node_modules/a2a-gateway': {
          version: pkg.version,
          resolved: tarball,
          dependencies: pkg.dependencies,
          bin: { 'a2a-gateway': 'dist/cli/bin.js' },
        },
        ...Object.fromEntries(production),
      },
    }),
  );
  npm(['install', '--offline', '--ignore-scripts', join(dir, packed!.filename)], app);

  // Its own process group: npx (npm exec) and the gateway it starts are signalled together, as a terminal would.
  const npx = (args: string[]) =>
    spawn('npx', ['--offline', 'a2a-gateway', ...args], {
      cwd: app,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
  const version = npx(['--version']);
  let out = '';
  version.stdout.on('data', (d: Buffer) => (out += d.toString()));
  t.same([(await once(version, 'exit'))[0], out], [0, `${pkg.version}\n`], 'npx a2a-gateway --version');

  const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
  t.teardown(() => agent.close());
  const gw = npx(['--upstream', agent.httpUrl, '--http-port', '0', '--grpc-port', '0']);
  // The pipe closes when every process holding it is gone: npx and the gateway.
  const ended = once(gw.stdout, 'close');
  const stop = () => {
    try {
      process.kill(-gw.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  t.teardown(async () => {
    stop();
    await ended;
  });
  const logs = watchLogs(gw);
  const up = await logs.logLine((l) => l.msg === 'a2a-gateway listening');
  const res = await request(`http://${String(up.http)}/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
    body: JSON.stringify({ message: userMessage('from the package') }),
  });
  const body = (await res.body.json()) as { task?: { artifacts: Array<{ parts: Array<{ text: string }> }> } };
  t.equal(body.task?.artifacts[0]?.parts[0]?.text, 'echo: from the package', 'npx a2a-gateway --upstream … serves');
  stop();
  await ended;
  t.ok(
    logs.logs.some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM'),
    'SIGTERM reached the gateway, which drained and exited',
  );
});
