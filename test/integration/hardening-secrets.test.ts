// Issue 12 item 7: a credential configured on the route for its agent
// (`upstream.credentials: {header, value}`) is a secret like the caller's: an
// upstream that echoes the request headers into its error message (JSON-RPC,
// REST, gRPC) gets it redacted before the error is answered or logged, on
// every inbound binding; a pass-through's relayed gRPC status too (its message
// and its trailing metadata, text and bytes), and an HTTP pass-through's answer
// gathered whole (masked in place).
import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import t from 'tap';
import { pino } from 'pino';
import { METHODS } from '../../src/core/methods.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { brokenHttp, type Broken } from '../helpers/broken-upstreams.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, slug, userMessage } from '../helpers/harness.js';

const SECRET = 'route-own-secret-4f9c2e7a';
const KEY = 'agent-key-7d1e55b0c3';

// HTTP agents (JSON-RPC and REST flavour) whose errors quote every header they received.
const echoing = await brokenHttp((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    if (req.method === 'GET') return void res.writeHead(404).end();
    const headers = JSON.stringify(req.headers);
    if (req.url?.startsWith('/rpc')) {
      const { id } = JSON.parse(body) as { id: number };
      const error = {
        code: -32603,
        message: `cannot serve with headers ${headers}`,
        data: [{ '@type': 'type.googleapis.com/google.rpc.DebugInfo', detail: headers }],
      };
      // (with its length, as JSON agents answer: a pass-through gathers such an answer whole)
      const text = JSON.stringify({ jsonrpc: '2.0', id, error });
      return void res
        .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
        .end(text);
    }
    const text = JSON.stringify({
      error: { code: 500, status: 'INTERNAL', message: `cannot serve with headers ${headers}` },
    });
    res.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
});
// A gRPC agent whose errors quote its metadata.
const grpcEchoing: Broken = await (async () => {
  const server = new grpc.Server();
  const service: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {};
  const impl: grpc.UntypedServiceImplementation = {};
  for (const m of METHODS.values()) {
    if (m.streaming) continue;
    service[m.name] = {
      path: `/lf.a2a.v1.A2AService/${m.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (b: Buffer) => b,
      requestDeserialize: (b: Buffer) => b,
      responseSerialize: (b: Buffer) => b,
      responseDeserialize: (b: Buffer) => b,
    };
    impl[m.name] = (call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => {
      // and in its trailing metadata, as text and as bytes
      const echoed = new grpc.Metadata();
      const auth = String(call.metadata.get('authorization')[0] ?? '');
      echoed.set('x-echo', auth);
      echoed.set('x-echo-bin', Buffer.concat([Buffer.from([0x0a, auth.length]), Buffer.from(auth)]));
      echoed.set('x-id-bin', Buffer.from('id-abcdef123-x')); // bytes that happen to hold a caller's cookie value
      cb({
        code: grpc.status.INTERNAL,
        details: `cannot serve with metadata ${JSON.stringify(call.metadata.getMap())}`,
        metadata: echoed,
      });
    };
  }
  server.addService(service, impl);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { url: `127.0.0.1:${port}`, close: async () => server.forceShutdown() };
})();

const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, cb) {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    cb();
  },
});
const url = { JSONRPC: `${echoing.url}/rpc`, 'HTTP+JSON': `${echoing.url}/rest`, GRPC: grpcEchoing.url };
const gw = await startGateway(
  gatewayConfig([
    ...BINDINGS.flatMap((b) => [
      {
        name: `bearer-${slug(b)}`,
        match: { pathPrefix: `/bearer-${slug(b)}`, tenant: `bearer-${slug(b)}` },
        upstream: {
          url: url[b],
          binding: b,
          tenant: 'clear' as const,
          credentials: { header: 'Authorization', value: `Bearer ${SECRET}` },
        },
      },
      {
        name: `key-${slug(b)}`,
        match: { pathPrefix: `/key-${slug(b)}`, tenant: `key-${slug(b)}` },
        upstream: {
          url: url[b],
          binding: b,
          tenant: 'clear' as const,
          credentials: { header: 'X-Agent-Key', value: KEY },
        },
      },
    ]),
    // HTTP pass-throughs: the agent's answer is relayed as it came, but for the route's own credential
    ...(['JSONRPC', 'HTTP+JSON'] as const).map((b) => ({
      name: `passed-${slug(b)}`,
      match: { pathPrefix: `/passed-${slug(b)}` },
      upstream: {
        url: url[b],
        binding: b,
        credentials: { header: 'Authorization', value: `Bearer ${SECRET}` },
      },
      passThrough: true,
    })),
    // a pass-through (gRPC callers with no tenant reach the root route): the agent's status is relayed as it came
    {
      name: 'passed',
      upstream: {
        url: grpcEchoing.url,
        binding: 'GRPC' as const,
        credentials: { header: 'Authorization', value: `Bearer ${SECRET}` },
      },
      passThrough: true,
    },
  ]),
  pino({ level: 'info' }, sink),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await echoing.close();
  await grpcEchoing.close();
});

t.test("the route's own upstream credential never reaches the caller or the log", async (tt) => {
  for (const inbound of BINDINGS) {
    for (const up of BINDINGS) {
      for (const kind of ['bearer', 'key']) {
        const name = `${kind}-${slug(up)}`;
        const r = await CALLERS[inbound](
          gw,
          'SendMessage',
          { message: userMessage('x') },
          { tenant: name, prefix: `/${name}` },
        );
        tt.equal(r.ok, false, `${inbound} → ${name}: the upstream failed`);
        const answered = `${r.message ?? ''} ${JSON.stringify(r.details ?? [])} ${JSON.stringify(r.raw ?? {})}`;
        tt.match(answered, /cannot serve with/, `${inbound} → ${name}: the upstream's message is passed on`);
        tt.notOk(answered.includes(SECRET) || answered.includes(KEY), `${inbound} → ${name}: without the credential`);
        tt.match(answered, /\[REDACTED\]/, `${inbound} → ${name}: redacted in its place`);
      }
    }
  }
  const log = lines.join('\n');
  tt.ok(lines.filter((l) => (JSON.parse(l) as JsonObject).msg === 'call').length >= 18, 'the calls were logged');
  tt.notOk(log.includes(SECRET), 'the bearer credential is in no log line');
  tt.notOk(log.includes(KEY), 'the header credential is in no log line');
});

t.test(
  'a relayed gRPC status (pass-through) carries no route credential, in its message or its metadata',
  async (tt) => {
    const client = new grpc.Client(gw.grpcAddress, grpc.credentials.createInsecure());
    tt.teardown(() => client.close());
    const md = new grpc.Metadata();
    md.set('a2a-version', '1.0');
    md.set('cookie', 'pref=abcdef123');
    const err = await new Promise<grpc.ServiceError>((resolve) =>
      client.makeUnaryRequest(
        '/lf.a2a.v1.A2AService/GetTask',
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.from([0x12, 0x01, 0x78]), // GetTaskRequest{id: "x"}
        md,
        (e) => resolve(e!),
      ),
    );
    tt.equal(err.code, grpc.status.INTERNAL, "the agent's status, relayed");
    tt.match(err.details, /cannot serve with metadata/, 'its message as it came');
    tt.notOk(err.details.includes(SECRET), 'without the credential in the message');
    tt.match(err.details, /\[REDACTED\]/, 'redacted in its place');
    const text = String(err.metadata.get('x-echo')[0] ?? '');
    tt.equal(text, '[REDACTED]', 'nor in a text metadata value');
    const bin = err.metadata.get('x-echo-bin')[0] as Buffer;
    tt.equal(bin.length, 2 + `Bearer ${SECRET}`.length, 'a binary value keeps its length');
    tt.notOk(bin.includes(SECRET), 'and is masked');
    const id = err.metadata.get('x-id-bin')[0] as Buffer;
    tt.equal(id.toString(), 'id-abcdef123-x', "the caller's own values are its to see: nothing else is masked");
    tt.notOk(lines.join('\n').includes(SECRET), 'nor in the log');
  },
);

t.test('an HTTP pass-through answer echoing the route credential has it masked, its length kept', async (tt) => {
  for (const b of ['JSONRPC', 'HTTP+JSON'] as const) {
    const r = await CALLERS[b](
      gw,
      'SendMessage',
      { message: userMessage('x') },
      { tenant: '', prefix: `/passed-${slug(b)}` },
    );
    const text = JSON.stringify(r.raw ?? {});
    tt.match(text, /cannot serve with headers/, `${b}: the agent's answer, relayed`);
    tt.notOk(text.includes(SECRET), `${b}: without the route's credential`);
    tt.ok(text.includes('*'.repeat(SECRET.length)), `${b}: masked in place`);
  }
  tt.notOk(lines.join('\n').includes(SECRET), 'nor in the log');
});
