// The gateway error a call fails with (the tests of upstream clients): any
// other failure is rethrown, and a call that succeeds fails the test.
import { A2AError } from '../../src/errors/a2a-error.js';

export async function failure(p: Promise<unknown>): Promise<A2AError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof A2AError) return e;
    throw e;
  }
  throw new Error('expected the call to fail');
}
