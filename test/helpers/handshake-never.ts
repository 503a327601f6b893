// An agent that takes connections and never answers the TLS handshake: a
// TCP listener on 127.0.0.1 that reads and drops the ClientHello, so undici
// keeps connecting to it for its 10 s connect timeout. The tests of a stop
// before undici has a connection (the call's timeout, its caller leaving)
// use it: `stillConnecting()` says whether undici is still connecting after
// the call was answered, `release()` answers every connection with bytes
// that are not TLS, so undici's connects fail at once (a connect undici is
// still making is not closed with its pool, and would hold the process 10 s).
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { waitFor } from './wait.js';

export interface HandshakeNever {
  /** https://127.0.0.1:<port> */
  url: string;
  /** Every connection taken, in order. */
  readonly sockets: Socket[];
  /**
   * Every connection taken from the `since`-th on (those of the call under test: an earlier one may have met undici's
   * 10 s connect timeout on a slow machine) is still open, after a few turns of the event loop (so that a close made
   * is heard); false when there is none.
   */
  stillConnecting(since?: number): Promise<boolean>;
  /** Answers every connection, now and from now on, with bytes that are not TLS; resolves once all are closed. */
  release(): Promise<void>;
  /** Releases, destroys what is left and stops listening. */
  close(): Promise<void>;
}

export async function handshakeNever(): Promise<HandshakeNever> {
  const sockets: Socket[] = [];
  const closed = new Set<Socket>();
  let answering = false;
  const notTls = (s: Socket): void => {
    if (!s.writableEnded) s.end('not TLS\r\n');
  };
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.resume(); // the ClientHello is read and dropped, so a close from undici is heard
    socket.on('error', () => undefined);
    socket.on('close', () => closed.add(socket));
    if (answering) notTls(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const release = async (): Promise<void> => {
    answering = true;
    sockets.forEach(notTls);
    await waitFor(() => sockets.every((s) => closed.has(s)), 'every connection to the silent agent closed');
  };
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sockets,
    async stillConnecting(since = 0) {
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      const these = sockets.slice(since);
      return these.length > 0 && these.every((s) => !closed.has(s));
    },
    release,
    async close() {
      answering = true;
      sockets.forEach(notTls);
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
