// The benchmark's upstream agents, one process, built so they are never the
// bottleneck: answers are encoded once at start. JSON-RPC (POST /rpc), REST
// (/message:send, /message:stream, /tasks/{id}) and gRPC. SendMessage → a
// fixed small Task (whatever the payload); GetTask → the same Task;
// SendStreamingMessage with text "N" → N small status events then the end,
// with text "hold" → one event, then the stream stays open.
// Prints {"jsonrpc","rest","grpc"} URLs as one JSON line on stdout.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { fromBinary, fromJson, toBinary, toJson, type JsonValue } from '@bufbuild/protobuf';
import { methodInfo } from '../../src/core/methods.js';
import type { JsonObject } from '../../src/proto/json.js';

const TASK = {
  id: 'bench-task',
  contextId: 'bench-ctx',
  status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-01T00:00:00Z' },
};
const EVENT = {
  statusUpdate: { taskId: 'bench-task', contextId: 'bench-ctx', status: { state: 'TASK_STATE_WORKING' } },
};
const sendInfo = methodInfo('SendMessage');
const streamInfo = methodInfo('SendStreamingMessage');
const encode = (info: typeof sendInfo, json: unknown): Buffer =>
  Buffer.from(toBinary(info.responseSchema, fromJson(info.responseSchema, json as JsonValue)));
const SEND_BYTES = encode(sendInfo, { task: TASK });
const TASK_BYTES = encode(methodInfo('GetTask'), TASK);
const EVENT_BYTES = encode(streamInfo, EVENT);
const TASK_JSON = JSON.stringify(TASK);
const SEND_JSON = JSON.stringify({ task: TASK });
const EVENT_JSON = JSON.stringify(EVENT);
const held: Array<() => void> = [];

function textOf(json: JsonObject | undefined): string {
  const parts = ((json?.message as JsonObject | undefined)?.parts ?? []) as JsonObject[];
  return String(parts.find((p) => typeof p.text === 'string')?.text ?? '');
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Text "hold": one event, then open until SIGUSR2; text "N": N events as fast as the peer takes them, then the end. */
function emit(
  text: string,
  out: { write(b: string | Buffer): boolean; once(e: 'drain', l: () => void): unknown; end(): unknown },
  event: string | Buffer,
): void {
  if (text === 'hold') {
    out.write(event);
    held.push(() => out.end());
    return;
  }
  const n = Number(text) || 1;
  let i = 0;
  const pump = (): void => {
    while (i < n) {
      i++;
      if (!out.write(event)) {
        out.once('drain', pump);
        return;
      }
    }
    out.end();
  };
  pump();
}

function sse(res: ServerResponse, text: string, frame: (ev: string) => string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  emit(text, res, frame(EVENT_JSON));
}

const http = createServer((req, res) => {
  body(req)
    .catch(() => undefined)
    .then((text) => {
      if (text === undefined) return; // the caller went away mid-request
      const url = req.url ?? '/';
      if (url.startsWith('/rpc')) {
        const r = JSON.parse(text) as { id: number; method: string; params: JsonObject };
        if (r.method === 'SendStreamingMessage')
          return sse(res, textOf(r.params), (ev) => `data: {"jsonrpc":"2.0","id":${r.id},"result":${ev}}\n\n`);
        const result = r.method === 'SendMessage' ? SEND_JSON : TASK_JSON;
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(`{"jsonrpc":"2.0","id":${JSON.stringify(r.id)},"result":${result}}`);
      } else if (url.startsWith('/rest/message:stream')) {
        sse(res, textOf(JSON.parse(text) as JsonObject), (ev) => `data: ${ev}\n\n`);
      } else if (url.startsWith('/rest/message:send')) {
        res.writeHead(200, { 'content-type': 'application/a2a+json' }).end(SEND_JSON);
      } else if (url.startsWith('/rest/tasks/')) {
        res.writeHead(200, { 'content-type': 'application/a2a+json' }).end(TASK_JSON);
      } else {
        res.writeHead(404).end();
      }
    })
    .catch(() => undefined);
});
http.keepAliveTimeout = 60_000;

const identity = (b: Buffer): Buffer => b;
const grpcServer = new grpc.Server({ 'grpc.max_receive_message_length': -1 });
const def = (name: string, stream: boolean): grpc.MethodDefinition<Buffer, Buffer> => ({
  path: `/lf.a2a.v1.A2AService/${name}`,
  requestStream: false,
  responseStream: stream,
  requestSerialize: identity,
  requestDeserialize: identity,
  responseSerialize: identity,
  responseDeserialize: identity,
});
grpcServer.addService(
  {
    SendMessage: def('SendMessage', false),
    GetTask: def('GetTask', false),
    SendStreamingMessage: def('SendStreamingMessage', true),
  },
  {
    SendMessage: (_c: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => cb(null, SEND_BYTES),
    GetTask: (_c: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => cb(null, TASK_BYTES),
    SendStreamingMessage: (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
      const req = toJson(sendInfo.requestSchema, fromBinary(sendInfo.requestSchema, call.request)) as JsonObject;
      emit(textOf(req), call as never, EVENT_BYTES);
    },
  },
);

http.listen(0, '127.0.0.1', () => {
  grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    const httpPort = (http.address() as { port: number }).port;
    process.stdout.write(
      `${JSON.stringify({ jsonrpc: `http://127.0.0.1:${httpPort}/rpc`, rest: `http://127.0.0.1:${httpPort}/rest`, grpc: `127.0.0.1:${port}` })}\n`,
    );
  });
});
process.on('SIGUSR2', () => held.splice(0).forEach((end) => end()));
process.on('SIGTERM', () => process.exit(0));
