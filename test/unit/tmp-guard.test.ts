// The temp-folder guard (test/setup/tmpdir.ts) itself: a process loaded the
// way tap loads a test file gets its own temp folder inside .tap/tmp; when it
// leaves something there it exits 1 naming it, and when it leaves nothing the
// folder is gone and the exit code is untouched.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { sep } from 'node:path';
import t, { type Test } from 'tap';

function child(tt: Test, code: string): { status: number | null; stdout: string; stderr: string } {
  // The child loads exactly what this process was loaded with (tap's loaders and the guard). What those loaders
  // may cache before the guard runs goes to a test folder of ours, not to the system temp folder.
  const r = spawnSync(process.execPath, [...process.execArgv, '--input-type=module', '--eval', code], {
    env: { ...process.env, TMPDIR: tt.testdir() },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout.trim(), stderr: r.stderr };
}

const PRINT_TMP = "import { tmpdir } from 'node:os'; console.log(tmpdir());";

t.test('a test process that leaves nothing: exit code kept, its folder removed', async (tt) => {
  const r = child(tt, PRINT_TMP);
  tt.equal(r.status, 0);
  tt.ok(r.stdout.includes(`${sep}.tap${sep}tmp${sep}`), `os.tmpdir() is its own folder in .tap/tmp (${r.stdout})`);
  tt.notOk(existsSync(r.stdout), 'and that folder is gone after exit');
});

t.test('a test process that leaves a folder: exit code 1, and what it left is named', async (tt) => {
  const r = child(tt, `${PRINT_TMP} import { mkdtempSync } from 'node:fs'; mkdtempSync(tmpdir() + '/left-behind-');`);
  tt.teardown(() => rmSync(r.stdout, { recursive: true, force: true }));
  tt.equal(r.status, 1);
  tt.match(r.stderr, /left 1 entries in its temp folder .*: left-behind-\w+/);
  tt.match(readdirSync(r.stdout), [/^left-behind-/], 'kept for inspection');
});
