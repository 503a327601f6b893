// The a2a-gateway command as a user runs it (the built dist/cli/bin.js):
// --help and --version, check, a bad config (one line per problem, exit 2,
// nothing served), a port in use (one line, exit 2, no stack trace), and the
// --upstream quick start (explicit binding and auto; `localhost` in front of
// an agent whose card says 127.0.0.1; --allow-host for a card naming another
// host; a gRPC agent without a card fetches nothing) serving real SDK agents.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { cardServer } from '../helpers/card-server.js';
import { BIN, ROOT, runCli, watchLogs } from '../helpers/cli-process.js';
import { userMessage } from '../helpers/harness.js';

const FIXTURES = `${ROOT}test/fixtures/config/`;

/** A quick-start gateway on free ports; resolves with its HTTP address and its log lines. */
async function quickStart(t: Test, args: string[]) {
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, ...args, '--http-port', '0', '--grpc-port', '0', '--log-level', 'debug'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = once(child, 'exit');
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  });
  const logs = watchLogs(child);
  const up = await logs.logLine((l) => l.msg === 'a2a-gateway listening');
  return {
    child,
    exited,
    http: `http://${String(up.http)}`,
    ...logs,
  };
}

/** /readyz once the card fetch at start has settled (polled state, generous bound). */
async function readiness(http: string): Promise<{ status: number; text: string }> {
  const end = Date.now() + 30_000;
  for (;;) {
    const res = await request(`${http}/readyz`);
    const text = await res.body.text();
    if (!text.includes('not loaded yet') || Date.now() > end) return { status: res.statusCode, text };
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function sendRest(http: string): Promise<number> {
  const res = await request(`${http}/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
    body: JSON.stringify({ message: userMessage('cli') }),
  });
  await res.body.dump();
  return res.statusCode;
}

t.test('--help lists the commands and flags; --version is the package version', async (t) => {
  const r = await runCli(['--help']);
  t.equal(r.code, 0);
  const flags = ['--config', 'check', '--upstream', '--upstream-binding', '--host', '--http-port', '--grpc-port'];
  for (const flag of [...flags, '--allow-host', '--version']) t.match(r.stdout, flag);
  const v = await runCli(['--version']);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  t.same([v.code, v.stdout], [0, `${pkg.version}\n`]);
});

t.test('check --config: valid and invalid files', async (t) => {
  const good = await runCli(['check', '--config', `${FIXTURES}good-minimal.yaml`]);
  t.same([good.code, good.stdout.trim()], [0, `${FIXTURES}good-minimal.yaml: valid (1 route(s))`]);
  const bad = await runCli(['check', '--config', `${FIXTURES}bad-types.yaml`]);
  t.equal(bad.code, 2, 'exit code 2');
  t.match(bad.stderr, 'bad-types.yaml:7:16: routes[0].upstream.binding: must be one of');
  const lines = bad.stderr.trimEnd().split('\n');
  t.ok(
    lines.length === 4 && lines.every((l) => /^a2a-gateway: \S+bad-types\.yaml:\d+:\d+: /.test(l)),
    'one line per problem, each with its place',
  );
});

t.test('config checks: each problem one line, exit 2', async (t) => {
  const route = (name: string, pathPrefix: string) => ({
    name,
    match: { pathPrefix },
    upstream: { url: 'http://127.0.0.1:9/rpc', binding: 'JSONRPC' },
  });
  const dir = t.testdir({
    'shadowed.yaml': JSON.stringify({ routes: [route('a', '/a'), route('b', '/a/')] }),
    // prefixes and tenants are matched case-insensitively: /A and ACME come second to /a and acme
    'case.yaml': JSON.stringify({
      routes: [
        route('a', '/a'),
        route('b', '/A'),
        { ...route('c', '/t'), match: { pathPrefix: '/t', tenant: 'acme' } },
        { ...route('d', '/t'), match: { pathPrefix: '/t', tenant: 'ACME' } },
      ],
    }),
    'ports.yaml': JSON.stringify({
      listen: { httpPort: 9000, grpcPort: 9000 },
      admin: { port: 9000 },
      routes: [route('a', '/a')],
    }),
    'dots.yaml': JSON.stringify({ routes: [route('a', '/a/../admin'), route('b', '/b//c')] }),
    'split.yaml': JSON.stringify({
      routes: [
        // behind a tenant: gRPC (no path) reaches a prefixed route only so
        { ...route('a', '/a'), match: { pathPrefix: '/a', tenant: 't' }, card: { bindings: ['JSONRPC', 'HTTP+JSON'] } },
        { ...route('b', '/a/'), match: { pathPrefix: '/a/', tenant: 't' }, card: { bindings: ['GRPC'] } },
      ],
    }),
  });
  const split = await runCli(['check', '--config', join(dir, 'split.yaml')]);
  t.same([split.code, split.stderr], [0, ''], 'one prefix split between routes by binding is not shadowed');
  const expect: Record<string, RegExp[]> = {
    'shadowed.yaml': [/routes\[1\]\.match: never matches: route "a" comes first/],
    'case.yaml': [
      /routes\[1\]\.match: never matches: route "a" comes first/,
      /routes\[3\]\.match: never matches: route "c" comes first/,
    ],
    'ports.yaml': [
      /listen\.grpcPort: port 9000 is also listen\.httpPort/,
      /admin\.port: port 9000 is also listen\.httpPort/,
    ],
    'dots.yaml': [/pathPrefix: "\/a\/\.\.\/admin" has a dot segment/, /pathPrefix: "\/b\/\/c" has an empty segment/],
  };
  const runs = await Promise.all(Object.keys(expect).map((f) => runCli(['check', '--config', join(dir, f)])));
  Object.entries(expect).forEach(([file, patterns], n) => {
    const r = runs[n]!;
    t.equal(r.code, 2, `${file}: exit 2`);
    const lines = r.stderr.trimEnd().split('\n');
    t.equal(lines.length, patterns.length, `${file}: one line per problem`);
    patterns.forEach((p, i) => t.match(lines[i], p));
  });
  const env = { ...process.env, SHORT_KEY: 'k' };
  const auth = { apiKey: { name: 'X-API-Key', keys: [{ id: 'ops', keyEnv: 'SHORT_KEY' }] } };
  const keyFile = join(
    t.testdir({ 'key.yaml': JSON.stringify({ routes: [{ ...route('a', '/a'), auth }] }) }),
    'key.yaml',
  );
  const short = await runCli(['check', '--config', keyFile], { env });
  t.equal(short.code, 2);
  t.match(short.stderr, /keys\[0\]: environment variable SHORT_KEY holds a key shorter than 8 characters/);
  const clash = await runCli(['--upstream', 'http://127.0.0.1:9', '--http-port', '7001', '--grpc-port', '7001']);
  t.same(
    [clash.code, clash.stderr],
    [2, 'a2a-gateway: listen.grpcPort: port 7001 is also listen.httpPort: each listener needs its own port\n'],
  );
});

t.test('a bad config serves nothing and exits 2', async (t) => {
  const r = await runCli(['--config', `${FIXTURES}bad-semantic.yaml`, '--http-port', '0']);
  t.equal(r.code, 2);
  t.notMatch(r.stdout, 'listening');
  t.equal((await runCli([])).code, 2, 'no --config and no --upstream');
  const badFlag = await runCli(['--upstream', 'http://x', '--upstream-binding', 'SOAP']);
  t.match(badFlag.stderr, '--upstream-binding: must be one of');
  const allow = await runCli(['--config', `${FIXTURES}good-minimal.yaml`, '--allow-host', 'x']);
  t.same(
    [allow.code, allow.stderr],
    [2, 'a2a-gateway: --allow-host is for the --upstream quick start; in a file, use upstream.allowedHosts\n'],
  );
});

t.test('a port in use: one line, exit 2, no stack trace', async (t) => {
  const taken = createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => taken.close(() => r())));
  const port = (taken.address() as { port: number }).port;
  for (const [flag, other] of [
    ['--http-port', '--grpc-port'],
    ['--grpc-port', '--http-port'],
  ] as const) {
    const r = await runCli(['--upstream', '127.0.0.1:9', '--upstream-binding', 'GRPC', flag, String(port), other, '0']);
    t.same(
      [r.code, r.stderr],
      [
        2,
        `a2a-gateway: cannot listen on 127.0.0.1:${port}: address already in use (change ${flag} / listen.${flag === '--http-port' ? 'httpPort' : 'grpcPort'})\n`,
      ],
      `${flag} taken`,
    );
  }
});

t.test('quick start: explicit binding and auto, SIGTERM exits 0', async (t) => {
  const agent = await startEchoAgent({ bindings: ['JSONRPC', 'HTTP+JSON'] });
  t.teardown(() => agent.close());
  for (const args of [
    ['--upstream', agent.restUrl, '--upstream-binding', 'HTTP+JSON'],
    ['--upstream', agent.httpUrl],
  ]) {
    const g = await quickStart(t, args);
    const card = await request(`${g.http}/.well-known/agent-card.json`);
    t.equal(
      ((await card.body.json()) as { name: string }).name,
      'Echo Agent',
      `${args.join(' ')}: the card at the root`,
    );
    t.equal(await sendRest(g.http), 200, `${args.join(' ')}: SendMessage through the quick-start route`);
    g.child.kill('SIGTERM');
    t.equal((await g.exited)[0], 0, 'SIGTERM exits 0');
  }
});

t.test('quick start: localhost in front of an agent whose card says 127.0.0.1', async (t) => {
  const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
  t.teardown(() => agent.close());
  t.match(agent.jsonRpcUrl, /^http:\/\/127\.0\.0\.1:/, "the agent's card names 127.0.0.1");
  const g = await quickStart(t, ['--upstream', agent.httpUrl.replace('127.0.0.1', 'localhost')]);
  const ready = await readiness(g.http);
  t.equal(ready.status, 200, `ready: ${ready.text}`);
  t.equal(await sendRest(g.http), 200, 'calls reach the agent');
});

t.test('quick start: --allow-host lets the card point at another host', async (t) => {
  const agent = await startEchoAgent({ bindings: ['JSONRPC'], host: '127.0.0.2' });
  const published = await (await request(`${agent.httpUrl}/.well-known/agent-card.json`)).body.json();
  const cards = await cardServer(published as never, 'max-age=60');
  t.teardown(async () => {
    await cards.close();
    await agent.close();
  });
  const upstream = `${cards.url}/.well-known/agent-card.json`;
  const refused = await quickStart(t, ['--upstream', upstream]);
  t.match((await readiness(refused.http)).text, /host not allowed for this route/, 'without: the interface is refused');
  const allowed = await quickStart(t, ['--upstream', upstream, '--allow-host', '127.0.0.2', '--allow-host', 'other']);
  t.equal((await readiness(allowed.http)).status, 200, 'with --allow-host: ready');
  t.equal(await sendRest(allowed.http), 200, 'and calls reach the agent on 127.0.0.2');
});

t.test('quick start: a gRPC agent without a card fetches nothing and logs no card errors', async (t) => {
  const agent = await startEchoAgent({ bindings: ['GRPC'] });
  t.teardown(() => agent.close());
  const g = await quickStart(t, ['--upstream', agent.grpcAddress, '--upstream-binding', 'GRPC']);
  t.equal((await readiness(g.http)).status, 200, 'ready');
  t.equal(await sendRest(g.http), 200, 'calls reach the agent');
  // The start-up fetch (and its failure line) would come before the route is ready; exiting flushes every line.
  g.child.kill('SIGTERM');
  await g.exited;
  t.same(
    g.logs.filter((l) => /card/i.test(String(l.msg))),
    [],
    'no card fetch, no "agent card unavailable" line',
  );
});
