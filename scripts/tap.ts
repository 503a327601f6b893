// `npm run tap [-- --jobs=N --timeout=S test files…]`: the test runner
// (issue 17, item 7). Test files are tap tests; they run as plain JavaScript
// with no module loader in any test process. On Node 20 a loader's hooks run
// on a thread of their own that every import crosses to: tsx cost each test
// process ≈ 0.5 s of CPU and tap's own runner, which loads
// @tapjs/processinfo's loader into every process it spawns, ≈ 0.5 s more —
// together half of a typical file's CPU (README, "Stack").
//
// So this script: builds tap's plugin set once per install (a fresh install
// keeps tap's TypeScript plugin until then); builds dist/ when a source is newer (the CLI
// tests spawn the gateway as shipped); transpiles every .ts file of src/,
// test/, examples/ and scripts/ with esbuild (what tsx uses; types are checked
// by `npm run typecheck`) into the same layout under
// node_modules/.cache/a2a-gateway-tests-<pid>/ (a tree per run, removed at
// its end), with `import.meta` (.url,
// .dirname, .filename) fixed to the source file's own, so the paths a file builds from
// it name the checkout, and inline source maps, so failures point at the .ts
// line. Then it runs the test files (scripts/test-files.ts), `jobs` at once
// (package.json "tap"), slowest first by the last run's times, prints one
// line per file and the whole output of a failed one, and exits 1 when any
// failed. With no files named, every test/**/*.test.ts.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { transform } from 'esbuild';
import { killRunning, runFiles, type RunOptions } from './test-files.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CACHE = join(ROOT, 'node_modules/.cache');
/** This run's transpiled tree: a folder per run, so a run never removes the modules another run's tests import. */
const OUT = join(CACHE, `a2a-gateway-tests-${process.pid}`);
const TIMES = join(CACHE, 'a2a-gateway-test-times.json');
const SOURCES = ['src', 'test', 'examples', 'scripts'];
const config = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    tap: { jobs: number; timeout: number; plugin?: string[] };
  }
).tap;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { jobs: { type: 'string', short: 'j' }, timeout: { type: 'string', short: 't' } },
});
/** A whole number ≥ min, or exit 2 (a NaN would start no worker, or kill every file at once). */
function count(name: string, text: string | number, min: number): number {
  const n = Number(text);
  if (Number.isInteger(n) && n >= min) return n;
  process.stderr.write(`--${name} must be a whole number ≥ ${min}: ${text}\n`);
  process.exit(2);
}
/**
 * Files allowed longer than the `timeout` of package.json's tap config (s): there, tap's own config reader refuses
 * any key it does not know. The package test packs, builds and installs (about 60 s alone).
 */
const SLOW: Record<string, number> = { 'test/integration/package.test.ts': 300 };
const jobs = count('jobs', values.jobs ?? config.jobs, 1);
const timeoutS = count('timeout', values.timeout ?? config.timeout, 0); // 0: no timeout, as for tap

const sourcesOf = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));

function newest(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((f) => newest(join(path, f))));
}

/**
 * `tap build` when tap's plugin set was not built for this tap and this config yet (a fresh install has the
 * default set, with its TypeScript plugin); skipped otherwise, so a run never rebuilds tap under another's tests.
 */
function buildTap(): void {
  const stampFile = join(CACHE, 'a2a-gateway-tap-build.json');
  const tapVersion = (
    JSON.parse(readFileSync(join(ROOT, 'node_modules/tap/package.json'), 'utf8')) as { version: string }
  ).version;
  const stamp = JSON.stringify({ tap: tapVersion, plugin: config.plugin ?? [] });
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return;
  execFileSync(join(ROOT, 'node_modules/.bin/tap'), ['build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  writeFileSync(stampFile, stamp);
}

/** `npm run build` when dist/ is older than a source (or missing). */
function buildDist(): void {
  let built = -1;
  try {
    built = statSync(join(ROOT, 'dist/cli/bin.js')).mtimeMs;
  } catch {
    // not built yet
  }
  if (built >= Math.max(...['src', 'tsconfig.json', 'package.json'].map((p) => newest(join(ROOT, p))))) return;
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

/** Removes the trees of runs that are over (a run killed outright leaves its own). */
function removeOldTrees(): void {
  for (const f of readdirSync(CACHE)) {
    const pid = /^a2a-gateway-tests-(\d+)$/.exec(f)?.[1];
    if (pid === undefined || Number(pid) === process.pid) continue;
    try {
      process.kill(Number(pid), 0); // that run is still going
    } catch {
      rmSync(join(CACHE, f), { recursive: true, force: true });
    }
  }
}

/** Transpiles every source into OUT. */
async function transpile(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  await Promise.all(
    SOURCES.flatMap(sourcesOf).map(async (file) => {
      const path = join(ROOT, file);
      const { code } = await transform(readFileSync(path, 'utf8'), {
        loader: 'ts',
        format: 'esm',
        target: 'node20',
        keepNames: true, // as tsx: functions keep their names
        sourcemap: 'inline',
        sourcefile: path,
        // import.meta in every form (member, destructured, whole) is the source file's own; a file that needs
        // import.meta.resolve finds it undefined, and says so when it runs
        define: {
          'import.meta': JSON.stringify({ url: pathToFileURL(path).href, dirname: dirname(path), filename: path }),
        },
      });
      const out = join(OUT, file.replace(/\.ts$/, '.js'));
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, code);
    }),
  );
}

// named files as paths from the checkout's root, whether given relative or absolute
const named = positionals.map((f) => relative(ROOT, resolve(f)));
const notTests = named.filter((f) => !f.startsWith(`test${sep}`) || !f.endsWith('.ts') || !existsSync(join(ROOT, f)));
if (notTests.length > 0) {
  process.stderr.write(`not a test file of test/: ${notTests.join(', ')}\n`);
  process.exit(2);
}
const started = performance.now();
mkdirSync(CACHE, { recursive: true });
buildTap();
buildDist();
removeOldTrees();
const removeTree = (): void => rmSync(OUT, { recursive: true, force: true });
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    killRunning(); // the files run in process groups of their own, which the terminal's Ctrl-C does not reach
    removeTree();
    process.exit(130);
  });
await transpile();
let times: Record<string, number> = {};
try {
  times = JSON.parse(readFileSync(TIMES, 'utf8')) as Record<string, number>;
} catch {
  // first run: no times yet
}
const files = (named.length > 0 ? named : sourcesOf('test').filter((f) => f.endsWith('.test.ts'))).sort(
  (a, b) => (times[b] ?? Infinity) - (times[a] ?? Infinity) || a.localeCompare(b),
);
const run: RunOptions = {
  cwd: ROOT,
  timeoutS,
  // an explicit --timeout holds for every file; else a slow file gets its own
  timeoutOf: (file) => (values.timeout === undefined ? SLOW[file] : undefined),
  nodeArgs: ['--enable-source-maps', `--import=${pathToFileURL(join(OUT, 'test/setup/tmpdir.js')).href}`],
  script: (file) => join(OUT, file.replace(/\.ts$/, '.js')),
};
const outcomes = await runFiles(files, jobs, run, (o) => {
  const n = `${o.counts.pass ?? 0}/${o.counts.total ?? '?'}`;
  process.stdout.write(`${o.ok ? 'ok    ' : 'not ok'} ${o.file} (${o.seconds.toFixed(1)} s, ${n} assertions)\n`);
  if (!o.ok) process.stdout.write(`${o.output.replace(/^/gm, '    ')}\n`);
});
writeFileSync(TIMES, JSON.stringify({ ...times, ...Object.fromEntries(outcomes.map((o) => [o.file, o.seconds])) }));
removeTree();

const sum = (k: string): number => outcomes.reduce((n, o) => n + (o.counts[k] ?? 0), 0);
const failed = outcomes.filter((o) => !o.ok);
process.stdout.write(
  `\n${outcomes.length} files, ${failed.length} failed; assertions: ${sum('total')} total, ${sum('pass')} pass, ` +
    `${sum('fail')} fail, ${sum('skip')} skip, ${sum('todo')} todo; ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
);
for (const o of failed) process.stdout.write(`failed: ${o.file}\n`);
// a run that ran nothing, or lost a file, is not a pass
const lost = files.length === 0 || outcomes.length !== files.length;
if (lost) process.stdout.write(`ran ${outcomes.length} of ${files.length} files\n`);
process.exit(failed.length > 0 || lost ? 1 : 0);
