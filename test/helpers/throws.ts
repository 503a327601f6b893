// An assertion that a call throws, and that what it throws is what `pred` expects (tap's throws() compares shapes,
// not errors' own fields such as a ProtoJsonError's violations).
import type { Test } from 'tap';

export function throwsWhere(tt: Test, fn: () => unknown, pred: (e: unknown) => boolean, msg: string): void {
  try {
    fn();
    tt.fail(`${msg}: nothing thrown`);
  } catch (e) {
    tt.ok(pred(e), msg);
  }
}
