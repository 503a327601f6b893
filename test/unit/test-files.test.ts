// The suite's own file runner (scripts/test-files.ts, used by `npm run tap`):
// a runner that called a failing file ok would hide every defect, so each way
// a test file can fail is run here as a real tap file (plain JavaScript in the
// test's folder): a failed assertion, a thrown error, an exit before any TAP,
// a skipped or todo test, a non-zero exit after passing TAP, a hang past the
// timeout, a handle left open; a passing file passes with tap's own counts
// (a comment of the file's own shaped like them is not taken for its end),
// and a process a file started is ended with it. Also: this test process runs
// without a module loader. (The skip and todo in FILES are fixtures written to
// the test's folder, there to be refused: the suite itself has none.)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { runFile, runFiles, type RunOptions } from '../../scripts/test-files.js';
import { eventually } from '../helpers/wait.js';

const FILES: Record<string, string> = {
  'pass.mjs': "import t from 'tap'; t.equal(1, 1); t.test('sub', async (tt) => { tt.ok(true); tt.ok(1); });",
  'fail.mjs': "import t from 'tap'; t.equal(1, 2, 'one is not two');",
  'throws.mjs': "import t from 'tap'; t.pass('before'); throw new Error('boom');",
  'silent.mjs': 'process.exit(0);',
  'skip.mjs': "import t from 'tap'; t.pass('x'); t.test('later', { skip: 'not now' }, async () => {});",
  'todo.mjs': "import t from 'tap'; t.pass('x'); t.todo('later');",
  'hang.mjs': "import t from 'tap'; t.test('waits', () => new Promise(() => setInterval(() => {}, 1000)));",
  'linger.mjs': "import t from 'tap'; t.pass('done'); setInterval(() => {}, 1000);",
  // all its TAP ok, but the process exits 1 (as the temp-folder guard does when a file leaves something behind)
  'exit1.mjs': "import t from 'tap'; t.pass('x'); process.on('exit', () => { process.exitCode = 1; });",
  // passes and exits, leaving a process it started running (its pid in a TAP comment)
  'orphan.mjs':
    "import t from 'tap'; import { spawn } from 'node:child_process';" +
    "const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); c.unref();" +
    "t.comment('orphan ' + c.pid); t.pass('started');",
};

function options(dir: string, timeoutS = 60): RunOptions {
  return { cwd: dir, timeoutS, nodeArgs: [], script: (f) => join(dir, f), exitGraceS: 1 };
}

t.test('each way a file fails is a failure; a passing file passes with its counts', async (t) => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const dir = t.testdir(); // inside the project (.tap/fixtures), so `import 'tap'` resolves
  t.ok(dir.startsWith(root), 'the folder is inside the project');
  for (const [name, code] of Object.entries(FILES)) writeFileSync(join(dir, name), code);
  const seen: string[] = [];
  const outcomes = await runFiles(
    ['pass.mjs', 'fail.mjs', 'throws.mjs', 'silent.mjs', 'skip.mjs', 'todo.mjs', 'exit1.mjs'],
    3,
    options(dir),
    (o) => seen.push(o.file),
  );
  const by = Object.fromEntries(outcomes.map((o) => [o.file, o]));
  t.equal(seen.length, 7, 'each outcome reported as it ends');
  t.equal(by['pass.mjs']!.ok, true, by['pass.mjs']!.output);
  t.same(by['pass.mjs']!.counts, { total: 3, pass: 3 }, "tap's own counts: every assertion, in subtests too");
  for (const f of ['fail.mjs', 'throws.mjs', 'silent.mjs', 'skip.mjs', 'todo.mjs', 'exit1.mjs'])
    t.equal(by[f]!.ok, false, `${f} fails the run`);
  t.match(by['fail.mjs']!.output, /not ok 1 - one is not two/, 'the output says why');
  t.match(by['throws.mjs']!.output, /boom/);
  t.equal(by['skip.mjs']!.counts.skip, 1);
  t.equal(by['todo.mjs']!.counts.todo, 1);
  t.same(by['exit1.mjs']!.counts, { total: 1, pass: 1 }, 'exit 1 fails it although every assertion passed');
});

t.test('what a file started and left running is ended with it (its process group)', async (t) => {
  const dir = t.testdir({ 'orphan.mjs': FILES['orphan.mjs']! });
  const o = await runFile('orphan.mjs', options(dir));
  t.equal(o.ok, true, o.output);
  const pid = Number(/# orphan (\d+)/.exec(o.output)?.[1]);
  t.ok(pid > 0, 'the file told its child pid');
  t.teardown(() => {
    try {
      process.kill(pid, 'SIGKILL'); // should the runner not have
    } catch {
      // gone
    }
  });
  // killed: gone, or a zombie until init reaps it (its parent, the test file, has exited)
  const ended = (): boolean => {
    try {
      return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? true;
    } catch {
      return true;
    }
  };
  await eventually(ended);
  t.ok(ended(), 'the child is gone');
});

t.test('a test past its timeout fails (tap ends it: TAP_TIMEOUT) and the process is ended', async (t) => {
  const dir = t.testdir({ 'hang.mjs': FILES['hang.mjs']! });
  const o = await runFile('hang.mjs', options(dir, 1));
  t.equal(o.ok, false);
  t.match(o.output, /not ok 1 - timeout!/, 'tap reports the timeout');
  t.match(o.output, /killed by SIGKILL: still running after its TAP ended/, 'the process did not exit by itself');
});

t.test("a slow file's own timeout replaces the run's (scripts/tap.ts SLOW)", async (t) => {
  const dir = t.testdir({
    'told.mjs': "import t from 'tap'; t.comment('timeout ' + process.env.TAP_TIMEOUT); t.pass('x');",
  });
  const own = await runFile('told.mjs', { ...options(dir, 1), timeoutOf: (f) => (f === 'told.mjs' ? 300 : undefined) });
  t.match(own.output, /# timeout 300/, "tap is told the file's own");
  const other = await runFile('told.mjs', { ...options(dir, 1), timeoutOf: () => undefined });
  t.match(other.output, /# timeout 1/, "a file without one gets the run's");
});

t.test('a file whose tests pass but that keeps a handle open fails (tap: timeout) and is ended', async (t) => {
  const dir = t.testdir({ 'linger.mjs': FILES['linger.mjs']! });
  const o = await runFile('linger.mjs', options(dir, 1));
  t.equal(o.ok, false);
  t.match(
    o.output,
    /ok 1 - done\nnot ok 2 - timeout!/,
    'its test passed; tap, waiting for the process to end, timed out',
  );
  t.match(o.output, /killed by SIGKILL: still running after its TAP ended/);
});

t.test("a file's own t.comment('{ … }') is not tap's closing counts: no exit grace starts there", async (t) => {
  // a subtest running 3 s after it, past the 1 s exit grace (a fixture's clock: what the runner must sit out)
  const slow =
    "t.test('slow', async (tt) => { await new Promise((r) => setTimeout(r, 3000)); tt.pass('after 3 s'); });";
  const dir = t.testdir({
    'comment.mjs': `import t from 'tap'; t.comment('{ a: 1 }'); ${slow}`,
    // the exact shape, after a leading plan but before the test point it announces
    'planned.mjs': `import t from 'tap'; t.plan(1); t.comment('{ total: 1, pass: 1 }'); ${slow}`,
  });
  const outcomes = await runFiles(['comment.mjs', 'planned.mjs'], 2, options(dir), () => undefined);
  t.equal(outcomes.length, 2);
  for (const o of outcomes) {
    t.equal(o.ok, true, `${o.file}: ${o.output}`);
    t.same(o.counts, { total: 1, pass: 1 }, `${o.file}: the counts are tap's own`);
  }
});

t.test('test processes run without a module loader (no --import=tsx, no --loader)', async (t) => {
  const loaders = /tsx|--loader|--experimental-loader|processinfo/;
  t.notMatch(process.execArgv.join(' '), loaders);
  t.notMatch(process.env.NODE_OPTIONS ?? '', loaders, "nor in NODE_OPTIONS (where tap's runner puts its loader)");
});
