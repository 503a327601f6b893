// Fuzzing the request headers the gateway reads (fast-check): A2A-Version and
// A2A-Extensions (and 0.3's X-A2A-Extensions, §3.2.6), traceparent and
// tracestate, X-Request-Id, Authorization, Content-Type and Accept, Origin and
// the CORS preflight's Access-Control-Request-Method, the conditional card
// headers, and — the caller being a trusted proxy — Forwarded, Via and the
// X-Forwarded-* headers that shape served cards; random values, near-valid
// ones and the valid ones, on JSON-RPC and REST calls, card fetches, preflights
// and gRPC metadata, toward a real agent. Every answer is well-formed in the
// caller's binding and never the gateway's own failure (a 500, "internal
// gateway error", gRPC UNKNOWN, or INTERNAL other than an agent refusing the
// headers it was sent); a 1.0 call with a header the gateway passes on over
// 8 KiB is refused as InvalidRequest; the gateway keeps serving.
// FUZZ_RUNS sets the cases per property (`npm test` 1,000; `npm run fuzz` 100,000).
import t from 'tap';
import fc from 'fast-check';
import * as grpc from '@grpc/grpc-js';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { requestBytes } from '../helpers/codec.js';
import { fuzzTarget } from '../helpers/fuzz-gateway.js';
import { gatewayConfig, grpcStatusOf, userMessage } from '../helpers/harness.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const GATEWAY_BUG = 'internal gateway error';
/** What the cases ended in (a property that only ever saw refusals would test little). */
const outcomes = new Map<string, number>();
const saw = (what: string): void => void outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
const { pool, client } = await fuzzTarget(
  t,
  gatewayConfig(
    [
      {
        name: 'h',
        upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const },
        cors: { allowOrigins: ['https://app.example'] },
      },
    ],
    { trustedProxies: ['127.0.0.1'] },
  ),
);
t.teardown(() => agent.close());

/** A header value undici will send: visible ASCII and spaces (no CR, LF or NUL), now and then long. */
const text = fc.oneof(
  {
    arbitrary: fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 40,
    }),
    weight: 8,
  },
  {
    arbitrary: fc.string({
      unit: fc.constantFrom('a', ',', ';', '=', '"', ' ', '/', ':', '.', '0', '1', '-'),
      maxLength: 60,
    }),
    weight: 8,
  },
  { arbitrary: fc.nat({ max: 20_000 }).map((n) => 'x'.repeat(n)), weight: 1 },
);
/** A header's valid and near-valid values, or any text. */
const value = (...near: string[]) =>
  fc.oneof({ arbitrary: fc.constantFrom(...near), weight: 3 }, { arbitrary: text, weight: 1 });
/** The headers the gateway reads and passes on to the agent, each refused over 8 KiB. */
const PASSED_ON = ['via', 'authorization', 'a2a-extensions'];
/** Each header absent or given one of its values. */
const headers = fc
  .record(
    {
      'a2a-version': value('1.0', '1', '1.1', '0.3', '0.3.0', '2.0', '', ' 1.0 ', '1.0, 0.3'),
      'a2a-extensions': value('https://x.example/ext', 'a, b', ',,,', 'https://x.example/e;v=1'),
      'x-a2a-extensions': value('https://x.example/ext'),
      traceparent: value(
        '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        '00-0-0-00',
        'ff-' + 'a'.repeat(52),
      ),
      tracestate: value('a=b', 'a=b,c=d', '=', 'k'.repeat(300) + '=v'),
      'x-request-id': value('req-1', '../..', ''),
      authorization: value('Bearer abc', 'Basic Og==', 'Bearer', ''),
      accept: value('text/event-stream', 'application/json', '*/*'),
      origin: value('https://app.example', 'https://evil.example', 'null'),
      forwarded: value('for=1.2.3.4;proto=https;host=gw.example', 'host="a:1"', 'proto=ftp', 'for=[::1]'),
      via: value('1.1 proxy', ''),
      'x-forwarded-host': value('gw.example', 'gw.example:8443', 'a/b', '[::1]:80', 'a b'),
      'x-forwarded-proto': value('https', 'http', 'ftp', 'https, http'),
      'x-forwarded-prefix': value('/p', 'p', '/a/../b', '//x'),
      'if-none-match': value('"x"', '*', 'W/"x"'),
      'if-modified-since': value('Wed, 21 Oct 2015 07:28:00 GMT', 'never'),
    },
    { requiredKeys: [] },
  )
  .map((h) => h as Record<string, string>)
  .chain((h) =>
    // one case in five: a 1.0 call with one header the gateway passes on just over its 8 KiB limit
    fc
      .oneof(
        { arbitrary: fc.constant(undefined), weight: 4 },
        { arbitrary: fc.tuple(fc.constantFrom(...PASSED_ON), fc.integer({ min: 8193, max: 10_000 })), weight: 1 },
      )
      .map((long) => (long ? { ...h, 'a2a-version': '1.0', [long[0]]: 'v'.repeat(long[1]) } : h)),
  );
/**
 * Whether the gateway must refuse the call for a header it passes on being over 8 KiB: the call is 1.0, and all its
 * headers fit the listener's 16 KiB (else the listener refuses them first, with 431).
 */
const mustRefuse = (h: Record<string, string>): boolean =>
  h['a2a-version'] === '1.0' &&
  PASSED_ON.some((k) => (h[k]?.length ?? 0) > 8192) &&
  Object.entries(h).reduce((n, [k, v]) => n + k.length + v.length, 0) < 14_000;

const send = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('hi') } });
/** An HTTP call with random headers: the answer is JSON (or SSE, or an empty 204/304), never the gateway's failure. */
const httpCall = fc.record({
  kind: fc.constantFrom('jsonrpc', 'rest', 'card', 'preflight'),
  headers,
  contentType: fc.constantFrom('application/json', 'application/a2a+json', 'text/plain', 'application/json; charset=x'),
  preflightMethod: fc.constantFrom('POST', 'GET', 'PUT', 'x y'),
});

t.test(`HTTP calls with random headers: ${RUNS} cases`, async (tt) => {
  let count = 0;
  await fc.assert(
    fc.asyncProperty(httpCall, async (c) => {
      const h: Record<string, string> = { ...c.headers };
      if (c.kind === 'jsonrpc' || c.kind === 'rest') h['content-type'] = c.contentType;
      if (c.kind === 'preflight') h['access-control-request-method'] = c.preflightMethod;
      const req =
        c.kind === 'jsonrpc'
          ? { method: 'POST' as const, path: '/', body: send }
          : c.kind === 'rest'
            ? { method: 'GET' as const, path: '/tasks/t-1' }
            : c.kind === 'card'
              ? { method: 'GET' as const, path: '/.well-known/agent-card.json' }
              : { method: 'OPTIONS' as const, path: '/' };
      const res = await pool.request({ ...req, headers: h });
      const body = await res.body.text();
      count++;
      saw(`${c.kind} ${res.statusCode}`);
      if (body.includes(GATEWAY_BUG)) return false;
      if (mustRefuse(h) && c.kind === 'jsonrpc' && c.contentType !== 'text/plain')
        return (JSON.parse(body) as { error?: { code: number } }).error?.code === -32600;
      if (mustRefuse(h) && c.kind === 'rest')
        return (
          res.statusCode === 400 &&
          (JSON.parse(body) as { error: { status: string } }).error.status === 'INVALID_ARGUMENT'
        );
      // no such operation (an OPTIONS no CORS rule allows): METHOD_NOT_FOUND is UNIMPLEMENTED, HTTP 501
      if (res.statusCode === 501)
        return (JSON.parse(body) as { error: { status: string } }).error.status === 'UNIMPLEMENTED';
      if (res.statusCode >= 500) return false;
      if (res.statusCode === 204 || res.statusCode === 304) return body === '';
      if (String(res.headers['content-type']).startsWith('text/event-stream')) return body.startsWith('data:');
      JSON.parse(body); // well-formed
      return true;
    }),
    { numRuns: RUNS },
  );
  tt.equal(count, RUNS, 'every case answered, never with a 5xx');
  const health = await pool.request({
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: send,
  });
  tt.equal(health.statusCode, 200, 'the gateway still serves a plain call');
  await health.body.dump();
});

t.test(`gRPC calls with random metadata: ${RUNS} cases`, async (tt) => {
  const bytes = requestBytes('SendMessage', { message: userMessage('hi') });
  await fc.assert(
    fc.asyncProperty(headers, fc.boolean(), async (h, streaming) => {
      const md = new grpc.Metadata();
      for (const [k, v] of Object.entries(h)) md.set(k, v);
      const method = streaming ? 'SendStreamingMessage' : 'SendMessage';
      const s = await grpcStatusOf(client, `/lf.a2a.v1.A2AService/${method}`, bytes, streaming, md);
      saw(`gRPC ${s.code}`);
      if (mustRefuse(h)) return s.code === grpc.status.INVALID_ARGUMENT && /exceeds 8192 bytes/.test(s.details);
      // INTERNAL is also INVALID_AGENT_RESPONSE: an agent refusing the headers it was sent (HTTP 431) is no gateway fault
      if (s.code === grpc.status.INTERNAL) return /\(HTTP 431\)/.test(s.details);
      const unanswered = s.code === grpc.status.DEADLINE_EXCEEDED; // the client's own deadline
      return s.code !== grpc.status.UNKNOWN && !unanswered && s.details !== GATEWAY_BUG;
    }),
    { numRuns: RUNS },
  );
  tt.pass('no UNKNOWN status, no gateway failure, and every header over 8 KiB refused');
});

t.test('the cases reached answers and refusals alike', async (tt) => {
  tt.comment([...outcomes].map(([k, n]) => `${k}: ${n}`).join(', '));
  for (const what of ['jsonrpc 200', 'card 200', 'preflight 204', 'rest 400', 'gRPC 0', 'gRPC 3'])
    tt.ok(outcomes.get(what), `some cases ended ${what}`);
});
