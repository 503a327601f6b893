// The public HTTP listener's edge against requests other readers could take
// otherwise (raw HTTP/1.1, exact bytes):
// - a body in a coding the gateway does not decode (Content-Encoding gzip, a
//   transfer coding other than chunked) is refused, never read or forwarded
//   as plain JSON;
// - Expect: 100-continue: a declared body over the limit is refused at once,
//   before the caller sends it (it was granted 100 Continue and refused only
//   after the lingering read); a body within it is asked for and served;
//   another expectation is not acted on (Node answered it 417 without a body);
// - CONNECT is METHOD_NOT_FOUND in the REST form (Node closed the connection
//   without a word); a CONNECT caller that resets or keeps its side open
//   neither ends the process nor holds its connection or the close;
// - two Host fields, or none in HTTP/1.1 (RFC 9112 §3.2), are an A2A 400:
//   Node keeps the first of two, and answered a missing one without a body;
// - no header is dropped unseen: past Node's default 2,000 headers, an
//   A2A-Version at the end still counts.
import { once } from 'node:events';
import { connect } from 'node:net';
import t from 'tap';
import { pino } from 'pino';
import { startGateway } from '../../src/server/gateway.js';
import { brokenHttp } from '../helpers/broken-upstreams.js';
import { gatewayConfig } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

const reached: string[] = [];
const agent = await brokenHttp((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    if (req.method === 'GET') return void res.writeHead(404).end();
    reached.push(body);
    const { id } = JSON.parse(body) as { id: unknown };
    const task = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id, result: task }));
  });
});
const gw = await startGateway(
  gatewayConfig([{ name: 'rpc', upstream: { url: agent.url, binding: 'JSONRPC' }, maxBodyBytes: 4096 }]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  await gw.close();
  await agent.close();
});

const getTask = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't' } });

/**
 * Sends `head` (the request line and headers, without the blank line), then `body` once `sendBody` says the bytes
 * read so far allow it; resolves with everything read when the gateway closes the connection or `done` says so.
 */
function exchange(
  head: string,
  body = '',
  sendBody: (soFar: string) => boolean = () => true,
  done: (soFar: string) => boolean = () => false,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let sent = false;
    const s = connect(gw.httpPort, '127.0.0.1', () => {
      s.write(`${head}\r\n\r\n`);
      if (sendBody('')) {
        sent = true;
        s.write(body);
      }
    });
    s.on('data', (d: Buffer) => {
      out += d.toString();
      if (!sent && sendBody(out)) {
        sent = true;
        s.write(body);
      }
      if (done(out)) s.destroy();
    });
    s.on('close', () => resolve(out));
    s.on('error', reject);
  });
}
const statusLine = (out: string): string => out.split('\r\n')[0] ?? '';

t.test('a body in a coding the gateway does not decode is refused, not forwarded', async (tt) => {
  reached.length = 0;
  for (const coding of ['Content-Encoding: gzip', 'Content-Encoding: deflate, identity']) {
    const out = await exchange(
      `POST / HTTP/1.1\r\nHost: a\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\n${coding}\r\nContent-Length: ${getTask.length}\r\nConnection: close`,
      getTask,
    );
    tt.match(out, /-32005|CONTENT_TYPE_NOT_SUPPORTED/, `${coding}: ContentTypeNotSupported`);
  }
  const chunk = `${getTask.length.toString(16)}\r\n${getTask}\r\n0\r\n\r\n`;
  const te = await exchange(
    'POST / HTTP/1.1\r\nHost: a\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\nConnection: close',
    chunk,
  );
  tt.match(te, /-32005|CONTENT_TYPE_NOT_SUPPORTED/, 'Transfer-Encoding gzip, chunked: refused');
  tt.same(reached, [], 'nothing reached the agent');
  const plain = await exchange(
    `POST / HTTP/1.1\r\nHost: a\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Encoding: identity\r\nContent-Length: ${getTask.length}\r\nConnection: close`,
    getTask,
  );
  tt.match(statusLine(plain), /200/, 'identity is plain');
});

t.test('Expect: 100-continue', async (tt) => {
  reached.length = 0;
  const huge = await exchange(
    'POST / HTTP/1.1\r\nHost: a\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: 1073741824\r\nExpect: 100-continue',
    '',
    () => false, // the caller waits for 100 Continue, as it should
  );
  tt.match(statusLine(huge), /^HTTP\/1\.1 413 /, 'over the limit: 413 at once, no 100 Continue first');
  tt.match(huge, /\r\nconnection: close\r\n/i, 'and the connection is not kept');
  const small = await exchange(
    `POST / HTTP/1.1\r\nHost: a\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: ${getTask.length}\r\nExpect: 100-continue`,
    getTask,
    (soFar) => soFar.startsWith('HTTP/1.1 100 Continue\r\n\r\n'),
    (soFar) => soFar.includes('"result"'),
  );
  tt.match(small, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /, 'within it: 100 Continue, then the answer');
  tt.equal(reached.length, 1, 'the body reached the agent');
  const listed = await exchange(
    `POST / HTTP/1.1\r\nHost: a\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: ${getTask.length}\r\nExpect: 100-continue, x-other`,
    getTask,
    (soFar) => soFar.startsWith('HTTP/1.1 100 Continue\r\n\r\n'),
    (soFar) => soFar.includes('"result"'),
  );
  tt.match(listed, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /, '100-continue in a list: the same');
  const other = await exchange(
    `POST / HTTP/1.1\r\nHost: a\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: ${getTask.length}\r\nExpect: x-other\r\nConnection: close`,
    getTask,
  );
  tt.match(statusLine(other), /^HTTP\/1\.1 200 /, 'another expectation: served as if it named none (nginx, Envoy)');
  tt.match(other, /"result"/);
  tt.equal(reached.length, 3, 'and its body reached the agent');
});

t.test('CONNECT: METHOD_NOT_FOUND in the REST form, and the connection closes', async (tt) => {
  reached.length = 0;
  const out = await exchange('CONNECT agent.example:443 HTTP/1.1\r\nHost: agent.example:443');
  tt.match(statusLine(out), /^HTTP\/1\.1 501 /);
  tt.match(out, /\r\nconnection: close\r\n/i);
  const body = JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4)) as { error: { code: number; message: string } };
  tt.equal(body.error.code, 501);
  tt.match(body.error.message, /CONNECT/);
  tt.same(reached, [], 'nothing reached the agent');
  const after = await exchange(
    `POST / HTTP/1.1\r\nHost: a\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: ${getTask.length}\r\nConnection: close`,
    getTask,
  );
  tt.match(statusLine(after), /200/, 'the gateway keeps serving');
});

t.test('a CONNECT caller that resets, or keeps its side open, neither ends nor holds the gateway', async (tt) => {
  // reset right after the request (with more bytes behind it): the handed-over socket's error is handled (unhandled,
  // it would end this process)
  const reset = connect(gw.httpPort, '127.0.0.1');
  reset.on('error', () => undefined);
  await once(reset, 'connect');
  reset.write(`CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n${'x'.repeat(100_000)}`);
  reset.resetAndDestroy();
  const after = await exchange(
    `POST / HTTP/1.1\r\nHost: a\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: ${getTask.length}\r\nConnection: close`,
    getTask,
  );
  tt.match(statusLine(after), /200/, 'the gateway keeps serving');
  // a gateway of its own, closed while a CONNECT caller keeps its side of the connection open
  const own = await startGateway(
    gatewayConfig([{ name: 'rpc', upstream: { url: agent.url, binding: 'JSONRPC' } }]),
    pino({ level: 'silent' }),
  );
  const half = connect({ port: own.httpPort, host: '127.0.0.1', allowHalfOpen: true });
  half.on('error', () => undefined);
  let got = '';
  half.on('data', (d: Buffer) => (got += d.toString()));
  half.write('CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n');
  await once(half, 'end');
  tt.match(statusLine(got), /^HTTP\/1\.1 501 /, 'answered, then the gateway ends its side');
  let closed = false;
  void own.close().then(() => (closed = true));
  await waitFor(() => closed, 'the gateway to close with the caller still half-open');
  half.destroy();
});

t.test('two Host fields are a 400', async (tt) => {
  reached.length = 0;
  const out = await exchange(
    `POST / HTTP/1.1\r\nHost: a\r\nHost: b\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: ${getTask.length}\r\nConnection: close`,
    getTask,
  );
  tt.match(statusLine(out), /^HTTP\/1\.1 400 /);
  tt.match(out, /more than one host/);
  tt.same(reached, [], 'nothing reached the agent');
});

t.test('an HTTP/1.1 request without Host: an A2A 400, as over TLS', async (tt) => {
  reached.length = 0;
  const out = await exchange(
    `POST / HTTP/1.1\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: ${getTask.length}\r\nConnection: close`,
    getTask,
  );
  tt.match(statusLine(out), /^HTTP\/1\.1 400 /);
  tt.match(out, /must name its host/, 'saying why, in a body');
  tt.same(reached, [], 'nothing reached the agent');
  const old = await exchange(
    `POST / HTTP/1.0\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: ${getTask.length}`,
    getTask,
  );
  tt.match(statusLine(old), /200/, 'HTTP/1.0 has no Host to name');
});

t.test('a header after 2,000 others still counts', async (tt) => {
  const pad = Array.from({ length: 2100 }, () => 'a: 1').join('\r\n');
  const out = await exchange(
    `POST / HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: ${getTask.length}\r\nConnection: close\r\n${pad}\r\nA2A-Version: 1.0`,
    getTask,
  );
  tt.match(statusLine(out), /200/);
  tt.match(out, /"result"/, 'read as the 1.0 call it is (dropped, A2A-Version would have made it a 0.3 one)');
});
