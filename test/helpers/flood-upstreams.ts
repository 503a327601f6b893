// Upstreams that stream many large events as fast as the connection takes
// them (each waits for drain, as a well-behaved server does) and count what
// they have handed over: with backpressure through the gateway, a caller that
// stops reading stops them too.
import { createServer, type IncomingMessage } from 'node:http';
import { drained } from '../../src/util/drained.js';
import * as grpc from '@grpc/grpc-js';
import type { Broken } from './broken-upstreams.js';

export interface Flood extends Broken {
  /** Bytes of events written so far. */
  sent(): number;
}

export function floodEvent(seq: number, padBytes: number): unknown {
  return {
    statusUpdate: {
      taskId: 't-flood',
      contextId: 'c-flood',
      status: { state: 'TASK_STATE_WORKING' },
      metadata: { seq, pad: 'x'.repeat(padBytes) },
    },
  };
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let s = '';
  for await (const c of req) s += (c as Buffer).toString();
  return s;
}

export async function floodSse(flavour: 'JSONRPC' | 'HTTP+JSON', count: number, padBytes: number): Promise<Flood> {
  let sent = 0;
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(404).end();
      return;
    }
    void (async () => {
      const body = await bodyOf(req);
      const id = flavour === 'JSONRPC' ? (JSON.parse(body) as { id: number }).id : undefined;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < count && !res.destroyed; i++) {
        const ev = floodEvent(i, padBytes);
        const frame = `data: ${JSON.stringify(flavour === 'JSONRPC' ? { jsonrpc: '2.0', id, result: ev } : ev)}\n\n`;
        sent += frame.length;
        if (!res.write(frame)) await drained(res, 'close');
      }
      res.end();
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    sent: () => sent,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export async function floodGrpc(count: number, padBytes: number, encode: (json: unknown) => Buffer): Promise<Flood> {
  let sent = 0;
  const server = new grpc.Server();
  const def: grpc.MethodDefinition<Buffer, Buffer> = {
    path: '/lf.a2a.v1.A2AService/SendStreamingMessage',
    requestStream: false,
    responseStream: true,
    requestSerialize: (b: Buffer) => b,
    requestDeserialize: (b: Buffer) => b,
    responseSerialize: (b: Buffer) => b,
    responseDeserialize: (b: Buffer) => b,
  };
  server.addService(
    { SendStreamingMessage: def },
    {
      SendStreamingMessage: (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
        void (async () => {
          for (let i = 0; i < count && !call.cancelled; i++) {
            const bytes = encode(floodEvent(i, padBytes));
            sent += bytes.length;
            if (!call.write(bytes)) await drained(call, 'cancelled');
          }
          if (!call.cancelled) call.end();
        })();
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { url: `127.0.0.1:${port}`, sent: () => sent, close: async () => server.forceShutdown() };
}
