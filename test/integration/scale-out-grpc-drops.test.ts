// A gRPC agent replica whose connection drops after it got a task's call
// (issue 14, stage placeEndpoint; upstream/grpc-failures.ts): the agent may
// have the call, so the caller gets the dropped connection as it is, never
// "the task's endpoint is unavailable" (as for an HTTP agent's reset
// connection); an idempotent GetTask is sent once more, a SendMessage once.
// Raw node:http2 gRPC replicas on 127.0.0.1 (the SDK's agents cannot be made
// to drop a connection on a given call).
import http2, { type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { fromBinary, fromJson, toBinary, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import {
  GetTaskRequestSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  TaskSchema,
} from '../../src/gen/a2a_pb.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import type { JsonObject } from '../../src/proto/json.js';
import { frame } from '../helpers/agent-answers-grpc.js';
import { callJsonRpc, gatewayConfig, userMessage } from '../helpers/harness.js';

interface Replica {
  address: string;
  /** Drops the connection on a call for one of its tasks. */
  dropping: boolean;
  calls: string[];
}

async function replica(t: Test, name: string): Promise<Replica> {
  let n = 0;
  const r: Replica = { address: '', dropping: false, calls: [] };
  const answer = (stream: ServerHttp2Stream, schema: DescMessage, json: JsonObject): void => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(frame(Buffer.from(toBinary(schema, fromJson(schema, json as JsonValue)))));
  };
  const task = (id: string): JsonObject => ({
    id,
    contextId: `${name}-ctx`,
    status: { state: 'TASK_STATE_COMPLETED' },
  });
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    const method = String(headers[':path']).split('/').pop()!;
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      r.calls.push(method);
      const body = Buffer.concat(chunks).subarray(5);
      const asked =
        method === 'GetTask'
          ? fromBinary(GetTaskRequestSchema, body).id
          : method === 'SendMessage'
            ? (fromBinary(SendMessageRequestSchema, body).message?.taskId ?? '')
            : '';
      if (r.dropping && asked.startsWith(`${name}-`)) return void stream.session?.destroy();
      if (asked && !asked.startsWith(`${name}-`)) {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '5' }, { endStream: true });
        return;
      }
      if (method === 'GetTask') return answer(stream, TaskSchema, task(asked));
      if (method === 'SendMessage')
        return answer(stream, SendMessageResponseSchema, { task: task(asked || `${name}-t${++n}`) });
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12' }, { endStream: true });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // sessions the gateway keeps open end with the server
        for (const s of sessions) s.destroy();
      }),
  );
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
  });
  return r;
}

async function gateway(t: Test, replicas: Replica[]): Promise<RunningGateway> {
  const gw = await startGateway(
    gatewayConfig([
      {
        name: 'replicas',
        upstream: {
          binding: 'GRPC',
          loadBalancing: 'round-robin',
          healthCheck: false,
          endpoints: replicas.map((r, i) => ({ url: r.address, name: `replica-${i}` })),
        },
        ssrfGuard: false,
      },
    ]),
  );
  t.teardown(() => gw.close());
  return gw;
}

const at = { tenant: '', prefix: '' };

t.test('a gRPC task\'s endpoint that drops the call\'s connection: the drop, never "unavailable"', async (t) => {
  const replicas = [await replica(t, 'a'), await replica(t, 'b')];
  const gw = await gateway(t, replicas);
  const made = await callJsonRpc(gw, 'SendMessage', { message: userMessage('x') }, at);
  t.ok(made.ok, `the task is made: ${made.message ?? 'ok'}`);
  const id = (made.result as { task: { id: string } }).task.id;
  const owner = replicas[id.startsWith('a-') ? 0 : 1]!;
  owner.dropping = true;

  const read = await callJsonRpc(gw, 'GetTask', { id }, at);
  t.equal(read.code, -32051, `GetTask: UPSTREAM_UNAVAILABLE (${read.message})`);
  t.match(read.message ?? '', /connection dropped/, 'the connection drop, as it happened');
  t.notMatch(read.message ?? '', /is held by endpoint/, "not the task's endpoint being unavailable");
  t.equal(owner.calls.filter((m) => m === 'GetTask').length, 2, 'the idempotent read was sent once more');

  const followUp = await callJsonRpc(gw, 'SendMessage', { message: userMessage('y', { taskId: id }) }, at);
  t.equal(followUp.code, -32051, `a follow-up SendMessage: UPSTREAM_UNAVAILABLE (${followUp.message})`);
  t.notMatch(followUp.message ?? '', /is held by endpoint/, 'the agent may have it: never "unavailable"');
  t.equal(
    owner.calls.filter((m) => m === 'SendMessage').length,
    2,
    'the follow-up was sent once (the first made the task)',
  );

  owner.dropping = false;
  const again = await callJsonRpc(gw, 'GetTask', { id }, at);
  t.ok(again.ok, `the endpoint answers again once it stops dropping: ${again.message ?? 'ok'}`);
});
