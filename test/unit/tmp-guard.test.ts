// The temp-folder guard (test/setup/tmpdir.ts) itself: a process loaded the
// way the runner (scripts/tap.ts) loads a test file gets its own fresh temp folder; when it leaves
// something there it exits 1 naming it, and when it leaves nothing the folder
// is gone and the exit code is untouched.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import t from 'tap';

/** Runs `code` as the runner runs a test file, with `tmp` as the temp folder it starts with; stdout is its os.tmpdir(). */
function child(tmp: string, code: string): { status: number | null; tmpdir: string; stderr: string } {
  // The child loads exactly what this process was loaded with (the guard, from the runner's node arguments)
  const r = spawnSync(
    process.execPath,
    [...process.execArgv, '--input-type=module', '--eval', `import { tmpdir } from 'node:os'; ${code}`],
    { env: { ...process.env, TMPDIR: tmp }, encoding: 'utf8' },
  );
  return { status: r.status, tmpdir: r.stdout.trim(), stderr: r.stderr };
}

t.test('a test process that leaves nothing: exit code kept, its folder removed', async (tt) => {
  const tmp = tt.testdir(); // removed by tap, with whatever the child's loaders may cache there
  const r = child(tmp, 'console.log(tmpdir());');
  tt.equal(r.status, 0);
  tt.equal(dirname(r.tmpdir), tmp, 'os.tmpdir() is a folder inside the temp folder it started with');
  tt.match(basename(r.tmpdir), /^a2a-gw-test-node-\w{6}$/, 'made by mkdtemp, so fresh');
  tt.notOk(existsSync(r.tmpdir), 'and it is gone after exit');
});

t.test('a test process that leaves a folder: exit code 1, and what it left is named', async (tt) => {
  const r = child(tt.testdir(), "console.log(tmpdir()); (await import('node:fs')).mkdirSync(tmpdir() + '/left');");
  tt.equal(r.status, 1);
  tt.match(r.stderr, /left 1 entries in its temp folder .*a2a-gw-test-node-\w{6}: left\n/);
  tt.same(readdirSync(r.tmpdir), ['left'], 'kept for inspection');
});
