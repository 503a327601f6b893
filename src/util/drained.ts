// Waiting for a writable stream to drain, or for the call to end, without
// leaving listeners behind: a long stream waits for drain thousands of times,
// so each wait must remove both of its listeners when either fires. And
// whether an answer can still be written, for node:http and node:http2's
// compatibility responses alike.
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

/**
 * The answer is ended, or its caller gone: an HTTP/1.1 response is destroyed; an h2 compatibility response has no
 * `destroyed` (its stream has), and after a reset its 'close' has already been emitted.
 */
export function responseGone(res: {
  destroyed?: boolean;
  writableEnded: boolean;
  stream?: { destroyed: boolean };
}): boolean {
  return res.destroyed === true || res.writableEnded || res.stream?.destroyed === true;
}
