// How an agent's stream may end or begin, through every inbound binding:
// - the body ends after the last event's `data:` line without its blank line:
//   the event is delivered (the SDK clients read it so; it was dropped, and a
//   terminal event lost behind a clean end); cut inside a data line, the
//   stream fails (INVALID_AGENT_RESPONSE), never a silent clean end;
// - an error status with an SSE body (HTTP 500, text/event-stream) is an
//   error, not a successful stream of its events;
// - a 0.3 agent's resubscribe to a quiet task (no event until the task moves,
//   so no first-event limit) gives an HTTP caller its answer's head after one
//   keep-alive period (sent then, not with the first keep-alive a period
//   later), not only when an event comes or the idle timeout ends it; on a
//   route with several endpoints, one that refuses the connection is failed
//   over as for any stream.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { CATALOGUE, GRPC_CODES } from '../../src/errors/catalogue.js';
import { startGateway } from '../../src/server/gateway.js';
import { brokenHttp, refusedPort, type Broken } from '../helpers/broken-upstreams.js';
import { BINDINGS, closeGrpcClients, gatewayConfig, userMessage } from '../helpers/harness.js';
import { STREAM_CALLERS } from '../helpers/streams.js';

const TASK = { task: { id: 't-e', contextId: 'c-e', status: { state: 'TASK_STATE_WORKING' } } };
const DONE = { statusUpdate: { taskId: 't-e', contextId: 'c-e', status: { state: 'TASK_STATE_COMPLETED' } } };

/** A JSON-RPC agent whose streams are written by `tail` after the task event (`id`: the request's). */
function sseAgent(tail: (id: unknown) => string, status = 200): Promise<Broken> {
  return brokenHttp((req, res) => {
    if (req.method === 'GET') return void res.writeHead(404).end();
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { id } = JSON.parse(body) as { id: unknown };
      res.writeHead(status, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: TASK })}\n\n${tail(id)}`);
    });
  });
}
const frame = (id: unknown, result: unknown) => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}`;

/** A 0.3 JSON-RPC agent that answers a resubscribe with its SSE head and nothing else until `move()`. */
async function quietAgent(): Promise<Broken & { move: () => void; waiting: () => number }> {
  const held: Array<{ res: ServerResponse; id: unknown }> = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET') return void res.writeHead(404).end();
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { id } = JSON.parse(body) as { id: unknown };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      held.push({ res, id });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const update = { kind: 'status-update', taskId: 'q', contextId: 'c', final: true, status: { state: 'completed' } };
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    move: () => {
      for (const { res, id } of held.splice(0)) res.end(`${frame(id, update)}\n\n`);
    },
    waiting: () => held.length,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const noBlank = await sseAgent((id) => `${frame(id, DONE)}\n`);
const cut = await sseAgent((id) => frame(id, DONE).slice(0, 40));
const failed = await sseAgent((id) => `${frame(id, DONE)}\n\n`, 500);
const quiet = await quietAgent();
const dead = `http://127.0.0.1:${await refusedPort()}`;
const route = (name: string, url: string, extra: object = {}) => ({
  name,
  match: { pathPrefix: `/${name}`, tenant: name },
  upstream: { url, binding: 'JSONRPC' as const, tenant: 'clear' as const },
  ...extra,
});
const gw = await startGateway(
  gatewayConfig([
    route('noblank', noBlank.url),
    route('cut', cut.url),
    route('failed', failed.url),
    route('quiet', quiet.url, {
      upstream: { url: quiet.url, binding: 'JSONRPC', version: '0.3', tenant: 'clear' },
      sseKeepAliveMs: 100,
    }),
    // a keep-alive far off: only the head opening after the quiet period (timeoutMs here) reaches the caller
    route('late', quiet.url, {
      upstream: { url: quiet.url, binding: 'JSONRPC', version: '0.3', tenant: 'clear' },
      sseKeepAliveMs: 600_000,
      timeoutMs: 300,
    }),
    route('pair', quiet.url, {
      upstream: {
        binding: 'JSONRPC',
        version: '0.3',
        tenant: 'clear',
        loadBalancing: 'round-robin',
        healthCheck: false,
        endpoints: [
          { url: dead, name: 'dead' },
          { url: quiet.url, name: 'live' },
        ],
      },
      sseKeepAliveMs: 100,
    }),
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await Promise.all([noBlank, cut, failed, quiet].map((a) => a.close()));
});

const send = (inbound: (typeof BINDINGS)[number], name: string) =>
  STREAM_CALLERS[inbound](
    gw,
    'SendStreamingMessage',
    { message: userMessage('x') },
    { tenant: name, prefix: `/${name}` },
  );

t.test('the last event without its blank line is delivered', async (tt) => {
  for (const inbound of BINDINGS) {
    const r = await send(inbound, 'noblank');
    tt.same(r.events, [TASK, DONE], `${inbound}: the task, then its terminal update`);
    tt.notOk(r.error, `${inbound}: a clean end`);
  }
});

t.test('a body cut inside an event fails the stream', async (tt) => {
  const row = CATALOGUE.INVALID_AGENT_RESPONSE;
  for (const inbound of BINDINGS) {
    const r = await send(inbound, 'cut');
    tt.same(r.events, [TASK], `${inbound}: the whole event first`);
    const want = inbound === 'JSONRPC' ? row.jsonRpc : inbound === 'HTTP+JSON' ? row.grpc : GRPC_CODES[row.grpc];
    tt.equal(r.error?.code, want, `${inbound}: then INVALID_AGENT_RESPONSE, not a clean end`);
    tt.equal(r.error?.afterEvents, true);
  }
});

t.test('an error status with an event-stream body is an error', async (tt) => {
  for (const inbound of BINDINGS) {
    const r = await send(inbound, 'failed');
    tt.same(r.events, [], `${inbound}: none of its events`);
    tt.ok(r.error, `${inbound}: an error`);
    tt.equal(r.error?.afterEvents, false, `${inbound}: in place of the stream`);
    if (inbound === 'HTTP+JSON') tt.not(r.httpStatus, 200, 'REST: not a 200');
  }
});

t.test("a 0.3 agent's quiet resubscribe: the HTTP caller gets the head and keep-alives at once", async (tt) => {
  const calls = [
    request(`${gw.httpUrl}/quiet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: 'q', tenant: 'quiet' } }),
    }),
    request(`${gw.httpUrl}/quiet/quiet/tasks/q:subscribe`, { headers: { 'a2a-version': '1.0' } }),
  ];
  const answers = await Promise.all(calls); // before the agent sends anything
  tt.equal(quiet.waiting(), 2, 'the agent holds both resubscribes, no event sent');
  for (const res of answers) {
    tt.equal(res.statusCode, 200);
    tt.match(res.headers['content-type'], /^text\/event-stream/);
  }
  // the task moves once both callers have had a keep-alive (moving it ends both agent streams)
  const kept = answers.map(() => false);
  const texts = answers.map(async (res, k) => {
    let text = '';
    for await (const c of res.body) {
      text += (c as Buffer).toString();
      if (!kept[k] && text.includes(': keep-alive')) {
        kept[k] = true;
        if (kept.every(Boolean)) quiet.move();
      }
    }
    return text;
  });
  for (const text of await Promise.all(texts)) {
    tt.match(text, /^: keep-alive\n/, 'a keep-alive while the task is quiet');
    tt.match(text, /TASK_STATE_COMPLETED/, 'then the update when it comes');
  }
});

const subscribe = (tenant: string) =>
  request(`${gw.httpUrl}/${tenant}/${tenant}/tasks/q:subscribe`, {
    headers: { 'a2a-version': '1.0' },
    signal: AbortSignal.timeout(20_000), // a bound, not a pause: the head comes in about 0.3 s
  });

t.test('a quiet stream: its head is sent when its answer opens, not with a keep-alive later', async (tt) => {
  const res = await subscribe('late');
  tt.equal(res.statusCode, 200, 'the head, with no keep-alive for ten minutes');
  tt.match(res.headers['content-type'], /^text\/event-stream/);
  quiet.move();
  tt.match(await res.body.text(), /TASK_STATE_COMPLETED/);
});

t.test('a quiet stream on a route with several endpoints: a refused connection fails over', async (tt) => {
  for (let i = 0; i < 4; i++) {
    const res = await subscribe('pair');
    tt.equal(res.statusCode, 200, `resubscribe ${i + 1}: served (the refusing endpoint is failed over)`);
    quiet.move();
    tt.match(await res.body.text(), /TASK_STATE_COMPLETED/);
  }
});
