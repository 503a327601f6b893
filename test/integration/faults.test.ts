// Fault injection with a controllable upstream per binding (issue 7): for
// every inbound binding, an upstream that refuses connections, resets mid-
// body, never sends headers (slowloris), trickles a body that never ends,
// answers 200 with a body that is not A2A, or (gRPC) never answers, and a
// route whose agent card never comes (binding "auto"), and one that resets
// the connection under a request once (retried only for idempotent methods,
// §3.3.1). Each has one defined
// outcome in the caller's binding; after 12 rounds of all of them the test
// process holds no more sockets or timers than before and its heap (after GC)
// is back near where it started. Nothing here depends on the machine's speed:
// only the faults that must time out have a short timeout (those that must fail
// otherwise have 30 s, so load cannot turn them into timeouts), and the leak
// check waits for the state it compares instead of sleeping.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { pino } from 'pino';
import type { Binding } from '../../src/config/types.js';
import { CATALOGUE, GRPC_CODES, type ErrorName } from '../../src/errors/catalogue.js';
import { startGateway } from '../../src/server/gateway.js';
import { brokenGrpc, brokenHttp, refusedPort, type Broken } from '../helpers/broken-upstreams.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, userMessage } from '../helpers/harness.js';
import { eventually } from '../helpers/wait.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** The route timeout of the faults whose outcome is a timeout; the others get 30 s. */
const TIMEOUT_MS = 500;
const ROUNDS = 12;

const servers: Broken[] = [];
const serve = async (b: Promise<Broken>): Promise<Broken> => {
  const s = await b;
  servers.push(s);
  return s;
};
const reset = await serve(
  brokenHttp((req, res) => {
    if (req.method === 'GET') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"jsonrpc":"2.0","id":1,"res', () => req.socket.destroy());
  }),
);
const slowloris = await serve(
  brokenHttp((req, res) => {
    if (req.method === 'GET') return void res.writeHead(404).end();
    req.socket.setTimeout(0);
    void res; // never answers
  }),
);
const endless = await serve(
  brokenHttp((req, res) => {
    if (req.method === 'GET') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(timer));
  }),
);
const notA2A = await serve(
  brokenHttp((req, res) => {
    if (req.method === 'GET') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>');
  }),
);
// Resets the connection under the first request of each key (a keep-alive race), answers the next.
const seenKeys = new Set<string>();
const resetOnce = await serve(
  brokenHttp((req, res) => {
    if (req.method === 'GET') return void res.writeHead(404).end();
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const rpc = JSON.parse(body) as {
        id: number;
        params: { id?: string; message?: { parts?: Array<{ text?: string }> } };
      };
      const key = rpc.params.id ?? rpc.params.message?.parts?.[0]?.text ?? '';
      if (!seenKeys.has(key)) {
        seenKeys.add(key);
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: rpc.id,
          result: { id: key, contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
        }),
      );
    });
  }),
);
const silentGrpc = await serve(brokenGrpc(() => undefined));
const stalledCard = await serve(brokenHttp(() => undefined));
const refused = `http://127.0.0.1:${await refusedPort()}`;

const FAULTS: Array<{ name: string; upstream: { url: string; binding: Binding | 'auto' }; outcome: ErrorName[] }> = [
  { name: 'refused', upstream: { url: refused, binding: 'JSONRPC' }, outcome: ['UPSTREAM_UNAVAILABLE'] },
  { name: 'reset', upstream: { url: reset.url, binding: 'JSONRPC' }, outcome: ['UPSTREAM_UNAVAILABLE'] },
  { name: 'slowloris', upstream: { url: slowloris.url, binding: 'HTTP+JSON' }, outcome: ['UPSTREAM_TIMEOUT'] },
  { name: 'endless', upstream: { url: endless.url, binding: 'JSONRPC' }, outcome: ['UPSTREAM_TIMEOUT'] },
  { name: 'not-a2a', upstream: { url: notA2A.url, binding: 'HTTP+JSON' }, outcome: ['INVALID_AGENT_RESPONSE'] },
  { name: 'silent-grpc', upstream: { url: silentGrpc.url, binding: 'GRPC' }, outcome: ['UPSTREAM_TIMEOUT'] },
  { name: 'card-times-out', upstream: { url: stalledCard.url, binding: 'auto' }, outcome: ['UPSTREAM_UNAVAILABLE'] },
];
const gw = await startGateway(
  gatewayConfig([
    ...FAULTS.map((f) => ({
      name: f.name,
      match: { pathPrefix: `/${f.name}`, tenant: f.name },
      upstream: { ...f.upstream, tenant: 'clear' as const },
      timeoutMs: f.outcome.includes('UPSTREAM_TIMEOUT') || f.upstream.binding === 'auto' ? TIMEOUT_MS : 30_000,
    })),
    {
      name: 'reset-once',
      match: { pathPrefix: '/reset-once', tenant: 'reset-once' },
      upstream: { url: resetOnce.url, binding: 'JSONRPC' as const, tenant: 'clear' as const },
    },
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  for (const s of servers) await s.close();
});

const codeOf = (inbound: Binding, name: ErrorName): number => {
  const row = CATALOGUE[name];
  return inbound === 'JSONRPC' ? row.jsonRpc : inbound === 'HTTP+JSON' ? row.http : GRPC_CODES[row.grpc];
};

/** Every fault from every binding, all at once. */
async function round(tt: { ok(v: boolean, m: string): void } | undefined): Promise<void> {
  await Promise.all(
    BINDINGS.flatMap((inbound) =>
      FAULTS.map(async (f) => {
        const r = await CALLERS[inbound](
          gw,
          'SendMessage',
          { message: userMessage('fault') },
          { tenant: f.name, prefix: `/${f.name}` },
        );
        if (tt)
          tt.ok(
            !r.ok && f.outcome.map((n) => codeOf(inbound, n)).includes(r.code!),
            `${inbound} → ${f.name}: ${f.outcome.join('|')} (${r.code}: ${r.message})`,
          );
      }),
    ),
  );
}

const resources = (): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) out[r] = (out[r] ?? 0) + 1;
  return out;
};
const counts = (r: Record<string, number>) => ({ timers: r.Timeout ?? 0, sockets: r.TCPSocketWrap ?? 0 });

/** The resource counts once closes and cleared timers of finished calls have run: unchanged over 10 samples. */
async function settled(): Promise<{ timers: number; sockets: number }> {
  let last = '';
  let same = 0;
  const stable = await eventually(async () => {
    await new Promise((r) => setImmediate(r));
    const now = JSON.stringify(counts(resources()));
    same = now === last ? same + 1 : 0;
    last = now;
    return same >= 10;
  });
  if (!stable) throw new Error(`resource counts never settled: ${last}`);
  return JSON.parse(last) as { timers: number; sockets: number };
}

t.test('each fault has its outcome in every caller binding', async (tt) => {
  await round(tt);
});

t.test('a connection reset under an idempotent call is retried once; under SendMessage it is not', async (tt) => {
  const opts = { tenant: 'reset-once', prefix: '/reset-once' };
  for (const inbound of BINDINGS) {
    const got = await CALLERS[inbound](gw, 'GetTask', { id: `task-${inbound}` }, opts);
    tt.ok(got.ok, `${inbound}: GetTask answered after one retry`);
    const sent = await CALLERS[inbound](gw, 'SendMessage', { message: userMessage(`send-${inbound}`) }, opts);
    tt.equal(sent.code, codeOf(inbound, 'UPSTREAM_UNAVAILABLE'), `${inbound}: SendMessage is not sent twice`);
  }
});

t.test('no leaked sockets, timers or streams; memory back near its start', async (tt) => {
  await round(undefined); // warm: pools, channels and caches exist from here on
  const before = await settled();
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  for (let i = 0; i < ROUNDS; i++) await round(undefined);
  // the last timeouts and resets finish on their own schedule: wait (bounded) for the counts to come back
  let after = counts(resources());
  await eventually(() => {
    after = counts(resources());
    return after.timers <= before.timers && after.sockets <= before.sockets + 4;
  });
  gc();
  const heapAfter = process.memoryUsage().heapUsed;
  tt.ok(after.timers <= before.timers, `timers: ${before.timers} before, ${after.timers} after`);
  tt.ok(after.sockets <= before.sockets + 4, `sockets: ${before.sockets} before, ${after.sockets} after`);
  tt.ok(
    heapAfter - heapBefore < 16 * 1024 * 1024,
    `heap ${(heapBefore / 2 ** 20).toFixed(1)} → ${(heapAfter / 2 ** 20).toFixed(1)} MiB after ${ROUNDS} rounds (${ROUNDS * 3 * FAULTS.length} failed calls)`,
  );
});
