// The docs' examples, run for real. Every ```sh block after a
// `<!-- run-against-demo -->` comment in README.md and docs/*.md is split
// into its commands, which run one by one in bash against what `npm start`
// starts (examples/demo-agent/start.ts: the gRPC-only demo agent + the built
// gateway on config/gateway.yaml — here the agent and the gateway on free
// ports, substituted for the documented 8080 and 50051). Each must exit 0, and
// its output is checked by the list below: a new example needs its check, so
// no example goes unrun. Keeps the README and the docs true.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
type Answer = Record<string, any>;

/** The commands of the page's marked blocks: comments dropped, continued lines joined. */
function examples(file: string): string[] {
  const page = readFileSync(`${ROOT}${file}`, 'utf8');
  return [...page.matchAll(/<!-- run-against-demo -->\n```sh\n([\s\S]*?)```/g)].flatMap((m) =>
    m[1]!
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('#')),
  );
}

const json = (out: string): Answer => JSON.parse(out) as Answer;
/** The JSON of each SSE `data:` line. */
const events = (out: string): Answer[] =>
  out
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Answer);

interface Context {
  taskId: string;
  http: string;
}

/** What each example's output must show, per page, in the order the page gives them. */
const CHECKS: Record<string, Array<(tt: Test, out: string, ctx: Context) => void>> = {
  'README.md': [
    (tt, out) => {
      const interfaces = json(out).supportedInterfaces.map((i: Answer) => `${i.protocolBinding} ${i.protocolVersion}`);
      tt.same(
        interfaces,
        ['GRPC 1.0', 'JSONRPC 1.0', 'HTTP+JSON 1.0', 'GRPC 0.3', 'JSONRPC 0.3', 'HTTP+JSON 0.3'],
        "the 1.0 card: the gateway's three bindings, the agent's own first, at 1.0 then at 0.3",
      );
    },
    (tt, out, ctx) => {
      const task = json(out).task;
      tt.equal(task.artifacts[0].parts[0].text, 'echo: hello', 'REST SendMessage reached the gRPC agent');
      ctx.taskId = task.id;
    },
    (tt, out) =>
      tt.equal(json(out).result.task.artifacts[0].parts[0].text, 'echo: hi', 'JSON-RPC SendMessage reached it'),
    (tt, out, ctx) => tt.equal(json(out).id, ctx.taskId, 'REST GetTask of the task made above'),
    (tt, out) => {
      tt.equal(json(out).error.code, -32001, 'TaskNotFoundError over JSON-RPC');
      tt.equal(json(out).error.data[0].reason, 'TASK_NOT_FOUND', 'with its ErrorInfo');
    },
  ],
  'docs/streaming.md': [
    (tt, out) => {
      const last = events(out).at(-1);
      tt.equal(last?.task?.status.state, 'TASK_STATE_COMPLETED', 'REST stream: StreamResponses to the end');
      tt.equal(last?.task?.artifacts[0].parts[0].text, 'echo: stream me');
    },
    (tt, out) => {
      const all = events(out);
      tt.ok(all.length > 0 && all.every((e) => e.jsonrpc === '2.0' && e.id === 's-2' && e.result), 'JSON-RPC events');
    },
  ],
  'docs/bridge.md': [
    (tt, out) => {
      const result = json(out).result;
      tt.equal(result.kind, 'task', 'a 0.3 answer: kind discriminators');
      tt.equal(result.status.state, 'completed', '0.3 task states');
      tt.equal(result.artifacts[0].parts[0].text, 'echo: hello from 0.3');
    },
    (tt, out, ctx) => {
      const card = json(out);
      tt.equal(card.protocolVersion, '0.3.0', 'the 0.3 card');
      tt.ok(
        [card.url, ...card.additionalInterfaces.map((i: Answer) => i.url)].includes(`http://${ctx.http}`),
        'naming the gateway',
      );
    },
  ],
  'docs/errors.md': [
    (tt, out) =>
      tt.match(json(out), { error: { code: 404, status: 'NOT_FOUND', details: [{ reason: 'TASK_NOT_FOUND' }] } }),
    (tt, out) => tt.match(json(out), { id: 3, error: { code: -32001, data: [{ reason: 'TASK_NOT_FOUND' }] } }),
  ],
  'docs/operations.md': [
    (tt, out) => tt.same(json(out), { status: 'ok' }, '/healthz'),
    (tt, out) => tt.match(json(out), { ready: true, draining: false, routes: [{ name: 'demo', ready: true }] }),
  ],
};

t.test('the examples of the README and docs/ run against what npm start starts', async (tt) => {
  const pages = ['README.md', ...readdirSync(`${ROOT}docs`).map((f) => `docs/${f}`)].filter((f) => f.endsWith('.md'));
  const marked = pages.filter((p) => examples(p).length > 0);
  tt.same(marked.sort(), Object.keys(CHECKS).sort(), 'every page with examples has its checks, and no other');
  tt.equal(examples('README.md').length, 5, 'five commands in the README\'s "Try it"');

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
  const listening = await new Promise<{ http: string; grpc: string }>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const line = buf.split('\n').find((l) => l.includes('a2a-gateway listening'));
      if (line) resolve(JSON.parse(line) as { http: string; grpc: string });
    });
    child.once('exit', (code) => reject(new Error(`demo exited ${code}`)));
  });
  const ctx: Context = { taskId: '', http: listening.http };
  for (const [page, checks] of Object.entries(CHECKS)) {
    const commands = examples(page);
    tt.equal(commands.length, checks.length, `${page}: one check per example`);
    for (const [i, command] of commands.entries()) {
      const run = command
        .replaceAll('127.0.0.1:8080', listening.http)
        .replaceAll('127.0.0.1:50051', listening.grpc)
        .replace('TASK_ID', ctx.taskId);
      const { stdout } = await promisify(execFile)('bash', ['-c', run], { cwd: ROOT }).catch((e: unknown) => {
        tt.fail(`${page}: \`${command}\` exits 0: ${String(e)}`);
        return { stdout: '' };
      });
      tt.ok(stdout.length > 0, `${page} #${i + 1}: an answer`);
      await tt.test(`${page} #${i + 1}: ${command.slice(0, 80)}`, async (st) => checks[i]?.(st, stdout, ctx));
    }
  }
  child.kill('SIGTERM');
  const [code] = (await once(child, 'exit')) as [number | null];
  tt.equal(code, 0, 'stops cleanly on SIGTERM');
});
