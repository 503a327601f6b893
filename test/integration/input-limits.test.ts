// Input limits before any upstream call (§13.2): header values with CR/LF or
// over 8 KiB, headers over Node's 16 KiB total, and strings over the route's
// maxStringLength, answered in the caller's binding (or, for requests the
// HTTP parser refuses, the REST error form); the gateway serves on afterwards
// and the upstream never saw the refused calls.
import { connect } from 'node:net';
import t from 'tap';
import { pino } from 'pino';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { CATALOGUE, GRPC_CODES } from '../../src/errors/catalogue.js';
import { startGateway } from '../../src/server/gateway.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, userMessage } from '../helpers/harness.js';

const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
const gw = await startGateway(
  gatewayConfig([
    {
      name: 'limits',
      match: { pathPrefix: '/l', tenant: 'l' },
      upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC', tenant: 'clear' },
      maxStringLength: 64,
    },
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await agent.close();
});
const opts = (headers: Record<string, string> = {}) => ({ tenant: 'l', prefix: '/l', headers });
const invalidRequest = {
  JSONRPC: CATALOGUE.INVALID_REQUEST.jsonRpc,
  'HTTP+JSON': 400,
  GRPC: GRPC_CODES.INVALID_ARGUMENT,
};
const invalidParams = {
  JSONRPC: CATALOGUE.INVALID_PARAMS.jsonRpc,
  'HTTP+JSON': 400,
  GRPC: GRPC_CODES.INVALID_ARGUMENT,
};

t.test('strings over maxStringLength: InvalidParams with the field, in every binding', async (tt) => {
  for (const inbound of BINDINGS) {
    const before = agent.lastCall();
    const long = 'x'.repeat(65);
    const r = await CALLERS[inbound](gw, 'SendMessage', { message: userMessage('short', { messageId: long }) }, opts());
    tt.equal(r.code, invalidParams[inbound], `${inbound}: refused`);
    const bad = r.details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest') as
      { fieldViolations?: Array<{ field: string }> } | undefined;
    tt.equal(bad?.fieldViolations?.[0]?.field, 'message.messageId', `${inbound}: names the field`);
    const meta = await CALLERS[inbound](
      gw,
      'SendMessage',
      { message: userMessage('short', { metadata: { note: long } }) },
      opts(),
    );
    tt.equal(meta.code, invalidParams[inbound], `${inbound}: a long string inside metadata too`);
    tt.equal(agent.lastCall(), before, 'the upstream never saw them');
    tt.ok(
      (await CALLERS[inbound](gw, 'SendMessage', { message: userMessage('x'.repeat(64)) }, opts())).ok,
      `${inbound}: at the limit passes`,
    );
  }
});

t.test('a header value over 8 KiB or with control characters: InvalidRequest', async (tt) => {
  // Via too: the gateway passes it on with its own hop added (a Via of 20,000 bytes reached the agent over gRPC)
  const long = [
    ['a2a-extensions', `https://e.example/${'a'.repeat(8200)}`],
    ['via', `1.1 ${'p'.repeat(8200)}`],
  ];
  for (const inbound of BINDINGS)
    for (const [name, value] of long) {
      const r = await CALLERS[inbound](gw, 'GetTask', { id: 't' }, opts({ [name!]: value! }));
      tt.equal(r.code, invalidRequest[inbound], `${inbound} ${name}: refused`);
      tt.match(r.message, /exceeds 8192 bytes/);
      tt.ok(
        (await CALLERS[inbound](gw, 'SendMessage', { message: userMessage('after') }, opts())).ok,
        `${inbound}: served afterwards`,
      );
    }
});

function rawHttp(request: string): Promise<string> {
  const [host, port] = gw.httpUrl.replace('http://', '').split(':');
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), host!, () => s.end(request));
    let out = '';
    s.setEncoding('utf8');
    s.on('data', (d: string) => (out += d));
    s.on('end', () => resolve(out));
    s.on('error', reject);
  });
}

t.test('requests the HTTP parser refuses are answered with an error body, not a bare close', async (tt) => {
  const huge = await rawHttp(
    `GET /l/l/tasks/t HTTP/1.1\r\nHost: x\r\nA2A-Version: 1.0\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
  );
  tt.match(huge, /^HTTP\/1\.1 431 /, 'headers over 16 KiB: 431');
  tt.match(JSON.parse(huge.slice(huge.indexOf('\r\n\r\n') + 4)), { error: { code: 431, status: 'INVALID_ARGUMENT' } });
  const injected = await rawHttp('GET /l/l/tasks/t HTTP/1.1\r\nHost: x\r\nA2A-Version: 1.0\rX-Evil: 1\r\n\r\n');
  tt.match(injected, /^HTTP\/1\.1 400 /, 'a bare CR inside a header: 400');
  tt.match(injected, /"status":"INVALID_ARGUMENT"/);
  tt.ok(
    (await CALLERS['HTTP+JSON'](gw, 'SendMessage', { message: userMessage('after') }, opts())).ok,
    'served afterwards',
  );
});
