// Waiting on state, never on the clock (issue 17): a test polls the condition
// it needs until it holds, within a generous bound, so a loaded machine makes
// it slower but never wrong. The bound only turns a hang into a failure that
// says what was awaited; it is not a timing assertion.
import { setTimeout as sleep } from 'node:timers/promises';

/** Long enough that only a broken condition reaches it, short enough to fail well before tap's timeout. */
export const BOUND_MS = 30_000;

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/** Polls `probe` until it returns a truthy value, which it returns; false once `boundMs` has passed. */
export async function eventually<T>(probe: () => T | Promise<T>, boundMs = BOUND_MS): Promise<Truthy<T> | false> {
  const deadline = Date.now() + boundMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    const v = await probe();
    if (v) return v as Truthy<T>;
    if (Date.now() > deadline) return false;
    await sleep(pause);
  }
}

/** As `eventually`, but throws, naming `what`, when the bound passes. */
export async function waitFor<T>(probe: () => T | Promise<T>, what: string, boundMs = BOUND_MS): Promise<Truthy<T>> {
  const v = await eventually(probe, boundMs);
  if (!v) throw new Error(`timed out after ${boundMs} ms waiting for ${what}`);
  return v;
}
