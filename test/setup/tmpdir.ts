// The guard that a test leaves nothing in the temp folder (issue 17). Loaded
// first into every test process (the runner's node arguments, scripts/tap.ts), it points
// TMPDIR — hence os.tmpdir() here and in every child process — at a folder
// of this process alone, freshly made by mkdtemp in the system temp folder
// (a2a-gw-test-<test file>-XXXXXX). No other process knows it, so the check
// cannot be fooled by what others on the machine do in the temp folder; and
// it is outside the project, so nothing run from there resolves modules from
// the project's node_modules by walking up. At exit the folder must be empty:
// then it is removed and the temp folder is as it was; otherwise the test
// file fails (exit code 1) naming what it left, kept there for inspection.
import { mkdtempSync, readdirSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
// the test file as named in the checkout (`npm run tap` runs its transpiled copy under node_modules/.cache)
const entry = process.argv[1] ? relative(root, process.argv[1]).replace(/^node_modules\/\.cache\/[^/]+\//, '') : 'node';
const dir = mkdtempSync(join(tmpdir(), `a2a-gw-test-${entry.replace(/[^\w.-]+/g, '_')}-`));
process.env.TMPDIR = dir;
process.env.TMP = dir;
process.env.TEMP = dir;
// children run through tsx (the demo agent) would keep a compile cache in the folder checked here
process.env.TSX_DISABLE_CACHE = '1';

process.on('exit', () => {
  const left = readdirSync(dir);
  if (left.length === 0) {
    rmdirSync(dir);
    return;
  }
  process.stderr.write(`\n${entry} left ${left.length} entries in its temp folder ${dir}: ${left.join(', ')}\n`);
  process.exitCode = 1;
});
