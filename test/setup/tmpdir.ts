// The guard that a test leaves nothing in the temp folder (issue 17). Loaded
// first into every test process (tap's `node-arg` in package.json), it points
// TMPDIR — hence os.tmpdir() here and in every child process — at a fresh
// folder of this process alone, .tap/tmp/<test file>-<pid> in the project.
// Nothing else on the machine writes there, so the check cannot be fooled by
// other processes using the system temp folder. At exit the folder must be
// empty: then it is removed; otherwise the test file fails (exit code 1) and
// names what it left, which stays there for inspection.
import { mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const entry = process.argv[1] ? relative(root, process.argv[1]) : 'node';
const dir = join(root, '.tap', 'tmp', `${entry.replace(/[^\w.-]+/g, '_')}-${process.pid}`);
mkdirSync(dir, { recursive: true });
process.env.TMPDIR = dir;
process.env.TMP = dir;
process.env.TEMP = dir;

/**
 * TEMPORARY (issue 17): the files another change of the same issue makes tidy
 * (they spawn the CLI through tsx, whose cache lands in TMPDIR, and copy the
 * app for the Docker check). Until it is merged their leftovers are removed
 * and reported, not failed; once it is, this list goes.
 */
const PENDING = new Set([
  'test/integration/cli.test.ts',
  'test/integration/dockerfile.test.ts',
  'test/integration/operations.test.ts',
  'test/integration/readme-demo.test.ts',
]);

process.on('exit', () => {
  const left = readdirSync(dir);
  if (left.length === 0) {
    rmdirSync(dir);
    if (PENDING.has(entry)) process.stderr.write(`\n${entry} left nothing: take it off the guard's PENDING list\n`);
    return;
  }
  process.stderr.write(`\n${entry} left ${left.length} entries in its temp folder ${dir}: ${left.join(', ')}\n`);
  if (PENDING.has(entry)) rmSync(dir, { recursive: true, force: true });
  else process.exitCode = 1;
});
