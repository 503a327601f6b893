// Deliberately broken upstreams for the failure cases the gateway must map:
// a port that refuses connections, servers that never answer, and servers
// that answer something that is not A2A. All on 127.0.0.1, closed in teardown.
import { createServer, type Server, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createH2Server, type ServerHttp2Session } from 'node:http2';
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

/** A JSON-RPC request as a test agent reads it (the task id a GetTask names picks what it answers). */
export interface JsonRpcRequestBody {
  id: unknown;
  method: string;
  params: { id: string };
}

/** An HTTP agent that reads each POST's JSON body and hands it to `answer` (GET: 404). */
export function jsonRpcAgent(answer: (body: JsonRpcRequestBody, res: ServerResponse) => void): Promise<Broken> {
  return brokenHttp((req, res) => {
    if (req.method === 'GET') return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => answer(JSON.parse(Buffer.concat(chunks).toString()) as JsonRpcRequestBody, res));
  });
}

/**
 * A JSON-RPC agent that answers a GetTask for "quick" at once and holds every other request open: `held` are the
 * requests open now, `dropped()` how many the gateway dropped.
 */
export async function holdingAgent(): Promise<Broken & { held: Set<ServerResponse>; dropped: () => number }> {
  const held = new Set<ServerResponse>();
  let dropped = 0;
  const agent = await jsonRpcAgent((body, res) => {
    if (body.params.id === 'quick') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const task = { id: 'quick', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } };
      return void res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: task }));
    }
    held.add(res);
    res.on('close', () => {
      held.delete(res);
      dropped++;
    });
  });
  return { ...agent, held, dropped: () => dropped };
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
    close: () =>
      new Promise<void>((r) => {
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
      path: `/lf.a2a.v1.A2AService/${m.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (b: Buffer) => b,
      requestDeserialize: (b: Buffer) => b,
      responseSerialize: (b: Buffer) => b,
      responseDeserialize: (b: Buffer) => b,
    };
    impl[m.name] = (_call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => handler(cb);
  }
  server.addService(definition, impl);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { url: `127.0.0.1:${port}`, close: async () => server.forceShutdown() };
}

/** How a streaming upstream breaks after its first two events. */
export type BreakMode = 'error' | 'drop' | 'stall' | 'huge';

export const STREAM_EVENTS = [
  { task: { id: 't-broken', contextId: 'c-broken', status: { state: 'TASK_STATE_WORKING' } } },
  {
    statusUpdate: {
      taskId: 't-broken',
      contextId: 'c-broken',
      status: { state: 'TASK_STATE_WORKING' },
      metadata: { n: 2 },
    },
  },
];
const VANISHED = { reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 't-broken' } };

async function bodyOf(req: IncomingMessage): Promise<string> {
  let s = '';
  for await (const c of req) s += (c as Buffer).toString();
  return s;
}

/** An SSE upstream (JSON-RPC or REST flavour) that sends two events, then breaks. */
export function brokenSse(flavour: 'JSONRPC' | 'HTTP+JSON', mode: BreakMode): Promise<Broken> {
  return brokenHttp((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(404).end(); // no agent card: the gateway does not block streaming then
      return;
    }
    void bodyOf(req).then((body) => {
      const id = flavour === 'JSONRPC' ? (JSON.parse(body) as { id: number }).id : undefined;
      const wrap = (result: unknown): unknown => (flavour === 'JSONRPC' ? { jsonrpc: '2.0', id, result } : result);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // both events in one write: 'drop' destroys the socket once the kernel has them
      const frames = STREAM_EVENTS.map((ev) => `data: ${JSON.stringify(wrap(ev))}\n\n`).join('');
      res.write(frames, () => {
        if (mode === 'drop') req.socket.destroy();
      });
      if (mode === 'error') {
        const info = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', ...VANISHED };
        res.end(
          flavour === 'JSONRPC'
            ? `data: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32001, message: 'task vanished', data: [info] } })}\n\n`
            : `event: error\ndata: ${JSON.stringify({ error: { code: 404, status: 'NOT_FOUND', message: 'task vanished', details: [info] } })}\n\n`,
        );
      } else if (mode === 'huge') {
        res.end(
          `data: ${JSON.stringify(wrap({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'x'.repeat(8192) }] } }))}\n\n`,
        );
      }
    });
  });
}

/**
 * A gRPC upstream written on node:http2 by hand (grpc-js cannot drop its own
 * connection): any call gets the two events as length-prefixed messages, then
 * the whole HTTP/2 connection is destroyed, as when the upstream process dies.
 */
async function droppingGrpc(encode: (json: unknown) => Buffer): Promise<Broken> {
  const server = createH2Server();
  server.on('stream', (stream) => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
    const frames = STREAM_EVENTS.map((ev) => {
      const msg = encode(ev);
      const head = Buffer.alloc(5);
      head.writeUInt32BE(msg.length, 1);
      return Buffer.concat([head, msg]);
    });
    stream.write(Buffer.concat(frames), () => stream.session?.destroy());
  });
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sessions) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A gRPC upstream whose streaming methods send two events, then break. */
export async function brokenGrpcStream(
  mode: BreakMode,
  encode: (json: unknown) => Buffer,
  errorStatus: () => Partial<grpc.StatusObject>,
): Promise<Broken> {
  if (mode === 'drop') return droppingGrpc(encode);
  const server = new grpc.Server();
  const definition: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {};
  const impl: grpc.UntypedServiceImplementation = {};
  for (const m of METHODS.values()) {
    if (!m.streaming) continue;
    definition[m.name] = {
      path: `/lf.a2a.v1.A2AService/${m.name}`,
      requestStream: false,
      responseStream: true,
      requestSerialize: (b: Buffer) => b,
      requestDeserialize: (b: Buffer) => b,
      responseSerialize: (b: Buffer) => b,
      responseDeserialize: (b: Buffer) => b,
    };
    impl[m.name] = (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
      // the error once both events are handed to HTTP/2 (their write callbacks), not after a guessed delay
      let written = 0;
      const broken = () => {
        if (++written === STREAM_EVENTS.length && mode === 'error') call.emit('error', errorStatus());
      };
      for (const ev of STREAM_EVENTS) call.write(encode(ev), broken);
    };
  }
  server.addService(definition, impl);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { url: `127.0.0.1:${port}`, close: async () => server.forceShutdown() };
}
