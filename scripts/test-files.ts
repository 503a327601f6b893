// Runs tap test files as scripts/tap.ts needs it (issue 17, item 7): each in
// its own `node` process with only the node arguments given (no loader of
// tap's runner), TAP=1 and TAP_TIMEOUT as tap's runner sets them (tap fails
// a test past it), killed 10 s past the timeout, or `exitGraceS` after its TAP
// ended if it has not exited by then (a handle left open); its TAP read with
// tap-parser. A file passes when it exits 0 by itself, its TAP is ok, it
// printed tap's closing counts, and it skipped nothing and left no todo.
import { spawn } from 'node:child_process';
import { Parser } from 'tap-parser';

export interface Outcome {
  file: string;
  ok: boolean;
  seconds: number;
  /** tap's own counts from the file's closing comment: total, pass, fail, skip, todo. */
  counts: Record<string, number>;
  /** stdout and stderr, as they came. */
  output: string;
}

export interface RunOptions {
  cwd: string;
  timeoutS: number;
  /** Node arguments before the file (source maps, the temp-folder guard). */
  nodeArgs: string[];
  /** The path to run for a named file (its transpiled copy). */
  script(file: string): string;
  /** How long a file may run on after its TAP ended (default 5 s). */
  exitGraceS?: number;
}

export function runFile(file: string, o: RunOptions): Promise<Outcome> {
  const started = performance.now();
  const child = spawn(process.execPath, [...o.nodeArgs, o.script(file)], {
    cwd: o.cwd,
    env: { ...process.env, TAP: '1', TAP_TIMEOUT: String(o.timeoutS) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: Buffer[] = [];
  const counts: Record<string, number> = {};
  let tapOk = false;
  let lingered = false;
  let grace: NodeJS.Timeout | undefined;
  const parser = new Parser((results) => (tapOk = results.ok));
  parser.on('comment', (line: string) => {
    // the root TAP's closing comment, tap's own assertion counts: "# { total: 12, pass: 12 }"
    if (!line.startsWith('# {')) return;
    for (const [, k, v] of line.matchAll(/(\w+): (\d+)/g)) counts[k!] = Number(v);
    grace = setTimeout(() => ((lingered = true), child.kill('SIGKILL')), (o.exitGraceS ?? 5) * 1000);
  });
  child.stdout.on('data', (b: Buffer) => (chunks.push(b), parser.write(b)));
  child.stderr.on('data', (b: Buffer) => chunks.push(b));
  const killer = setTimeout(() => child.kill('SIGKILL'), (o.timeoutS + 10) * 1000);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      clearTimeout(grace);
      parser.end();
      const why = lingered ? ': still running after its TAP ended (a handle left open?)' : '';
      const output = Buffer.concat(chunks).toString('utf8') + (signal ? `\n(killed by ${signal}${why})\n` : '');
      const ok = code === 0 && tapOk && counts.total !== undefined && !counts.skip && !counts.todo;
      resolve({ file, ok, seconds: (performance.now() - started) / 1000, counts, output });
    });
  });
}

/** Runs `files` `jobs` at once in the order given; `report` sees each outcome as it ends. */
export async function runFiles(
  files: string[],
  jobs: number,
  o: RunOptions,
  report: (outcome: Outcome) => void,
): Promise<Outcome[]> {
  const queue = [...files];
  const done: Outcome[] = [];
  const worker = async (): Promise<void> => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const outcome = await runFile(file, o);
      done.push(outcome);
      report(outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
  return done;
}
