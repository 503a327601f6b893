// CallSignal (util/call-signal.ts): a call's cancellation with AbortSignal's
// listener semantics on a plain list.
import t from 'tap';
import { CallSignal } from '../../src/util/call-signal.js';

t.test('listeners run once on abort; a removed or late one does not', async (t) => {
  const s = new CallSignal();
  const ran: string[] = [];
  const removed = (): void => void ran.push('removed');
  s.addEventListener('abort', () => ran.push('a'), { once: true });
  s.addEventListener('abort', removed, { once: true });
  s.addEventListener('abort', () => ran.push('b'));
  s.removeEventListener('abort', removed);
  s.removeEventListener('abort', () => undefined); // never added: nothing happens
  t.equal(s.aborted, false);
  s.abort();
  s.abort(); // a second abort runs nothing again
  t.equal(s.aborted, true);
  t.same(ran, ['a', 'b'], 'each listener once, in order');
  s.addEventListener('abort', () => ran.push('late'));
  t.same(ran, ['a', 'b'], 'a listener added after the abort is not called (as AbortSignal)');
});

t.test('a listener that throws is reported, and the others still run', async (t) => {
  const s = new CallSignal();
  const ran: string[] = [];
  s.addEventListener('abort', () => {
    throw new Error('listener failed');
  });
  s.addEventListener('abort', () => ran.push('after'));
  // the throw comes back as an uncaught exception on the next tick (as EventTarget reports it)
  const saved = process.listeners('uncaughtException');
  process.removeAllListeners('uncaughtException');
  const reported = new Promise<Error>((resolve) => process.once('uncaughtException', resolve));
  try {
    s.abort();
    t.same(ran, ['after'], 'the next listener ran');
    t.equal((await reported).message, 'listener failed');
  } finally {
    for (const l of saved) process.on('uncaughtException', l);
  }
});
