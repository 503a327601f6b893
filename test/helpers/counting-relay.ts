// A TCP relay in front of an agent that counts the connections made through
// it (total and open), so tests can see which upstream connections a
// gateway opens and when it closes them.
import { createServer, connect, type Socket } from 'node:net';

/** A TCP relay to `port` that counts the connections made through it. */
export async function countingRelay(port: number) {
  const open = new Set<Socket>();
  let total = 0;
  const changed: Array<() => void> = [];
  const server = createServer((client) => {
    total++;
    open.add(client);
    const upstream = connect(port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const done = (): void => {
      client.destroy();
      upstream.destroy();
      if (open.delete(client)) for (const f of changed.splice(0)) f();
    };
    client.on('close', done).on('error', done);
    upstream.on('close', done).on('error', done);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    get total() {
      return total;
    },
    get open() {
      return open.size;
    },
    /** Resolves when at most `n` connections are open (waits on closes, not on time). */
    async openAtMost(n: number): Promise<void> {
      while (open.size > n) await new Promise<void>((r) => changed.push(r));
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of open) s.destroy();
        server.close(() => r());
      }),
  };
}
