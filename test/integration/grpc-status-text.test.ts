// A gRPC caller's error status whose text came from an agent: grpc-js
// percent-encodes the status message with encodeURI, which throws on a lone
// UTF-16 surrogate inside an event listener — the whole process would end.
// An agent's JSON may carry one ("\ud800" is valid JSON), so the text goes
// out with U+FFFD in its place, in 1.0 and 0.3, and the gateway serves on.
import t from 'tap';
import { createServer } from 'node:http';
import { once } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import { create, toBinary } from '@bufbuild/protobuf';
import { pino } from 'pino';
import { GetTaskRequestSchema } from '../../src/gen/a2a_pb.js';
import { startGateway } from '../../src/server/gateway.js';
import { gatewayConfig, grpcStatusOf } from '../helpers/harness.js';

// Every call is answered with a JSON-RPC error whose message holds a lone surrogate; its card says it streams.
const agent = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    if (req.method === 'GET') return void res.end(JSON.stringify(card()));
    const id = JSON.stringify((JSON.parse(Buffer.concat(chunks).toString()) as { id: unknown }).id);
    res.end(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32001,"message":"bad \\ud800 text"}}`);
  });
});
const card = () => ({
  name: 'lone',
  description: 'answers errors',
  version: '1',
  supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 's', name: 's', description: 's', tags: ['t'] }],
});
agent.listen(0, '127.0.0.1');
await once(agent, 'listening');
const base = `http://127.0.0.1:${(agent.address() as { port: number }).port}`;
const url = `${base}/rpc`;
const gw = await startGateway(
  gatewayConfig([
    {
      name: 'lone',
      upstream: { url, binding: 'JSONRPC' as const },
      card: { url: `${base}/.well-known/agent-card.json` },
    },
  ]),
  pino({ level: 'silent' }),
);
const client = new grpc.Client(gw.grpcAddress, grpc.credentials.createInsecure());
t.teardown(async () => {
  client.close();
  await gw.close();
  agent.close();
});

const request = Buffer.from(toBinary(GetTaskRequestSchema, create(GetTaskRequestSchema, { id: 't-1' })));
/** A 0.3 a2a.v1 GetTaskRequest: field 1, the resource name "tasks/t-1". */
const V03_REQUEST = Buffer.concat([Buffer.from([0x0a, 9]), Buffer.from('tasks/t-1')]);

t.test('a lone surrogate in an agent error: U+FFFD in the status, the gateway serves on', async (tt) => {
  const v1 = new grpc.Metadata();
  v1.set('a2a-version', '1.0');
  for (const [path, md, dialect, body] of [
    ['/lf.a2a.v1.A2AService/GetTask', v1, '1.0', request],
    ['/a2a.v1.A2AService/GetTask', new grpc.Metadata(), '0.3', V03_REQUEST],
    ['/lf.a2a.v1.A2AService/SubscribeToTask', v1, '1.0 stream', request],
  ] as const) {
    const status = await grpcStatusOf(client, path, body, dialect.includes('stream'), md);
    tt.equal(status.code, grpc.status.NOT_FOUND, `${dialect}: TaskNotFound (${status.details})`);
    tt.equal(status.details, 'bad \ufffd text', `${dialect}: the lone surrogate replaced`);
  }
  const again = await grpcStatusOf(client, '/lf.a2a.v1.A2AService/GetTask', request, false, v1);
  tt.equal(again.code, grpc.status.NOT_FOUND, 'the gateway still answers');
});
