// Issue 12 item 5: an upstream card cannot lead the gateway into a downgrade
// or a loop — a TLS upstream's card naming a plain-http interface is passed
// over (unless upstream.allowPlaintextInterfaces), an allowedHosts entry
// "host:port" allows that port only, an interface naming the gateway's own
// listeners is passed over, and a call that comes back to the gateway (an
// upstream configured as the gateway itself, on every binding and through a
// pass-through) is refused with LOOP_DETECTED after one hop. Item 12: the Host
// is checked as an authority before it enters a served card, and the card is
// cached per what it is built from (Vary).
import { readFileSync } from 'node:fs';
import { createServer as createHttps } from 'node:https';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { echoAgentCard } from '../../examples/demo-agent/echo-agent.js';
import { CATALOGUE } from '../../src/errors/catalogue.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { brokenHttp } from '../helpers/broken-upstreams.js';
import { cardServer } from '../helpers/card-server.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, userMessage } from '../helpers/harness.js';

const FIX = new URL('../fixtures/tls/', import.meta.url).pathname;
const pem = (f: string): Buffer => readFileSync(`${FIX}${f}`);

// A plain JSON-RPC agent that records what reached it.
const seen: Array<{ url: string; authorization: string | undefined }> = [];
const plain = await brokenHttp((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    if (req.method === 'GET') return void res.writeHead(404).end();
    const { id } = JSON.parse(body) as { id: number };
    const message = { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'plain' }] };
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', id, result: { message } }));
  });
});
const plainPort = Number(new URL(plain.url).port);
const cardOf = (interfaces: JsonObject[]): JsonObject => ({
  ...(echoAgentCard('Card', {}) as unknown as JsonObject),
  capabilities: { streaming: true },
  supportedInterfaces: interfaces,
});
// A TLS upstream whose card names the plain agent over http:// on another port.
const tlsCard = JSON.stringify(
  cardOf([{ url: `${plain.url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]),
);
const tlsServer = createHttps({ cert: pem('server.pem'), key: pem('server-key.pem') }, (_req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(tlsCard),
);
await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
const tlsUrl = `https://127.0.0.1:${(tlsServer.address() as { port: number }).port}`;
const portCard = await cardServer(
  cardOf([{ url: `http://localhost:${plainPort}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]),
);
const selfCard = await cardServer(cardOf([]));

const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, cb) {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    cb();
  },
});
const base = [
  {
    name: 'downgrade',
    match: { pathPrefix: '/downgrade' },
    upstream: { url: tlsUrl, binding: 'auto' as const, tls: { ca: `${FIX}ca.pem` } },
  },
  {
    name: 'downgrade-allowed',
    match: { pathPrefix: '/downgrade-allowed' },
    upstream: { url: tlsUrl, binding: 'auto' as const, tls: { ca: `${FIX}ca.pem` }, allowPlaintextInterfaces: true },
  },
  {
    name: 'other-port',
    match: { pathPrefix: '/other-port' },
    upstream: { url: `${portCard.url}/card.json`, binding: 'auto' as const, allowedHosts: ['localhost:1'] },
  },
  {
    name: 'this-port',
    match: { pathPrefix: '/this-port' },
    upstream: { url: `${portCard.url}/card.json`, binding: 'auto' as const, allowedHosts: [`localhost:${plainPort}`] },
  },
  {
    name: 'public',
    match: { pathPrefix: '/public' },
    upstream: { url: plain.url, binding: 'JSONRPC' as const },
    card: {
      url: `${portCard.url}/card.json`,
      publicHttpUrl: 'https://agents.example.com/public',
      publicGrpcAddress: 'grpc.example.com:443',
    },
  },
];
const gw = await startGateway(gatewayConfig(base, { trustedProxies: ['127.0.0.1'] }), pino({ level: 'info' }, sink));
// Routes that lead back to the gateway itself, now that its ports are known.
selfCard.card = cardOf([
  { url: `http://127.0.0.1:${gw.httpPort}/downgrade-allowed`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  { url: `http://localhost:${gw.httpPort}/public`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  { url: `127.0.0.1:${gw.grpcPort}`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
]);
const self = `127.0.0.1:${gw.httpPort}`;
gw.reload(
  gatewayConfig(
    [
      ...base,
      {
        name: 'self-card',
        match: { pathPrefix: '/self-card' },
        upstream: { url: `${selfCard.url}/card.json`, binding: 'auto' },
      },
      ...(['JSONRPC', 'HTTP+JSON', 'GRPC'] as const).map((b) => ({
        name: `loop-${b === 'HTTP+JSON' ? 'rest' : b.toLowerCase()}`,
        match: {
          pathPrefix: `/loop-${b === 'HTTP+JSON' ? 'rest' : b.toLowerCase()}`,
          tenant: `loop-${b === 'HTTP+JSON' ? 'rest' : b.toLowerCase()}`,
        },
        upstream: {
          url:
            b === 'GRPC' ? `127.0.0.1:${gw.grpcPort}` : `http://${self}/loop-${b === 'HTTP+JSON' ? 'rest' : 'jsonrpc'}`,
          binding: b,
        },
        timeoutMs: 3000,
      })),
      {
        name: 'loop-pt',
        match: { pathPrefix: '/loop-pt' },
        upstream: { url: `http://${self}/loop-pt`, binding: 'JSONRPC' as const },
        passThrough: true,
        timeoutMs: 3000,
      },
    ],
    { trustedProxies: ['127.0.0.1'] },
  ),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await plain.close();
  await portCard.close();
  await selfCard.close();
  await new Promise((r) => tlsServer.close(r));
});

const reason = (x: { details?: JsonObject[] }): unknown =>
  x.details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo')?.reason;
const calls = (route: string): number =>
  lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'call' && l.route === route)
    .length;

t.test('a TLS upstream never leads to plain http unless the route allows it', async (tt) => {
  seen.length = 0;
  const opts = { tenant: '', prefix: '/downgrade', headers: { authorization: 'Bearer do-not-send-in-clear' } };
  const r = await CALLERS.JSONRPC(gw, 'SendMessage', { message: userMessage('x') }, opts);
  tt.equal(reason(r), 'UPSTREAM_UNAVAILABLE', 'no usable interface');
  tt.match(r.message, /downgrade/, 'says why');
  tt.same(
    seen.filter((x) => x.url === '/rpc'),
    [],
    'nothing, and no credential, went to the plain-http interface',
  );
  const allowed = await CALLERS.JSONRPC(
    gw,
    'SendMessage',
    { message: userMessage('x') },
    { ...opts, prefix: '/downgrade-allowed' },
  );
  tt.equal(allowed.ok, true, 'with upstream.allowPlaintextInterfaces it is used');
});

t.test('an allowedHosts entry with a port allows that port only', async (tt) => {
  const other = await CALLERS.JSONRPC(
    gw,
    'SendMessage',
    { message: userMessage('x') },
    { tenant: '', prefix: '/other-port' },
  );
  tt.equal(reason(other), 'UPSTREAM_UNAVAILABLE', '"localhost:1" does not allow another port');
  const same = await CALLERS.JSONRPC(
    gw,
    'SendMessage',
    { message: userMessage('x') },
    { tenant: '', prefix: '/this-port' },
  );
  tt.equal(same.ok, true, '"localhost:<port>" allows that port');
});

t.test("a card naming the gateway's own listeners is not followed", async (tt) => {
  const before = lines.length;
  for (const inbound of BINDINGS) {
    if (inbound === 'GRPC') continue; // reached by path only
    const r = await CALLERS[inbound](
      gw,
      'SendMessage',
      { message: userMessage('x') },
      { tenant: '', prefix: '/self-card' },
    );
    tt.equal(reason(r), 'UPSTREAM_UNAVAILABLE', `${inbound}: refused`);
    tt.match(r.message, /own listener/, `${inbound}: says why`);
  }
  const after = lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
  tt.same(
    after.filter((l) => l.msg === 'call').map((l) => l.route),
    ['self-card', 'self-card'],
    'one call each, nothing sent to the gateway itself',
  );
});

t.test('a call that comes back to the gateway is refused after one hop (Via)', async (tt) => {
  for (const [route, up] of [
    ['loop-jsonrpc', 'JSON-RPC'],
    ['loop-rest', 'REST'],
    ['loop-grpc', 'gRPC'],
  ]) {
    for (const inbound of BINDINGS) {
      const before = calls(route!);
      const r = await CALLERS[inbound](
        gw,
        'SendMessage',
        { message: userMessage('x') },
        { tenant: route!, prefix: `/${route}` },
      );
      tt.equal(reason(r), 'LOOP_DETECTED', `${inbound} → ${up} upstream that is the gateway: LOOP_DETECTED`);
      if (inbound === 'HTTP+JSON') tt.equal(r.httpStatus, CATALOGUE.LOOP_DETECTED.http, 'REST: 508');
      tt.equal(calls(route!) - before, 2, `${inbound} → ${up}: two calls in all (the call and its one loop)`);
    }
  }
  const before = calls('loop-pt');
  const pt = await request(`${gw.httpUrl}/loop-pt`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't' } }),
  });
  const body = (await pt.body.json()) as JsonObject;
  tt.equal((body.error as JsonObject).code, CATALOGUE.LOOP_DETECTED.jsonRpc, 'pass-through: the loop is refused too');
  tt.equal(calls('loop-pt') - before, 2, 'pass-through: two calls in all');
});

function rawGet(path: string, host: string, extra = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(gw.httpPort, '127.0.0.1', () =>
      s.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`),
    );
    let out = '';
    s.on('data', (d: Buffer) => (out += d.toString()));
    s.on('end', () => resolve(out));
    s.on('error', reject);
  });
}

t.test('the Host enters a served card only as host[:port], and the card varies on it', async (tt) => {
  const phish = await rawGet('/downgrade/.well-known/agent-card.json', 'evil.example:443/phish?');
  tt.match(phish, /^HTTP\/1\.1 400 /, 'a Host that is not an authority: 400');
  tt.match(phish, /INVALID_REQUEST/, 'an A2A error');
  tt.notOk(phish.includes('phish'), 'nothing of it is served');
  const forwarded = await rawGet(
    '/downgrade/.well-known/agent-card.json',
    'ok.example',
    'X-Forwarded-Host: evil.example/phish\r\n',
  );
  tt.match(forwarded, /^HTTP\/1\.1 400 /, 'nor is a forwarded host from a trusted proxy');
  const good = await request(`${gw.httpUrl}/downgrade/.well-known/agent-card.json`);
  const card = (await good.body.json()) as { supportedInterfaces: Array<{ url: string }> };
  tt.equal(good.statusCode, 200);
  tt.match(card.supportedInterfaces[0]?.url, `http://127.0.0.1:${gw.httpPort}/downgrade`, 'a valid Host is used');
  tt.equal(
    good.headers.vary,
    'A2A-Version, Host, X-Forwarded-Proto, X-Forwarded-Host, X-Forwarded-Prefix, Forwarded',
    'Vary: what the card is built from (trusted proxies configured)',
  );
  const fixed = await request(`${gw.httpUrl}/public/.well-known/agent-card.json`);
  await fixed.body.dump();
  tt.equal(fixed.headers.vary, 'A2A-Version', 'a route with configured public URLs does not vary on the Host');
});
