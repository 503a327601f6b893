// tap's `before` step (package.json "tap.before"): builds dist/ once per test
// run, before any test file starts, when a source is newer than the last
// build, so the CLI tests spawn the compiled gateway (fast start, as shipped)
// instead of compiling TypeScript per process, and no two files build at once.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STAMP = join(ROOT, 'dist/cli/bin.js');

function newest(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((f) => newest(join(path, f))));
}

const inputs = ['src', 'tsconfig.json', 'package.json'].map((p) => newest(join(ROOT, p)));
if (!existsSync(STAMP) || statSync(STAMP).mtimeMs < Math.max(...inputs)) {
  try {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'pipe' });
  } catch (e) {
    const err = e as { stdout?: Buffer; stderr?: Buffer };
    process.stderr.write(`npm run build failed:\n${err.stdout?.toString() ?? ''}${err.stderr?.toString() ?? ''}`);
    process.exit(1);
  }
}
