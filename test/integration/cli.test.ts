// The a2a-gateway command as a user runs it: --help, check, a bad config
// (non-zero exit, nothing served), and the --upstream quick start (explicit
// binding and auto) serving a real SDK agent at the root until SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { request } from 'undici';
import { startEchoAgent } from '../../src/demo/echo-agent.js';
import { userMessage } from '../helpers/harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = `${ROOT}test/fixtures/config/`;

function run(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function finish(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** Waits for the "a2a-gateway listening" log line and returns the HTTP address. */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      for (const line of buf.split('\n')) {
        if (line.includes('a2a-gateway listening')) resolve((JSON.parse(line) as { http: string }).http);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}`)));
  });
}

t.test('--help lists the commands and flags', async (tt) => {
  const r = await finish(run(['--help']));
  tt.equal(r.code, 0);
  for (const flag of ['--config', 'check', '--upstream', '--upstream-binding', '--host', '--http-port', '--grpc-port'])
    tt.match(r.stdout, flag);
});

t.test('check --config: valid and invalid files', async (tt) => {
  const good = await finish(run(['check', '--config', `${FIXTURES}good-minimal.yaml`]));
  tt.same([good.code, good.stdout.trim()], [0, `${FIXTURES}good-minimal.yaml: valid (1 route(s))`]);
  const bad = await finish(run(['check', '--config', `${FIXTURES}bad-types.yaml`]));
  tt.equal(bad.code, 2, 'exit code 2');
  tt.match(bad.stderr, 'bad-types.yaml:7:16: routes[0].upstream.binding: must be one of');
});

t.test('a bad config serves nothing and exits non-zero', async (tt) => {
  const r = await finish(run(['--config', `${FIXTURES}bad-semantic.yaml`, '--http-port', '0']));
  tt.equal(r.code, 2);
  tt.notMatch(r.stdout, 'listening');
  const noArgs = await finish(run([]));
  tt.equal(noArgs.code, 2, 'no --config and no --upstream');
  const badFlag = await finish(run(['--upstream', 'http://x', '--upstream-binding', 'SOAP']));
  tt.match(badFlag.stderr, '--upstream-binding: must be one of');
});

t.test('quick start: explicit binding and auto', async (tt) => {
  const agent = await startEchoAgent({ bindings: ['JSONRPC', 'HTTP+JSON'] });
  tt.teardown(() => agent.close());
  for (const args of [
    ['--upstream', agent.restUrl, '--upstream-binding', 'HTTP+JSON'],
    ['--upstream', agent.httpUrl],
  ]) {
    const child = run([...args, '--http-port', '0', '--grpc-port', '0', '--log-level', 'info']);
    const http = await listening(child);
    const card = await request(`http://${http}/.well-known/agent-card.json`);
    const body = (await card.body.json()) as { name: string; supportedInterfaces: Array<{ protocolBinding: string }> };
    tt.equal(body.name, 'Echo Agent', `${args.join(' ')}: the card at the root`);
    const res = await request(`http://${http}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: userMessage('cli') }),
    });
    tt.equal(res.statusCode, 200, `${args.join(' ')}: SendMessage through the quick-start route`);
    await res.body.dump();
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    tt.equal(code, 0, 'SIGTERM exits 0');
  }
});
