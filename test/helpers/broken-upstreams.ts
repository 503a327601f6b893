// Deliberately broken upstreams for the failure cases the gateway must map:
// a port that refuses connections, servers that never answer, and servers
// that answer something that is not A2A. All on 127.0.0.1, closed in teardown.
import { createServer, type Server, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { METHODS } from '../../src/core/methods.js';

export interface Broken {
  url: string;
  close(): Promise<void>;
}

/** A URL whose port was just freed: connecting is refused. */
export async function refusedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export async function brokenHttp(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Broken> {
  const sockets = new Set<Socket>();
  const server: Server = createServer(handler);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    }),
  };
}

/** A gRPC server for every A2A method whose unary handler is `handler`. */
export async function brokenGrpc(handler: (cb: grpc.sendUnaryData<Buffer>) => void): Promise<Broken> {
  const server = new grpc.Server();
  const definition: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {};
  const impl: grpc.UntypedServiceImplementation = {};
  for (const m of METHODS.values()) {
    if (m.streaming) continue;
    definition[m.name] = {
      path: `/lf.a2a.v1.A2AService/${m.name}`, requestStream: false, responseStream: false,
      requestSerialize: (b: Buffer) => b, requestDeserialize: (b: Buffer) => b, responseSerialize: (b: Buffer) => b, responseDeserialize: (b: Buffer) => b,
    };
    impl[m.name] = (_call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => handler(cb);
  }
  server.addService(definition, impl);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  return { url: `127.0.0.1:${port}`, close: async () => server.forceShutdown() };
}
