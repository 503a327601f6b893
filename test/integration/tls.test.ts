// TLS both ways (§7.1, §7.2): the gateway's HTTPS listener (h2 and HTTP/1.1
// by ALPN) and gRPC over TLS, with and without required client certificates
// (mTLS), client-certificate identity as an auth scheme, certificates
// re-read on reload; and upstreams over https:// and grpcs:// with a custom CA,
// a client certificate and a servername override — certificate failures
// answered UPSTREAM_UNAVAILABLE with the TLS reason logged. The TLS upstream
// is itself a gateway with a TLS listener in front of a real SDK agent.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { connect as h2connect, type ClientHttp2Session } from 'node:http2';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import t from 'tap';
import { pino } from 'pino';
import { Client } from 'undici';
import type { ListenerTls } from '../../src/config/types.js';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { CATALOGUE, GRPC_CODES } from '../../src/errors/catalogue.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, slug, userMessage } from '../helpers/harness.js';
import { TestSseParser } from '../helpers/sse.js';

const FIX = new URL('../fixtures/tls/', import.meta.url).pathname;
const pem = (f: string): Buffer => readFileSync(join(FIX, f));
const listener = (cert: string, clientCa?: string, requireClientCert = clientCa !== undefined): ListenerTls => ({
  cert: join(FIX, `${cert}.pem`),
  key: join(FIX, `${cert}-key.pem`),
  clientCa: clientCa ? join(FIX, clientCa) : undefined,
  requireClientCert,
});
const sendBody = (text: string, id = 1) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: text === 'stream' ? 'SendStreamingMessage' : 'SendMessage',
    params: { message: userMessage(text) },
  });

const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, cb) {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    cb();
  },
});
const agent = await startEchoAgent({ bindings: BINDINGS });
const toAgent = { upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const } };
// "front": an A2A server on TLS that requires a client certificate from the test CA.
const front = await startGateway(
  gatewayConfig([{ name: 'front', ...toAgent }], { tls: listener('server', 'ca.pem') }),
  pino({ level: 'silent' }),
);
// "named": TLS with a certificate for agent.internal only (servername override).
const named = await startGateway(
  gatewayConfig([{ name: 'named', ...toAgent }], { tls: listener('upstream') }),
  pino({ level: 'silent' }),
);
// "optional": client certificates asked for but not required; a route that takes them as identity.
const optional = await startGateway(
  gatewayConfig([{ name: 'mtls-auth', match: { pathPrefix: '' }, ...toAgent, auth: { mtls: true } }], {
    tls: listener('server', 'ca.pem', false),
  }),
  pino({ level: 'info' }, sink),
);

const frontGrpc = `grpcs://${front.grpcAddress}`;
const mtls = { ca: join(FIX, 'ca.pem'), cert: join(FIX, 'client.pem'), key: join(FIX, 'client-key.pem') };
const gw = await startGateway(
  gatewayConfig([
    {
      name: 'out-jsonrpc',
      match: { pathPrefix: '/out-jsonrpc', tenant: 'out-jsonrpc' },
      upstream: { url: `${front.httpUrl}/`, binding: 'JSONRPC', tenant: 'clear', tls: mtls },
    },
    {
      name: 'out-rest',
      match: { pathPrefix: '/out-rest', tenant: 'out-rest' },
      upstream: { url: front.httpUrl, binding: 'HTTP+JSON', tenant: 'clear', tls: mtls },
    },
    {
      name: 'out-grpc',
      match: { pathPrefix: '/out-grpc', tenant: 'out-grpc' },
      upstream: { url: frontGrpc, binding: 'GRPC', tenant: 'clear', tls: mtls },
      card: { url: `${agent.httpUrl}/.well-known/agent-card.json` },
    },
    {
      name: 'no-ca',
      match: { pathPrefix: '/no-ca', tenant: 'no-ca' },
      upstream: { url: `${front.httpUrl}/`, binding: 'JSONRPC', tenant: 'clear' },
      card: { url: `${agent.httpUrl}/.well-known/agent-card.json` },
    },
    {
      name: 'no-client-cert',
      match: { pathPrefix: '/no-client-cert', tenant: 'no-client-cert' },
      upstream: { url: frontGrpc, binding: 'GRPC', tenant: 'clear', tls: { ca: mtls.ca } },
      card: { url: `${agent.httpUrl}/.well-known/agent-card.json` },
    },
    {
      name: 'sni-ok',
      match: { pathPrefix: '/sni-ok', tenant: 'sni-ok' },
      upstream: {
        url: `${named.httpUrl}/`,
        binding: 'JSONRPC',
        tenant: 'clear',
        tls: { ca: mtls.ca, servername: 'agent.internal' },
      },
    },
    {
      name: 'sni-grpc',
      match: { pathPrefix: '/sni-grpc', tenant: 'sni-grpc' },
      upstream: {
        url: `grpcs://${named.grpcAddress}`,
        binding: 'GRPC',
        tenant: 'clear',
        tls: { ca: mtls.ca, servername: 'agent.internal' },
      },
      card: { url: `${agent.httpUrl}/.well-known/agent-card.json` },
    },
    {
      name: 'sni-missing',
      match: { pathPrefix: '/sni-missing', tenant: 'sni-missing' },
      upstream: { url: `${named.httpUrl}/`, binding: 'JSONRPC', tenant: 'clear', tls: { ca: mtls.ca } },
      card: { url: `${agent.httpUrl}/.well-known/agent-card.json` },
    },
  ]),
  pino({ level: 'info' }, sink),
);

t.teardown(async () => {
  closeGrpcClients();
  for (const g of [gw, front, named, optional]) await g.close();
  await agent.close();
});

function h2Request(
  session: ClientHttp2Session,
  path: string,
  body: string,
  extra: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/json',
      'a2a-version': '1.0',
      ...extra,
    });
    let text = '';
    let headers: Record<string, unknown> = {};
    req.setEncoding('utf8');
    req.on('response', (h) => (headers = h));
    req.on('data', (d: string) => (text += d));
    req.on('end', () => resolve({ status: Number(headers[':status']), headers, text }));
    req.on('error', reject);
    req.end(body);
  });
}

t.test('HTTPS listener: h2 and HTTP/1.1, with the client certificate it requires', async (tt) => {
  const session = h2connect(front.httpUrl, { ca: pem('ca.pem'), cert: pem('client.pem'), key: pem('client-key.pem') });
  await new Promise((r) => session.once('connect', r));
  tt.equal(session.alpnProtocol, 'h2', 'h2 negotiated by ALPN');
  const unary = await h2Request(session, '/', sendBody('hello over h2'));
  tt.equal(unary.status, 200);
  tt.match(JSON.parse(unary.text), {
    jsonrpc: '2.0',
    id: 1,
    result: { task: { status: { state: 'TASK_STATE_COMPLETED' } } },
  });
  const stream = await h2Request(session, '/', sendBody('stream'), { accept: 'text/event-stream' });
  tt.equal(stream.status, 200);
  tt.equal(stream.headers['content-type'], 'text/event-stream');
  tt.equal(stream.headers.connection, undefined, 'no Connection header on h2');
  const sse = new TestSseParser();
  const events = [...sse.push(stream.text), ...sse.end()].map((e) => JSON.parse(e.data) as { id: number });
  tt.ok(events.length >= 4, `SSE events over h2 (${events.length})`);
  tt.ok(
    events.every((e) => e.id === 1),
    'each a JSON-RPC response to the call',
  );
  session.close();

  const h1 = new Client(front.httpUrl, {
    connect: { ca: pem('ca.pem'), cert: pem('client.pem'), key: pem('client-key.pem') },
  });
  const res = await h1.request({ method: 'GET', path: '/.well-known/agent-card.json' });
  tt.equal(res.statusCode, 200, 'HTTP/1.1 over TLS');
  const card = (await res.body.json()) as { supportedInterfaces: Array<{ url: string; protocolBinding: string }> };
  tt.match(
    card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC')?.url,
    /^https:\/\//,
    'the served card advertises https',
  );
  await h1.close();

  for (const [what, connect] of [
    ['no client certificate', { ca: pem('ca.pem') }],
    [
      'a certificate from another CA',
      { ca: pem('ca.pem'), cert: pem('rogue-client.pem'), key: pem('rogue-client-key.pem') },
    ],
  ] as const) {
    const c = new Client(front.httpUrl, { connect });
    await tt.rejects(
      c.request({ method: 'GET', path: '/.well-known/agent-card.json' }).then((r) => r.body.text()),
      `${what}: the handshake fails`,
    );
    await c.close();
  }
  const untrusting = new Client(front.httpUrl, { connect: { cert: pem('client.pem'), key: pem('client-key.pem') } });
  await tt.rejects(
    untrusting.request({ method: 'GET', path: '/' }),
    'a client without the CA does not trust the gateway',
  );
  await untrusting.close();
});

function grpcCall(address: string, creds: grpc.ChannelCredentials, text = 'hello'): Promise<grpc.ServiceError | null> {
  const client = new grpc.Client(address, creds);
  return new Promise((resolve) => {
    // SendMessageRequest { message (2) { message_id (1): "m", role (4): ROLE_USER, parts (5) { text (1) } } }
    const part = Buffer.concat([Buffer.from([0x0a, text.length]), Buffer.from(text)]);
    const msg = Buffer.concat([Buffer.from([0x0a, 0x01, 0x6d, 0x20, 0x01, 0x2a, part.length]), part]);
    const req = Buffer.concat([Buffer.from([0x12, msg.length]), msg]);
    const md = new grpc.Metadata();
    md.set('a2a-version', '1.0');
    client.makeUnaryRequest(
      '/lf.a2a.v1.A2AService/SendMessage',
      (b: Buffer) => b,
      (b: Buffer) => b,
      req,
      md,
      { deadline: Date.now() + 5000 },
      (err) => {
        client.close();
        resolve(err);
      },
    );
  });
}

t.test('gRPC listener over TLS, with the client certificate it requires', async (tt) => {
  const ok = await grpcCall(
    front.grpcAddress,
    grpc.credentials.createSsl(pem('ca.pem'), pem('client-key.pem'), pem('client.pem')),
  );
  tt.equal(ok, null, 'SendMessage over TLS with a client certificate');
  tt.equal(
    (await grpcCall(front.grpcAddress, grpc.credentials.createSsl(pem('ca.pem'))))?.code,
    GRPC_CODES.UNAVAILABLE,
    'without one: refused',
  );
  tt.equal(
    (await grpcCall(front.grpcAddress, grpc.credentials.createInsecure()))?.code,
    GRPC_CODES.UNAVAILABLE,
    'plaintext: refused',
  );
});

t.test('mTLS identity as an auth scheme', async (tt) => {
  const withCert = new Client(optional.httpUrl, {
    connect: { ca: pem('ca.pem'), cert: pem('client.pem'), key: pem('client-key.pem') },
  });
  const withoutCert = new Client(optional.httpUrl, { connect: { ca: pem('ca.pem') } });
  const call = (c: Client) =>
    c.request({
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: sendBody('who'),
    });
  const refused = await call(withoutCert);
  tt.equal(refused.statusCode, 401, 'no certificate: 401');
  tt.match(refused.headers['www-authenticate'], /ClientCertificate realm="mtls-auth"/);
  tt.match(await refused.body.json(), {
    error: { code: CATALOGUE.UNAUTHENTICATED.jsonRpc, message: /no verified client certificate/ },
  });
  const accepted = await call(withCert);
  tt.equal(accepted.statusCode, 200);
  tt.match(await accepted.body.json(), { result: { task: {} } });
  tt.ok(
    lines.some((l) => JSON.parse(l).caller === 'mtls:alice'),
    'the certificate subject is the caller identity',
  );
  await withCert.close();
  await withoutCert.close();
  tt.equal(
    await grpcCall(
      optional.grpcAddress,
      grpc.credentials.createSsl(pem('ca.pem'), pem('client-key.pem'), pem('client.pem')),
    ),
    null,
    'gRPC with a certificate',
  );
  tt.equal(
    (await grpcCall(optional.grpcAddress, grpc.credentials.createSsl(pem('ca.pem'))))?.code,
    GRPC_CODES.UNAUTHENTICATED,
    'gRPC without: UNAUTHENTICATED',
  );
});

t.test(
  'upstreams over https:// and grpcs:// with a custom CA and a client certificate, from every inbound binding',
  async (tt) => {
    for (const inbound of BINDINGS) {
      for (const up of BINDINGS) {
        const name = `out-${slug(up)}`;
        const r = await CALLERS[inbound](
          gw,
          'SendMessage',
          { message: userMessage('over tls') },
          { tenant: name, prefix: `/${name}` },
        );
        tt.ok(r.ok, `${inbound} → ${up} over TLS`);
      }
    }
    for (const name of ['sni-ok', 'sni-grpc']) {
      const r = await CALLERS.JSONRPC(
        gw,
        'SendMessage',
        { message: userMessage('sni') },
        { tenant: name, prefix: `/${name}` },
      );
      tt.ok(r.ok, `${name}: the servername override matches the agent's certificate`);
    }
  },
);

t.test('certificate failures: UPSTREAM_UNAVAILABLE in the caller binding, the reason logged', async (tt) => {
  const cases: Array<[string, RegExp]> = [
    ['no-ca', /self.signed|unable to (get|verify)|UNABLE_TO|certificate/i],
    // the front's TLS 1.3 alert, read by the gateway's gRPC client as a TLS failure (not any connection dropped)
    ['no-client-cert', /^upstream TLS failure: .*certificate.required/i],
    ['sni-missing', /altname|hostname|does not match|ERR_TLS_CERT_ALTNAME_INVALID/i],
  ];
  for (const inbound of BINDINGS) {
    for (const [name, why] of cases) {
      const r = await CALLERS[inbound](
        gw,
        'SendMessage',
        { message: userMessage('bad tls') },
        { tenant: name, prefix: `/${name}` },
      );
      const row = CATALOGUE.UPSTREAM_UNAVAILABLE;
      tt.equal(
        r.code,
        inbound === 'JSONRPC' ? row.jsonRpc : inbound === 'HTTP+JSON' ? row.http : GRPC_CODES.UNAVAILABLE,
        `${inbound} → ${name}: upstream unavailable`,
      );
      tt.match(r.message, why, `${inbound} → ${name}: the TLS reason is in the message`);
    }
  }
  const logged = lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.route === 'no-ca' && l.outcome === 'UPSTREAM_UNAVAILABLE');
  tt.ok(
    logged.length > 0 && logged.every((l) => /TLS|certificate/i.test(String(l.error))),
    'the log line carries the TLS reason',
  );
});

function servedSubject(address: string): Promise<string> {
  const [host, port] = [
    address.slice(0, address.lastIndexOf(':')),
    Number(address.slice(address.lastIndexOf(':') + 1)),
  ];
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host, port, servername: 'localhost', ca: pem('ca.pem'), ALPNProtocols: ['h2'] }, () => {
      const cn = s.getPeerCertificate().subject.CN;
      s.destroy();
      resolve(Array.isArray(cn) ? cn.join() : String(cn));
    });
    s.on('error', reject);
  });
}

t.test('certificates re-read on reload, for both listeners; unreadable files keep the old ones', async (tt) => {
  const dir = tt.testdir({
    'cert.pem': readFileSync(join(FIX, 'server.pem')),
    'key.pem': readFileSync(join(FIX, 'server-key.pem')),
  });
  const tls: ListenerTls = {
    cert: join(dir, 'cert.pem'),
    key: join(dir, 'key.pem'),
    clientCa: undefined,
    requireClientCert: false,
  };
  const config = gatewayConfig([{ name: 'r', ...toAgent }], { tls });
  const g: RunningGateway = await startGateway(config, pino({ level: 'silent' }));
  tt.teardown(() => g.close());
  const httpAddress = g.httpUrl.replace('https://', '');
  tt.equal(await servedSubject(httpAddress), 'localhost');
  tt.equal(await servedSubject(g.grpcAddress), 'localhost');
  copyFileSync(join(FIX, 'server2.pem'), join(dir, 'cert.pem'));
  copyFileSync(join(FIX, 'server2-key.pem'), join(dir, 'key.pem'));
  g.reload(config);
  tt.equal(await servedSubject(httpAddress), 'localhost (renewed)', 'HTTPS serves the renewed certificate');
  tt.equal(await servedSubject(g.grpcAddress), 'localhost (renewed)', 'gRPC serves the renewed certificate');
  writeFileSync(join(dir, 'key.pem'), 'not a key');
  g.reload({ ...config, tls: { ...tls, cert: join(dir, 'missing.pem') } });
  tt.equal(await servedSubject(httpAddress), 'localhost (renewed)', 'a failed reload keeps the certificates');
  tt.equal(await servedSubject(g.grpcAddress), 'localhost (renewed)', 'on the gRPC listener too');
});
