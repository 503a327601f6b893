// Waiting for a writable stream to drain, or for the call to end, without
// leaving listeners behind: a long stream waits for drain thousands of times,
// so each wait must remove both of its listeners when either fires.
import type { EventEmitter } from 'node:events';

export function drained(stream: EventEmitter, endEvent: 'close' | 'cancelled'): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off(endEvent, done);
      resolve();
    };
    stream.on('drain', done);
    stream.on(endEvent, done);
  });
}
