// Reloads of listen.tls (src/tls/listener-certificates.ts) beyond renewed
// files (tls.test.ts): the client-certificate settings (clientCa,
// requireClientCert) follow a reload on the HTTPS and the gRPC listener for
// new connections — turned on, required → optional, turned off (then no
// certificate is asked for, so none is checked against the system's CAs);
// files that read but cannot be used (a key that does not match the
// certificate, a certificate that is no PEM, a client CA with no certificate
// in it) keep the previous certificates and settings, logged, while the rest
// of the reload (a new route) applies.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import t from 'tap';
import { Client } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import type { ListenerTls } from '../../src/config/types.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import { gatewayConfig, userMessage } from '../helpers/harness.js';
import { TLS_FIXTURES as FIX } from '../helpers/client-cert-files.js';

const pem = (f: string): Buffer => readFileSync(join(FIX, f));
const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(c: Buffer, _e, cb) {
    for (const l of c.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
    cb();
  },
});
const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
t.teardown(() => agent.close());
const route = (name: string) => ({
  name,
  match: { pathPrefix: `/${name}` },
  upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const },
});

/** A client certificate signed by the listener's CA ("client", alice) or by another CA ("rogue-client"). */
type Cert = 'client' | 'rogue-client' | undefined;

/** GET /healthz over a new HTTPS connection: the status, or "refused" when the TLS handshake or connection failed. */
async function https(g: RunningGateway, cert: Cert): Promise<number | 'refused'> {
  const c = new Client(g.httpUrl, {
    connect: {
      ca: pem('ca.pem'),
      servername: 'localhost',
      ...(cert ? { cert: pem(`${cert}.pem`), key: pem(`${cert}-key.pem`) } : {}),
    },
  });
  try {
    const res = await c.request({ method: 'GET', path: '/healthz' });
    await res.body.text();
    return res.statusCode;
  } catch {
    return 'refused';
  } finally {
    await c.close();
  }
}

/** A gRPC health check over a new channel of its own: the status code (0: OK; UNAVAILABLE: refused). */
function grpcCheck(g: RunningGateway, cert: Cert): Promise<grpc.status> {
  const creds = cert
    ? grpc.credentials.createSsl(pem('ca.pem'), pem(`${cert}-key.pem`), pem(`${cert}.pem`))
    : grpc.credentials.createSsl(pem('ca.pem'));
  const client = new grpc.Client(g.grpcAddress, creds, { 'grpc.use_local_subchannel_pool': 1 });
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      '/grpc.health.v1.Health/Check',
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.alloc(0),
      { deadline: Date.now() + 10_000 },
      (err) => {
        client.close();
        resolve(err ? err.code : grpc.status.OK);
      },
    );
  });
}

/** The subject CN a new TLS connection to `port` is served. */
function servedSubject(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: '127.0.0.1', port, servername: 'localhost', ca: pem('ca.pem') }, () => {
      resolve(String(s.getPeerCertificate().subject.CN));
      s.destroy();
    });
    s.on('error', reject);
  });
}

t.test('client-certificate settings changed by a reload apply to both listeners', async (tt) => {
  const base = { cert: join(FIX, 'server.pem'), key: join(FIX, 'server-key.pem') };
  const config = (clientCa: string | undefined, requireClientCert: boolean) =>
    gatewayConfig([route('r')], {
      tls: { ...base, clientCa: clientCa && join(FIX, clientCa), requireClientCert },
    });
  const g = await startGateway(config(undefined, false), pino({ level: 'info' }, sink));
  tt.teardown(() => g.close());
  tt.equal(await https(g, undefined), 200, 'at start: no client certificate asked for');
  tt.equal(await grpcCheck(g, undefined), grpc.status.OK);

  g.reload(config('ca.pem', true));
  tt.equal(await https(g, undefined), 'refused', 'required: HTTPS refuses a caller without a certificate');
  tt.equal(await https(g, 'rogue-client'), 'refused', 'required: and one from another CA');
  tt.equal(await https(g, 'client'), 200, 'required: one from the client CA is admitted');
  tt.equal(await grpcCheck(g, undefined), grpc.status.UNAVAILABLE, 'required: gRPC refuses a caller without one');
  tt.equal(await grpcCheck(g, 'client'), grpc.status.OK, 'required: gRPC admits one from the client CA');
  tt.match(
    [...lines].reverse().find((l) => l.msg === 'TLS certificates reloaded'),
    { clientCertificates: 'required' },
    'logged',
  );

  g.reload(config('ca.pem', false));
  tt.equal(await https(g, undefined), 200, 'optional: HTTPS admits a caller without a certificate');
  tt.equal(await grpcCheck(g, undefined), grpc.status.OK, 'optional: so does gRPC');
  tt.equal(await https(g, 'client'), 200);

  g.reload(config(undefined, false));
  tt.equal(await https(g, undefined), 200, 'clientCa removed: no certificate asked for');
  tt.equal(await https(g, 'client'), 200, 'a certificate is not asked for, so not checked');
  tt.equal(await https(g, 'rogue-client'), 200, '(against any CA)');
  tt.equal(await grpcCheck(g, undefined), grpc.status.OK);
  tt.notOk(
    lines.some((l) => (l.level as number) >= 40),
    'nothing warned: every change applied',
  );
});

t.test('files that read but cannot be used keep the previous ones; the rest of the reload applies', async (tt) => {
  const dir = tt.testdir({ 'cert.pem': pem('server.pem'), 'key.pem': pem('server-key.pem'), 'ca.pem': 'no CA' });
  const tls: ListenerTls = {
    cert: join(dir, 'cert.pem'),
    key: join(dir, 'key.pem'),
    clientCa: undefined,
    requireClientCert: false,
  };
  const routes = [route('r')];
  const g = await startGateway(gatewayConfig(routes, { tls }), pino({ level: 'info' }, sink));
  tt.teardown(() => g.close());
  const send = async (prefix: string) => {
    const c = new Client(g.httpUrl, { connect: { ca: pem('ca.pem'), servername: 'localhost' } });
    const res = await c.request({
      method: 'POST',
      path: prefix,
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('hi') } }),
    });
    const body = (await res.body.json()) as { result?: unknown };
    await c.close();
    return body.result !== undefined;
  };
  const cases: Array<[string, () => void, Partial<ListenerTls>, RegExp]> = [
    [
      'a key that does not match the certificate',
      () => copyFileSync(join(FIX, 'server2.pem'), tls.cert),
      {},
      /listen\.tls\.cert and listen\.tls\.key .*key values mismatch/,
    ],
    ['a certificate that is no PEM', () => writeFileSync(tls.cert, 'garbage'), {}, /no start line/],
    [
      'a client CA with no certificate in it',
      () => copyFileSync(join(FIX, 'server.pem'), tls.cert),
      { clientCa: join(dir, 'ca.pem'), requireClientCert: true },
      /listen\.tls\.clientCa: .*ca\.pem holds no PEM certificate/,
    ],
  ];
  for (const [what, spoil, change, logged] of cases) {
    const name = `extra-${routes.length}`;
    tt.notOk(await send(`/${name}`), `${what}: no route "${name}" before the reload`);
    routes.push(route(name));
    spoil();
    tt.doesNotThrow(() => g.reload(gatewayConfig(routes, { tls: { ...tls, ...change } })), `${what}: reloaded`);
    tt.equal(await servedSubject(g.httpPort), 'localhost', `${what}: HTTPS keeps its certificate`);
    tt.equal(await servedSubject(g.grpcPort), 'localhost', `${what}: gRPC keeps its certificate`);
    tt.equal(await https(g, undefined), 200, `${what}: and its client-certificate settings`);
    tt.ok(await send(`/${name}`), `${what}: the reload's new route answers`);
    tt.match(
      [...lines].reverse().find((l) => l.level === 50),
      { msg: /TLS reload failed; the listeners keep their previous certificates/, err: logged },
      `${what}: logged`,
    );
  }
  copyFileSync(join(FIX, 'server2.pem'), tls.cert);
  copyFileSync(join(FIX, 'server2-key.pem'), tls.key);
  g.reload(gatewayConfig(routes, { tls }));
  tt.equal(await servedSubject(g.httpPort), 'localhost (renewed)', 'usable files again: taken');
  tt.equal(await servedSubject(g.grpcPort), 'localhost (renewed)');
});
