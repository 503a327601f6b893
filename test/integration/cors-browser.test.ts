// CORS for browser A2A clients (issue 15 item 3), in a real browser: Debian's
// Chromium (installed by .ci/run), driven by playwright-core. A page served
// from another origin calls SendMessage over JSON-RPC (a preflighted request:
// it sends A2A-Version) and reads a REST stream through the gateway with
// fetch; a route without `cors` stays closed to it. The preflight and the
// headers are also checked on the wire.
import { createServer } from 'node:http';
import t from 'tap';
import { pino } from 'pino';
import type { Browser } from 'playwright-core';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import { launchChromium } from '../helpers/browser.js';
import { gatewayConfig } from '../helpers/harness.js';

const page = createServer((_req, res) =>
  res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>a2a app</title>'),
);
await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
const pageOrigin = `http://127.0.0.1:${(page.address() as { port: number }).port}`;
const agent = await startEchoAgent({ bindings: ['JSONRPC', 'HTTP+JSON'] });
const gw = await startGateway(
  gatewayConfig([
    {
      name: 'open',
      match: { pathPrefix: '/open' },
      upstream: { url: agent.restUrl, binding: 'HTTP+JSON' },
      cors: { allowOrigins: [pageOrigin], maxAgeSeconds: 60 },
    },
    { name: 'closed', match: { pathPrefix: '/closed' }, upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' } },
  ]),
  pino({ level: 'silent' }),
);
let browser: Browser | undefined;
t.teardown(async () => {
  await browser?.close();
  await gw.close();
  await agent.close();
  await new Promise<void>((r) => page.close(() => r()));
});

t.test('the preflight on the wire', async (tt) => {
  const ask = (path: string, origin: string) =>
    request(`${gw.httpUrl}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'a2a-version, content-type',
      },
    });
  const ok = await ask('/open', pageOrigin);
  await ok.body.dump();
  tt.equal(ok.statusCode, 204, 'an allowed origin: 204');
  tt.equal(ok.headers['access-control-allow-origin'], pageOrigin, 'the origin allowed');
  tt.match(
    String(ok.headers['access-control-allow-headers']),
    /a2a-version.*a2a-extensions.*authorization.*content-type/,
    'the A2A headers allowed',
  );
  tt.equal(ok.headers['access-control-max-age'], '60', 'the preflight cache');
  const other = await ask('/open', 'https://evil.example');
  await other.body.dump();
  tt.notOk(other.headers['access-control-allow-origin'], 'another origin: no allow header');
  const closed = await ask('/closed', pageOrigin);
  await closed.body.dump();
  tt.notOk(closed.headers['access-control-allow-origin'], 'a route without cors: closed');
});

t.test('a page on another origin calls SendMessage and a stream with fetch', async (tt) => {
  browser = await launchChromium();
  const tab = await browser.newPage();
  // tsx (esbuild, keepNames) compiles this file: the function handed to evaluate() calls its __name helper
  await tab.addInitScript({ content: 'window.__name = (f) => f;' });
  await tab.goto(pageOrigin);
  const out = await tab.evaluate(async (gw: string) => {
    const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };
    const message = (text: string) => ({ messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] });
    const rpc = await fetch(`${gw}/open`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: message('from the browser') },
      }),
    });
    const answer = await rpc.json();
    const stream = await fetch(`${gw}/open/message:stream`, {
      method: 'POST',
      headers: { ...headers, accept: 'text/event-stream' },
      body: JSON.stringify({ message: message('stream') }),
    });
    const text = await stream.text();
    let closed = '';
    try {
      await fetch(`${gw}/closed`, { method: 'POST', headers, body: '{}' });
    } catch (e) {
      closed = String(e);
    }
    return {
      answer,
      requestId: rpc.headers.get('x-request-id'),
      events: text.split('\n').filter((l) => l.startsWith('data:')).length,
      closed,
    };
  }, gw.httpUrl);
  tt.match(
    out.answer,
    { result: { task: { status: { state: 'TASK_STATE_COMPLETED' } } } },
    'SendMessage answered in the browser',
  );
  tt.ok(out.requestId, 'X-Request-Id readable by the page (exposed)');
  tt.ok(out.events >= 3, `the stream's events arrived (${out.events})`);
  tt.match(out.closed, /Failed to fetch|TypeError/, 'the route without cors refused the page');
});
