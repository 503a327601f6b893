// The temp-folder guard (test/setup/tmpdir.ts) itself: a process loaded the
// way tap loads a test file gets its own fresh temp folder; when it leaves
// something there it exits 1 naming it, and when it leaves nothing the folder
// is gone and the exit code is untouched.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import t from 'tap';

/**
 * Runs `code` as tap runs a test file, with `tmp` as the temp folder it starts with (or `systemTmp` as
 * A2A_TEST_TMPDIR, as `npm run tap` names it); stdout is its os.tmpdir().
 */
function child(
  tmp: string,
  code: string,
  systemTmp?: string,
): { status: number | null; tmpdir: string; stderr: string } {
  // The child loads exactly what this process was loaded with: tap's loaders, then the guard; without the
  // system temp folder `npm run tap` names, so the guard takes TMPDIR's.
  const { A2A_TEST_TMPDIR: _, ...env } = process.env;
  const r = spawnSync(
    process.execPath,
    [...process.execArgv, '--input-type=module', '--eval', `import { tmpdir } from 'node:os'; ${code}`],
    { env: { ...env, TMPDIR: tmp, ...(systemTmp ? { A2A_TEST_TMPDIR: systemTmp } : {}) }, encoding: 'utf8' },
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

t.test(
  'with A2A_TEST_TMPDIR (npm run tap): the folder is made there, and its children do not see the variable',
  async (tt) => {
    const system = tt.testdir({ system: {}, cache: {} });
    const r = child(
      `${system}/cache`,
      'console.log(tmpdir()); if (process.env.A2A_TEST_TMPDIR !== undefined) process.exitCode = 3;',
      `${system}/system`,
    );
    tt.equal(r.status, 0, 'exit code kept: the variable is gone from the environment children inherit');
    tt.equal(dirname(r.tmpdir), `${system}/system`, 'made in the folder A2A_TEST_TMPDIR names, not in TMPDIR');
    tt.same(readdirSync(`${system}/system`), [], 'and removed after exit');
  },
);
