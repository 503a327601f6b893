// How an HTTP pass-through relays a unary answer (upstream/http-forward.ts):
// a small answer of declared length comes back whole, a large or unsized one
// is piped as it comes; either way the caller gets the agent's bytes, status
// and content type as they were sent (none, or one fastify would not take,
// included). An answer that breaks off after its head is the agent's
// connection dropped mid-answer (not a reset before the request was
// delivered). A caller that goes away in the middle
// of a piped answer drops the agent's answer too, and the call's unit of the
// origin's budget comes back (with a budget of one call, the next call goes
// through). An answer over the route's maxResponseBytes is refused when its
// length says so and cut on the way when it does not.
import type { ServerResponse } from 'node:http';
import t from 'tap';
import { request } from 'undici';
import { DEFAULT_LIMITS } from '../../src/config/types.js';
import { startGateway } from '../../src/server/gateway.js';
import { jsonRpcAgent } from '../helpers/broken-upstreams.js';
import { gatewayConfig } from '../helpers/harness.js';

/** A JSON-RPC answer whose task id is `size` bytes of `fill`. */
const answer = (size: number, fill: string): string =>
  `{"jsonrpc":"2.0","id":1,"result":{"id":"${fill.repeat(size)}","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}`;

let dropped!: () => void;
const droppedOnce = new Promise<void>((r) => (dropped = r));

/** Writes until the reader goes away (with backpressure). */
function endless(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"jsonrpc":"2.0","id":1,"result":{"id":"');
  const chunk = 'y'.repeat(64 * 1024);
  const pump = (): void => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', pump);
  };
  res.on('close', () => dropped());
  pump();
}

const sent = new Map<string, string>([
  ['small', answer(100, 's')],
  ['large', answer(1024 * 1024, 'l')],
  ['chunked', answer(200, 'c')],
  ['error', '{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}'],
]);

/** An answer over the route's maxResponseBytes (2 MiB). */
const huge = answer(3 * 1024 * 1024, 'h');

const agent = await jsonRpcAgent((body, res) => {
  const which = body.params.id;
  if (which === 'huge')
    return void res
      .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(huge) })
      .end(huge);
  if (which === 'huge-chunked') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(huge.slice(0, 1000)); // no content-length: the cap is met on the way
    return void res.end(huge.slice(1000));
  }
  if (which === 'endless') return endless(res);
  if (which === 'untyped' || which === 'odd-type') {
    // no content type, or one that is no type/subtype; and a 2xx status fastify's reply would not take as it is
    const head = which === 'untyped' ? {} : { 'content-type': 'json' };
    return void res.writeHead(299, head).end('{"jsonrpc":"2.0","id":1,"result":{}}');
  }
  if (which === 'cut') {
    // a head that promises 100 bytes, 40 of them, then the connection closes
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    return void res.write('{"jsonrpc":"2.0","id":1,"result":{"id":"', () => res.socket?.destroy());
  }
  const text = sent.get(which)!;
  if (which === 'chunked') {
    // no content-length: the answer comes in pieces (chunked transfer coding)
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-agent': 'kept out' });
    res.write(text.slice(0, 50));
    res.write(text.slice(50, 120));
    return void res.end(text.slice(120));
  }
  res.writeHead(which === 'error' ? 404 : 200, { 'content-type': 'application/json', etag: `"${which}"` });
  res.end(text);
});

const gw = await startGateway(
  gatewayConfig(
    [{ name: 'pt', upstream: { url: agent.url, binding: 'JSONRPC' }, passThrough: true, maxResponseBytes: 2 ** 21 }],
    {
      limits: { ...DEFAULT_LIMITS, upstreamConnections: 1 },
    },
  ),
);
t.teardown(async () => {
  await gw.close();
  await agent.close();
});

const call = (id: string) =>
  request(`${gw.httpUrl}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } }),
  });

t.test('each answer comes back as the agent sent it, whole or piped', async (t) => {
  for (const [which, text] of sent) {
    const res = await call(which);
    t.equal(await res.body.text(), text, `${which}: the agent's bytes`);
    t.equal(res.statusCode, which === 'error' ? 404 : 200, `${which}: the agent's status`);
    const type = which === 'chunked' ? 'application/json; charset=utf-8' : 'application/json';
    t.equal(res.headers['content-type'], type, `${which}: the agent's content type`);
    if (which !== 'chunked') t.equal(res.headers.etag, `"${which}"`, `${which}: its etag passed back`);
    t.equal(res.headers['x-agent'], undefined, `${which}: other agent headers stay behind`);
    t.ok(res.headers['x-request-id'], `${which}: the gateway's request id`);
  }
});

t.test("an answer's head is the agent's: no content type, or one fastify would not take, and a 299", async (t) => {
  for (const [which, type] of [
    ['untyped', undefined],
    ['odd-type', 'json'],
  ] as const) {
    const res = await call(which);
    t.equal(res.statusCode, 299, `${which}: the agent's status`);
    t.equal(res.headers['content-type'], type, `${which}: the agent's content type as sent`);
    t.equal(await res.body.text(), '{"jsonrpc":"2.0","id":1,"result":{}}', `${which}: its bytes`);
  }
});

t.test('an answer that breaks off after its head: the agent dropped the connection mid-answer', async (t) => {
  const res = await call('cut');
  const body = (await res.body.json()) as { error: { message: string } };
  t.ok(body.error, 'a JSON-RPC error');
  t.match(body.error.message, /dropped mid-stream/, 'not "unreachable": the agent had the request');
});

t.test('a caller gone mid-answer drops the agent answer and frees its budget', async (t) => {
  const res = await call('endless');
  t.equal(res.statusCode, 200);
  // the first bytes arrive, then the caller goes away
  for await (const chunk of res.body) {
    t.ok((chunk as Buffer).length > 0, 'bytes came');
    break;
  }
  await droppedOnce;
  t.pass("the agent's answer was dropped");
  // the budget (one call in flight to this agent) was given back: the next call is served
  const next = await call('small');
  t.equal(await next.body.text(), sent.get('small'), 'the next call goes through');
});

t.test("an answer over the route's maxResponseBytes: refused when declared, cut when it comes in pieces", async (t) => {
  const declared = await call('huge');
  const body = (await declared.body.json()) as { error: { code: number; message: string } };
  t.equal(body.error.code, -32006, 'INVALID_AGENT_RESPONSE, before any of it is passed on');
  t.match(body.error.message, /exceeds maxResponseBytes \(2097152 bytes\)/);
  const pieces = await call('huge-chunked');
  t.equal(pieces.statusCode, 200, 'its head was passed on');
  let bytes = 0;
  const ended = await (async () => {
    for await (const chunk of pieces.body) bytes += (chunk as Buffer).length;
  })().then(
    () => 'complete',
    () => 'cut',
  );
  t.equal(ended, 'cut', 'the answer is cut, not ended as if whole');
  t.ok(bytes <= 2 ** 21, `at most maxResponseBytes passed on (${bytes})`);
  const next = await call('small');
  t.equal(await next.body.text(), sent.get('small'), 'the budget came back: the next call goes through');
});
