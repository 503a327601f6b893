// The README's "Try it" section, run for real: starts what `npm start` starts
// (examples/demo-agent/start.ts: the gRPC-only demo agent + the built gateway
// on config/gateway.yaml; the agent on a free port here, not its documented
// 50061, and the gateway on free ports) and replays every curl command of
// that section, checking each answer. Keeps the README true.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { request } from 'undici';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Curl {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** The curl commands of the README's "Try it" section, with quoting undone. */
function readmeCurls(): Curl[] {
  const readme = readFileSync(`${ROOT}README.md`, 'utf8');
  const section = readme.slice(readme.indexOf('## Try it'), readme.indexOf('## Quick start'));
  const block = section.slice(section.indexOf('```sh') + 5, section.indexOf('```', section.indexOf('```sh') + 5));
  const commands = block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => l.startsWith('curl '));
  return commands.map((line) => {
    const tokens = [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
    const c: Curl = { method: 'GET', url: '', headers: {} };
    for (let i = 1; i < tokens.length; i++) {
      const tok = tokens[i]!;
      if (tok === '-X') c.method = tokens[++i]!;
      else if (tok === '-H') {
        const [k, ...v] = tokens[++i]!.split(':');
        c.headers[k!.trim().toLowerCase()] = v.join(':').trim();
      } else if (tok === '-d') c.body = tokens[++i]!;
      else if (!tok.startsWith('-')) c.url = tok;
    }
    return c;
  });
}

t.test('npm start serves the gRPC-only demo agent as the README shows', async (tt) => {
  const curls = readmeCurls();
  tt.equal(curls.length, 5, 'five curl commands in "Try it"');
  const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> };
  const start = pkg.scripts.start!.split(' ');
  tt.same(start.slice(0, 3), ['node', '--import', 'tsx'], 'npm start runs the example with tsx');
  const child = spawn(
    process.execPath,
    [...start.slice(1), '--config', 'config/gateway.yaml', '--http-port', '0', '--grpc-port', '0'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DEMO_AGENT_GRPC_PORT: '0' } },
  );
  tt.teardown(() => {
    child.kill('SIGTERM');
  });
  const http = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const line = buf.split('\n').find((l) => l.includes('a2a-gateway listening'));
      if (line) resolve((JSON.parse(line) as { http: string }).http);
    });
    child.once('exit', (code) => reject(new Error(`demo exited ${code}`)));
  });
  let taskId = '';
  const answers: unknown[] = [];
  for (const c of curls) {
    const url = c.url.replace('http://127.0.0.1:8080', `http://${http}`).replace('TASK_ID', taskId);
    const res = await request(url, {
      method: c.method as 'GET',
      headers: c.headers,
      ...(c.body ? { body: c.body } : {}),
    });
    const json = (await res.body.json()) as Record<string, any>;
    answers.push(json);
    tt.equal(res.statusCode, 200, `${c.method} ${c.url}: 200`);
    taskId ||= json.task?.id ?? '';
  }
  const [card, rest, rpc, got, missing] = answers as Array<Record<string, any>>;
  tt.same(
    card!.supportedInterfaces
      .filter((i: { protocolVersion: string }) => i.protocolVersion === '1.0')
      .map((i: { protocolBinding: string }) => i.protocolBinding),
    ['GRPC', 'JSONRPC', 'HTTP+JSON'],
    "the card: the agent's own binding first, then the gateway's others",
  );
  tt.equal(rest!.task.artifacts[0].parts[0].text, 'echo: hello', 'REST SendMessage reached the gRPC agent');
  tt.equal(rpc!.result.task.artifacts[0].parts[0].text, 'echo: hi', 'JSON-RPC SendMessage reached the gRPC agent');
  tt.equal(got!.id, taskId, 'REST GetTask');
  tt.equal(missing!.error.code, -32001, 'TaskNotFoundError over JSON-RPC');
  tt.equal(missing!.error.data[0].reason, 'TASK_NOT_FOUND');
  child.kill('SIGTERM');
  const [code] = (await once(child, 'exit')) as [number | null];
  tt.equal(code, 0, 'stops cleanly on SIGTERM');
});
