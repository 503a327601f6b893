// Runs tap test files as scripts/tap.ts needs it (issue 17, item 7): each in
// its own `node` process with only the node arguments given (no loader of
// tap's runner), TAP=1 and TAP_TIMEOUT as tap's runner sets them (tap fails
// a test past it), in a process group of its own: killed with all it started
// 10 s past the timeout, or `exitGraceS` after its TAP ended if it has not
// exited by then (a handle left open), and what it left running is killed
// when it exits. Its TAP is read with tap-parser. A file passes when it
// exits 0 by itself, its TAP is ok, it printed tap's closing counts, and it
// skipped nothing and left no todo.
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
  /** A file's own timeout instead of timeoutS (undefined: timeoutS). */
  timeoutOf?(file: string): number | undefined;
  /** Node arguments before the file (source maps, the temp-folder guard). */
  nodeArgs: string[];
  /** The path to run for a named file (its transpiled copy). */
  script(file: string): string;
  /** How long a file may run on after its TAP ended (default 5 s). */
  exitGraceS?: number;
}

/** tap's closing counts comment: total first, then pass, fail, skip, todo when not 0. */
const COUNTS = /^# \{ total: \d+(?:, \w+: \d+)* \}$/;

/** The process groups of the files running now (each file runs in a group of its own, with its children). */
const running = new Set<number>();

/** Kills a file's whole process group: the test process and whatever it started (agents, gateways, redis). */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone
  }
}

/** Ends every running file's group (the runner is interrupted: its files are in groups the terminal does not signal). */
export function killRunning(): void {
  for (const pid of running) killGroup(pid);
}

export function runFile(file: string, o: RunOptions): Promise<Outcome> {
  const started = performance.now();
  const timeoutS = o.timeoutOf?.(file) ?? o.timeoutS;
  const child = spawn(process.execPath, [...o.nodeArgs, o.script(file)], {
    cwd: o.cwd,
    env: { ...process.env, TAP: '1', TAP_TIMEOUT: String(timeoutS) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, so that a kill reaches the processes it started too
  });
  if (child.pid !== undefined) running.add(child.pid);
  let output = '';
  const counts: Record<string, number> = {};
  let tapOk = false;
  let lingered = false;
  let grace: NodeJS.Timeout | undefined;
  const parser = new Parser((results) => (tapOk = results.ok));
  parser.on('comment', (line: string) => {
    // the root TAP's closing comment, tap's own assertion counts: "# { total: 12, pass: 12 }"; only once the root
    // TAP has ended (its plan read, every test point it announces seen) and only the first, so a file's own
    // t.comment('{ … }') is not taken for its end
    if (grace !== undefined || parser.planEnd < 0 || parser.count < parser.planEnd || !COUNTS.test(line.trimEnd()))
      return;
    for (const [, k, v] of line.matchAll(/(\w+): (\d+)/g)) counts[k!] = Number(v);
    grace = setTimeout(() => ((lingered = true), killGroup(child.pid)), (o.exitGraceS ?? 5) * 1000);
  });
  child.stdout.setEncoding('utf8'); // decoded across chunk boundaries
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (text: string) => ((output += text), parser.write(text)));
  child.stderr.on('data', (text: string) => (output += text));
  // tap's own timeout fails a test past it; this is the backstop (0: no timeout, as for tap)
  const killer = timeoutS > 0 ? setTimeout(() => killGroup(child.pid), (timeoutS + 10) * 1000) : undefined;
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      clearTimeout(killer);
      clearTimeout(grace);
      // what the file started and left running goes with it; its output is read to the end (a grandchild that
      // inherited it and is now killed cannot hold it open)
      killGroup(child.pid);
      if (child.pid !== undefined) running.delete(child.pid);
      let ended = false;
      const end = (): void => {
        if (ended) return;
        ended = true;
        parser.end();
        const why = lingered ? ': still running after its TAP ended (a handle left open?)' : '';
        const all = output + (signal ? `\n(killed by ${signal}${why})\n` : '');
        const ok = code === 0 && tapOk && counts.total !== undefined && !counts.skip && !counts.todo;
        resolve({ file, ok, seconds: (performance.now() - started) / 1000, counts, output: all });
      };
      if (child.stdout.readableEnded && child.stderr.readableEnded) return end();
      // a process of its own group that kept the output open is gone now; one outside the group is not waited for
      const late = setTimeout(() => (child.stdout.destroy(), child.stderr.destroy(), end()), 5000);
      child.once('close', () => (clearTimeout(late), end()));
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
