// An agent that takes connections and never answers the TLS handshake: a
// TCP listener on 127.0.0.1 that reads and drops the ClientHello, so undici
// keeps connecting to it for its 10 s connect timeout. The tests of a stop
// before undici has a connection (the call's timeout, its caller leaving)
// use it: `stillConnecting()` says whether undici is still connecting after
// the call was answered — none of the call's connections heard closing once
// a loopback round trip begun after the answer has come back — and
// `release()` answers every connection with bytes that are not TLS, so
// undici's connects fail at once (a connect undici is still making is not
// closed with its pool, and would hold the process 10 s).
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { waitFor } from './wait.js';

export interface HandshakeNever {
  /** https://127.0.0.1:<port> */
  url: string;
  /** Every connection taken, in order. */
  readonly sockets: Socket[];
  /**
   * Every connection taken from the `since`-th on (those of the call under test: an earlier one may have met undici's
   * 10 s connect timeout on a slow machine) is still open when a loopback round trip begun now comes back (so that a
   * close made before the call was answered is heard); false when there is none.
   */
  stillConnecting(since?: number): Promise<boolean>;
  /** Answers every connection, now and from now on, with bytes that are not TLS; resolves once all are closed. */
  release(): Promise<void>;
  /** Releases, destroys what is left and stops listening. */
  close(): Promise<void>;
}

const listening = async (server: Server): Promise<number> => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
};

/**
 * A loopback round trip (a connection to `port`, answered and closed): what the kernel held when it began — a peer's
 * close of another socket — is read in the poll phase that takes the connection or an earlier one, and the answer
 * written there is read in a later one, so by the time this resolves that close has been heard ('end' or 'error' are
 * emitted as it is read; 'close' comes a phase later).
 */
async function roundTrip(port: number): Promise<void> {
  const c = connect(port, '127.0.0.1');
  c.resume();
  await once(c, 'end');
  c.destroy();
}

export async function handshakeNever(): Promise<HandshakeNever> {
  const sockets: Socket[] = [];
  const closed = new Set<Socket>();
  /** Connections whose close (its end, a reset, or the close itself) has been heard. */
  const heard = new Set<Socket>();
  let answering = false;
  const notTls = (s: Socket): void => {
    if (!s.writableEnded) s.end('not TLS\r\n');
  };
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.resume(); // the ClientHello is read and dropped, so a close from undici is heard
    socket.on('end', () => heard.add(socket));
    socket.on('error', () => heard.add(socket));
    socket.on('close', () => {
      heard.add(socket);
      closed.add(socket);
    });
    if (answering) notTls(socket);
  });
  const port = await listening(server);
  // the round trips' other end: answers and closes each connection at once
  const echo = createServer((s) => {
    s.on('error', () => undefined);
    s.end('.');
  });
  const echoPort = await listening(echo);
  const release = async (): Promise<void> => {
    answering = true;
    sockets.forEach(notTls);
    await waitFor(() => sockets.every((s) => closed.has(s)), 'every connection to the silent agent closed');
  };
  return {
    url: `https://127.0.0.1:${port}`,
    sockets,
    async stillConnecting(since = 0) {
      await roundTrip(echoPort);
      const these = sockets.slice(since);
      return these.length > 0 && these.every((s) => !heard.has(s));
    },
    release,
    async close() {
      answering = true;
      sockets.forEach(notTls);
      for (const s of sockets) s.destroy();
      await Promise.all([server, echo].map((v) => new Promise((r) => v.close(r))));
    },
  };
}
