// A listener that could not start (server/listen-error.ts), said as one line
// naming the address, the reason and the setting to change. The errors are the
// real ones where this machine can make them without the network: node:net's
// and grpc-js's for a host name getaddrinfo refuses before any DNS query (an
// empty label) and node:net's for a port in use. A resolver that cannot be
// reached (EAI_AGAIN) needs a network to fail on, so that one is Node's error
// as getaddrinfo's callback builds it; it must read as "does not resolve" too.
import { lookup } from 'node:dns/promises';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import t from 'tap';
import { ListenError, listenAddress } from '../../src/server/listen-error.js';

/** getaddrinfo refuses an empty label without a query (glibc and musl build no query for it). */
const UNRESOLVABLE = 'gateway..invalid';

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => new Error('resolved'),
    (e: unknown) => e,
  );
}

t.test('a host that does not resolve: the host setting, whichever listener and error', async (t) => {
  const net = await rejection(lookup(UNRESOLVABLE));
  t.equal((net as NodeJS.ErrnoException).code, 'ENOTFOUND', 'node:net: ENOTFOUND');
  const server = new grpc.Server();
  const fromGrpc = await new Promise<Error | null>((resolve) =>
    server.bindAsync(`${UNRESOLVABLE}:0`, grpc.ServerCredentials.createInsecure(), (e) => resolve(e)),
  );
  server.forceShutdown();
  t.ok(fromGrpc, 'grpc-js refused the bind');
  const again = Object.assign(new Error('getaddrinfo EAI_AGAIN gateway.example'), {
    code: 'EAI_AGAIN',
    errno: -3001,
    syscall: 'getaddrinfo',
    hostname: 'gateway.example',
  });
  const cases: Array<[ListenError, string]> = [
    [new ListenError('http', 'h:80', net), 'h:80: the host name does not resolve (change --host / listen.host)'],
    [new ListenError('grpc', 'h:81', fromGrpc), 'h:81: the host name does not resolve (change --host / listen.host)'],
    [new ListenError('admin', 'h:82', again), 'h:82: the host name does not resolve (change admin.host)'],
  ];
  for (const [err, said] of cases) t.equal(err.message, `cannot listen on ${said}`, said);
});

t.test('a port in use: the port setting', async (t) => {
  const held = createServer().listen(0, '127.0.0.1');
  await once(held, 'listening');
  t.teardown(() => held.close());
  const port = (held.address() as AddressInfo).port;
  const second = createServer().listen(port, '127.0.0.1');
  const [inUse] = (await once(second, 'error')) as [Error];
  const at = listenAddress('127.0.0.1', port);
  t.equal(
    new ListenError('grpc', at, inUse).message,
    `cannot listen on 127.0.0.1:${port}: address already in use (change --grpc-port / listen.grpcPort)`,
  );
});

t.test('anything else: the first line of its own message, no setting named', async (t) => {
  const err = new ListenError('http', listenAddress('::1', 8080), new Error('something odd\n    at a stack'));
  t.equal(err.message, 'cannot listen on [::1]:8080: something odd');
});
