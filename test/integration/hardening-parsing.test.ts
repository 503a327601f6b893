// Request bodies from hostile callers. Issue 12 item 8: a body the caller
// sends without credentials to a route that authenticates is not parsed —
// REST routes are known from host and path, so the call is UNAUTHENTICATED
// before its body is read — and where the route is known only after parsing
// (JSON-RPC), the nesting depth is refused before JSON.parse sees the body.
// Item 15: a body over the size limit is read to its end and discarded, so a
// caller that writes its whole body before reading gets the 413, not a reset
// connection. Item 16: a body that is not JSON is the spec's
// ContentTypeNotSupportedError on both HTTP bindings.
import { connect } from 'node:net';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { CATALOGUE } from '../../src/errors/catalogue.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { gatewayConfig } from '../helpers/harness.js';

const agent = await startEchoAgent({ bindings: ['JSONRPC', 'HTTP+JSON'] });
const key = { apiKey: { name: 'X-API-Key', keys: [{ id: 'ops', key: 'a-long-enough-key' }] } };
const gw = await startGateway(
  gatewayConfig([
    { name: 'rest', match: { pathPrefix: '/rest' }, upstream: { url: agent.restUrl, binding: 'HTTP+JSON' }, auth: key },
    { name: 'rpc', match: { pathPrefix: '/rpc' }, upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' }, auth: key },
    { name: 'open', match: { pathPrefix: '/open' }, upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' } },
  ]),
  pino({ level: 'silent' }),
);

// Every JSON.parse in this process (the gateway runs in it) is watched for the nested bodies sent here.
const parse = JSON.parse;
const NESTED = '[[[[[[[[[[[[[[[[';
let parsedNested = 0;
JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
  if (typeof text === 'string' && text.includes(NESTED)) parsedNested++;
  return parse(text, reviver);
}) as typeof JSON.parse;
t.teardown(async () => {
  JSON.parse = parse;
  await gw.close();
  await agent.close();
});

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const reason = (details: unknown): unknown =>
  (details as JsonObject[] | undefined)?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo')?.reason;

t.test('a deeply nested body without credentials is refused by authentication, unparsed', async (tt) => {
  parsedNested = 0;
  const body = `{"message":${nested(1_000_000)}}`;
  const res = await request(`${gw.httpUrl}/rest/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body,
  });
  const json = (await res.body.json()) as { error: JsonObject };
  tt.equal(res.statusCode, 401, 'REST: 401');
  tt.equal(reason(json.error.details), 'UNAUTHENTICATED', 'UNAUTHENTICATED, not INVALID_PARAMS or PARSE_ERROR');
  tt.equal(parsedNested, 0, 'JSON.parse never saw the 2 MB body');
});

t.test('where the route is known only after parsing (JSON-RPC), depth is refused before JSON.parse', async (tt) => {
  for (const [depth, label] of [
    [100, 'a small body nested 100 deep'],
    [1_000_000, 'a 2 MB body nested a million deep'],
  ] as const) {
    parsedNested = 0;
    const body = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":${nested(depth)}}}`;
    const res = await request(`${gw.httpUrl}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body,
    });
    const err = ((await res.body.json()) as JsonObject).error as JsonObject;
    tt.equal(err.code, CATALOGUE.INVALID_PARAMS.jsonRpc, `${label}: INVALID_PARAMS`);
    tt.match(JSON.stringify(err.data), /nested deeper than 64/, `${label}: says why`);
    tt.equal(parsedNested, 0, `${label}: JSON.parse never saw it`);
  }
});

/** Writes the whole request and only then reads the answer (what a simple client does, curl among them). */
function writeThenRead(head: string, body: Buffer, chunked = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(gw.httpPort, '127.0.0.1');
    s.pause();
    let out = '';
    s.on('data', (d: Buffer) => (out += d.toString()));
    s.on('end', () => resolve(out));
    s.on('error', (e) => reject(e));
    const parts: Buffer[] = [Buffer.from(head)];
    if (chunked) {
      for (let i = 0; i < body.length; i += 1024 * 1024) {
        const part = body.subarray(i, i + 1024 * 1024);
        parts.push(Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n'));
      }
      parts.push(Buffer.from('0\r\n\r\n'));
    } else parts.push(body);
    // read only once the last byte was handed to the socket
    s.write(Buffer.concat(parts), (e) => (e ? reject(e) : s.resume()));
  });
}

t.test('a body over the limit: the caller that writes it all reads the 413', async (tt) => {
  const body = Buffer.alloc(12 * 1024 * 1024, 0x20);
  for (const [path, chunked] of [
    ['/open', false],
    ['/open', true],
    ['/rest/message:send', false],
  ] as const) {
    const head =
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n` +
      (chunked ? 'Transfer-Encoding: chunked\r\n\r\n' : `Content-Length: ${body.length}\r\n\r\n`);
    const answer = await writeThenRead(head, body, chunked);
    tt.match(answer, /^HTTP\/1\.1 413 /, `${path}${chunked ? ' (chunked)' : ''}: 413 read after writing 12 MiB`);
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as JsonObject;
    if (path === '/open')
      tt.equal((json.error as JsonObject).code, CATALOGUE.PAYLOAD_TOO_LARGE.jsonRpc, 'a JSON-RPC error');
    else tt.equal((json.error as JsonObject).status, 'RESOURCE_EXHAUSTED', 'a REST error');
  }
  const after = await request(`${gw.httpUrl}/open/.well-known/agent-card.json`);
  await after.body.dump();
  tt.equal(after.statusCode, 200, 'and the gateway keeps serving');
});

t.test('a body that is not JSON: ContentTypeNotSupportedError on both HTTP bindings', async (tt) => {
  const rpc = await request(`${gw.httpUrl}/open`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'a2a-version': '1.0' },
    body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}',
  });
  const rpcErr = ((await rpc.body.json()) as JsonObject).error as JsonObject;
  tt.equal(rpcErr.code, -32005, 'JSON-RPC -32005');
  tt.match(
    (rpcErr.data as JsonObject[])[0],
    { reason: 'CONTENT_TYPE_NOT_SUPPORTED', domain: 'a2a-protocol.org' },
    'ErrorInfo CONTENT_TYPE_NOT_SUPPORTED, domain a2a-protocol.org',
  );
  const rest = await request(`${gw.httpUrl}/rest/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'a2a-version': '1.0', 'x-api-key': 'a-long-enough-key' },
    body: '{}',
  });
  const restErr = ((await rest.body.json()) as { error: JsonObject }).error;
  tt.same([rest.statusCode, restErr.status], [400, 'INVALID_ARGUMENT'], 'REST 400 INVALID_ARGUMENT (spec §5.4)');
  tt.equal(reason(restErr.details), 'CONTENT_TYPE_NOT_SUPPORTED', 'ErrorInfo CONTENT_TYPE_NOT_SUPPORTED');
});
