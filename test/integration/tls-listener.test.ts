// The HTTPS listener (§7.1: node:http2's secure server, h2 and HTTP/1.1 by
// ALPN) as the plain one behaves: headers that never finish over TLS
// HTTP/1.1 get 408 within limits.headersTimeoutMs; an h2 caller that resets
// its stream drops the agent's request; HEAD gets the head only; JSON answers
// name their media type without a charset (RFC 8259 defines none); CONNECT
// and Expect other than 100-continue get what the plain listener gives; a caller
// gone mid-body is logged as CANCELLED; and close() ends a connection that
// never finished its TLS handshake instead of waiting for Node's 120 s
// handshake timeout.
import { readFileSync } from 'node:fs';
import { connect as h2connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { pino } from 'pino';
import t from 'tap';
import { DEFAULT_LIMITS } from '../../src/config/types.js';
import { startGateway } from '../../src/server/gateway.js';
import { holdingAgent } from '../helpers/broken-upstreams.js';
import { gatewayConfig } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

const FIX = new URL('../fixtures/tls/', import.meta.url).pathname;
const ca = readFileSync(join(FIX, 'ca.pem'));

/** The agent holds every request but "quick"'s, and counts those the gateway dropped. */
const agent = await holdingAgent();
const held = agent.held;
const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(c: Buffer, _e, cb) {
    for (const l of c.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
    cb();
  },
});
const gw = await startGateway(
  // (the route's timeout far above any wait here: only the caller's reset may end a held call)
  gatewayConfig([{ name: 'r', upstream: { url: agent.url, binding: 'JSONRPC' }, timeoutMs: 300_000 }], {
    tls: {
      cert: join(FIX, 'server.pem'),
      key: join(FIX, 'server-key.pem'),
      clientCa: undefined,
      requireClientCert: false,
    },
    limits: { ...DEFAULT_LIMITS, headersTimeoutMs: 400 },
  }),
  pino({ level: 'info' }, sink),
);
const session: ClientHttp2Session = h2connect(gw.httpUrl, { ca });
t.teardown(async () => {
  session.close();
  await gw.close();
  await agent.close();
});

/** An h2 request: its head and body once ended. */
function h2(headers: Record<string, string>, body?: string): Promise<{ head: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = session.request(headers);
    let head: IncomingHttpHeaders = {};
    let text = '';
    req.on('response', (h) => (head = h));
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => resolve({ head, body: text }));
    req.on('error', reject);
    req.end(body);
  });
}
/** A TLS connection to the gateway that speaks HTTP/1.1 (ALPN). */
const h1tls = () =>
  tlsConnect({ port: gw.httpPort, host: '127.0.0.1', ca, servername: 'localhost', ALPNProtocols: ['http/1.1'] });
/** Writes `bytes` on a TLS HTTP/1.1 connection; everything read until the gateway closes it. */
const h1tlsExchange = (bytes: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const s = h1tls();
    let got = '';
    s.on('secureConnect', () => s.write(bytes));
    s.on('data', (d: Buffer) => (got += d.toString()));
    s.on('error', reject);
    s.on('close', () => resolve(got));
  });
const getTask = (id: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } });
const rpcHead = { ':method': 'POST', ':path': '/', 'content-type': 'application/json', 'a2a-version': '1.0' };

// Node checks a connection's headers on an interval (30 s unless set): the test's own bound is half that, so a
// listener left on Node's interval fails it, one that checks a few times per headersTimeoutMs (400 ms) does not.
t.test(
  'TLS HTTP/1.1: headers that never finish get 408 REQUEST_TIMEOUT, then the connection closes',
  { timeout: 15_000 },
  async (t) => {
    const answer = await h1tlsExchange('GET /.well-known/agent-card.json HTTP/1.1\r\nHost: a\r\n');
    t.match(answer, /^HTTP\/1\.1 408 /, '408');
    t.match(answer, /REQUEST_TIMEOUT/, 'an A2A error');
  },
);

t.test('h2: JSON answers name their media type without a charset; HEAD gets the head only', async (t) => {
  const rpc = await h2(rpcHead, getTask('quick'));
  t.equal(rpc.head[':status'], 200);
  t.equal(rpc.head['content-type'], 'application/json', 'JSON-RPC: application/json as it is');
  const rest = await h2({ ':method': 'GET', ':path': '/tasks/quick', 'a2a-version': '1.0' });
  t.equal(rest.head['content-type'], 'application/a2a+json', 'REST: application/a2a+json as it is');
  const head = await h2({ ':method': 'HEAD', ':path': '/healthz' });
  t.equal(head.head[':status'], 200);
  t.equal(head.head['content-length'], String('{"status":"ok"}'.length), "the GET's length");
  t.equal(head.body, '', 'no body');
});

t.test(
  'h2: CONNECT is METHOD_NOT_FOUND in the REST form; another expectation than 100-continue is served',
  async (t) => {
    const connect = await h2({ ':method': 'CONNECT', ':authority': 'agent.example:443' });
    t.equal(connect.head[':status'], 501, 'not the bodiless 405 Node answered');
    t.equal(connect.head['content-type'], 'application/a2a+json');
    t.match(connect.head['x-request-id'], /^[\w-]{8,}$/, 'named as every answer is (the handler refused it)');
    await waitFor(
      () => lines.find((l) => l.outcome === 'METHOD_NOT_FOUND' && l.requestId === connect.head['x-request-id']),
      'its access line',
    );
    t.match(JSON.parse(connect.body), { error: { code: 501, message: /CONNECT/ } });
    const other = await h2({ ...rpcHead, expect: 'x-other' }, getTask('quick'));
    t.equal(other.head[':status'], 200, 'not the bodiless 417 Node answered');
    t.match(other.body, /"result"/);
    // HTTP/1.1 over TLS: the same answer as on the plain listener
    const h1 = await h1tlsExchange('CONNECT agent.example:443 HTTP/1.1\r\nHost: agent.example:443\r\n\r\n');
    t.match(h1, /^HTTP\/1\.1 501 [^]*\r\n\r\n\{"error":\{"code":501,[^]*CONNECT/, 'TLS HTTP/1.1 CONNECT: the same');
  },
);

t.test("h2: a caller that resets its stream drops the agent's request", async (t) => {
  const before = agent.dropped();
  const req = session.request(rpcHead);
  req.on('error', () => {});
  req.end(getTask('hold-h2'));
  await waitFor(() => held.size === 1, 'the call open at the agent');
  req.close(8); // NGHTTP2_CANCEL
  await waitFor(() => agent.dropped() === before + 1, "the agent's request dropped");
  t.equal(held.size, 0, 'nothing left open at the agent');
  t.equal((await h2(rpcHead, getTask('quick'))).head[':status'], 200, 'the gateway keeps serving');
});

t.test('a caller gone mid-body is logged as CANCELLED (499)', async (t) => {
  const s = h1tls();
  s.on('error', () => {});
  await new Promise((r) => s.once('secureConnect', r));
  // "100 Continue" comes once the listener has taken the request (it reads the body from then on)
  const continued = new Promise((r) => s.once('data', r));
  s.write('POST / HTTP/1.1\r\nHost: a\r\ncontent-type: application/json\r\nx-request-id: gone-mid-body\r\n');
  s.write('expect: 100-continue\r\ncontent-length: 100\r\n\r\n');
  await continued;
  s.end('{"jsonrpc":');
  s.destroy();
  const line = await waitFor(() => lines.find((l) => l.requestId === 'gone-mid-body'), 'its access line');
  t.equal(line.outcome, 'CANCELLED');
  t.equal(line.status, 499);
});

// last: it closes the gateway
t.test('close() ends a connection that never finished its TLS handshake', async (t) => {
  const raw = tcpConnect(gw.httpPort, '127.0.0.1');
  raw.on('error', () => {});
  await new Promise((r) => raw.once('connect', r));
  const closed = new Promise((r) => raw.once('close', r));
  await gw.close();
  await closed;
  t.pass('closed, and the gateway with it');
});
