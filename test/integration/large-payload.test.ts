// Large payloads through every binding pair (issue 11): a SendMessage whose
// message has a multi-MiB `raw` part (spec §4.1.6), a small raw part and a
// text part goes from a caller of each inbound binding through the gateway
// to a real @a2a-js/sdk agent of each upstream binding, which answers a Task
// whose history holds the message as it received it — so the answer shows,
// byte for byte, what reached the agent and what came back. Also: base64url
// without padding on the JSON bindings (answered as standard base64), long
// text and metadata strings beside the part (read whole, not as bytes), and
// long invalid base64 refused as the short one is; and the same part in a
// stream's event, to and from the agent.
import '../../src/util/base64.js'; // before @bufbuild/protobuf loads, as in the gateway's entry points
import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import t from 'tap';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import type { Binding } from '../../src/config/types.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway } from '../../src/server/gateway.js';
import { requestBytes, responseJson, statusJson } from '../helpers/codec.js';
import { BINDINGS, gatewayConfig, slug } from '../helpers/harness.js';
import { TestSseParser } from '../helpers/sse.js';

const MiB = 2 ** 20;
const LIMIT = 64 * MiB;
const agent = await startEchoAgent({ bindings: BINDINGS, maxMessageBytes: LIMIT });
const gateway = await startGateway(
  gatewayConfig(
    BINDINGS.map((b) => ({
      name: `up-${slug(b)}`,
      match: { pathPrefix: `/up-${slug(b)}`, tenant: `up-${slug(b)}` },
      upstream: { url: agent.urlFor(b), binding: b, tenant: 'clear' },
      maxBodyBytes: LIMIT,
      maxResponseBytes: LIMIT,
      timeoutMs: 60_000,
      ...(b === 'GRPC' ? { card: { url: `${agent.httpUrl}/.well-known/agent-card.json` } } : {}),
    })),
  ),
  pino({ level: 'silent' }),
);
const grpcClient = new grpc.Client(gateway.grpcAddress, grpc.credentials.createInsecure(), {
  'grpc.max_receive_message_length': -1,
});
t.teardown(async () => {
  grpcClient.close();
  await gateway.close();
  await agent.close();
});

interface Answer {
  ok: boolean;
  body: JsonObject;
}

/** SendMessage with `params` through the gateway from a caller of `inbound` to the agent's `upstream` side. */
async function send(inbound: Binding, upstream: Binding, params: JsonObject): Promise<Answer> {
  const tenant = `up-${slug(upstream)}`;
  const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };
  if (inbound === 'GRPC') {
    const md = new grpc.Metadata();
    md.set('a2a-version', '1.0');
    const bytes = requestBytes('SendMessage', { ...params, tenant });
    return new Promise((resolve) => {
      grpcClient.makeUnaryRequest(
        '/lf.a2a.v1.A2AService/SendMessage',
        (b: Buffer) => b,
        (b: Buffer) => b,
        bytes,
        md,
        (err, value) =>
          resolve(
            err
              ? { ok: false, body: statusJson(err.metadata.get('grpc-status-details-bin')[0] as Buffer | undefined) }
              : { ok: true, body: responseJson('SendMessage', value!) },
          ),
      );
    });
  }
  const rpc = inbound === 'JSONRPC';
  const res = await request(`${gateway.httpUrl}/up-${slug(upstream)}${rpc ? '' : `/${tenant}/message:send`}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(
      rpc ? { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { ...params, tenant } } : params,
    ),
  });
  const body = (await res.body.json()) as JsonObject;
  if (rpc)
    return body.error ? { ok: false, body: body.error as JsonObject } : { ok: true, body: body.result as JsonObject };
  return { ok: res.statusCode === 200, body: res.statusCode === 200 ? body : (body.error as JsonObject) };
}

const message = (parts: JsonObject[], extra: JsonObject = {}): JsonObject => ({
  message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts, ...extra },
});

/** The message the agent received, as its answer's history holds it. */
function received(a: Answer): JsonObject {
  const task = a.body.task as JsonObject | undefined;
  return ((task?.history as JsonObject[] | undefined) ?? [])[0] ?? {};
}

// not a multiple of 3: the base64 ends in padding
const big = randomBytes(3 * MiB + 1);
const small = randomBytes(100);

for (const inbound of BINDINGS) {
  for (const upstream of BINDINGS) {
    t.test(`${inbound} → ${upstream}: a ${(big.length / MiB).toFixed(0)} MiB raw part, byte for byte`, async (tt) => {
      const parts: JsonObject[] = [
        { raw: big.toString('base64'), mediaType: 'application/octet-stream', filename: 'big.bin' },
        { raw: small.toString('base64'), mediaType: 'application/octet-stream' },
        { text: 'and some text' },
      ];
      const a = await send(inbound, upstream, message(parts));
      tt.equal(a.ok, true, 'answered');
      const got = (received(a).parts ?? []) as JsonObject[];
      tt.equal(got.length, 3, 'three parts reached the agent and came back');
      tt.ok(Buffer.from(String(got[0]?.raw), 'base64').equals(big), 'the large part: the same bytes');
      tt.same(
        [got[0]?.mediaType, got[0]?.filename],
        ['application/octet-stream', 'big.bin'],
        'its media type and name',
      );
      tt.equal(got[1]?.raw, small.toString('base64'), 'the small part: the same bytes');
      tt.equal(got[2]?.text, 'and some text', 'the text part');
    });
  }
}

/** SendStreamingMessage from an HTTP caller: the SSE events' data, parsed. */
async function stream(inbound: Binding, upstream: Binding, params: JsonObject): Promise<JsonObject[]> {
  const tenant = `up-${slug(upstream)}`;
  const rpc = inbound === 'JSONRPC';
  const res = await request(`${gateway.httpUrl}/up-${slug(upstream)}${rpc ? '' : `/${tenant}/message:stream`}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream' },
    body: JSON.stringify(
      rpc ? { jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { ...params, tenant } } : params,
    ),
  });
  const parser = new TestSseParser();
  const events: JsonObject[] = [];
  for await (const chunk of res.body) for (const ev of parser.push(chunk as Buffer)) events.push(JSON.parse(ev.data));
  for (const ev of parser.end()) events.push(JSON.parse(ev.data));
  return rpc ? events.map((e) => e.result as JsonObject) : events;
}

for (const inbound of ['JSONRPC', 'HTTP+JSON'] as Binding[]) {
  t.test(
    `${inbound} streams: a ${(big.length / MiB).toFixed(0)} MiB raw part in an event, byte for byte`,
    async (tt) => {
      for (const upstream of BINDINGS) {
        const events = await stream(inbound, upstream, message([{ raw: big.toString('base64') }, { text: 'beside' }]));
        const task = events.find((e) => e.task)?.task as JsonObject | undefined;
        const parts = ((task?.history as JsonObject[] | undefined)?.[0]?.parts ?? []) as JsonObject[];
        tt.ok(Buffer.from(String(parts[0]?.raw), 'base64').equals(big), `→ ${upstream}: the large part, byte for byte`);
        tt.equal(parts[1]?.text, 'beside', `→ ${upstream}: the text part`);
      }
    },
  );
}

t.test('JSONRPC: a long id comes back as it was sent', async (tt) => {
  const id = `id-${'i'.repeat(70_000)}`;
  const res = await request(`${gateway.httpUrl}/up-grpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'SendMessage',
      params: { ...message([{ raw: big.toString('base64') }]), tenant: 'up-grpc' },
    }),
  });
  const body = (await res.body.json()) as JsonObject;
  tt.equal(body.id, id, 'the id');
  tt.ok(body.result, 'answered');
});

for (const inbound of ['JSONRPC', 'HTTP+JSON'] as Binding[]) {
  t.test(`${inbound}: base64url without padding, long strings beside the part`, async (tt) => {
    const text = `"quoted" \\ ✓ ${'x'.repeat(100_000)}\n`;
    const note = 'n'.repeat(70_000);
    const parts: JsonObject[] = [{ raw: big.toString('base64url'), mediaType: 'application/octet-stream' }, { text }];
    for (const upstream of BINDINGS) {
      const a = await send(inbound, upstream, message(parts, { metadata: { note } }));
      tt.equal(a.ok, true, `→ ${upstream}: answered`);
      const got = received(a);
      const [raw, long] = (got.parts ?? []) as JsonObject[];
      tt.equal(raw?.raw, big.toString('base64'), `→ ${upstream}: the bytes, answered in standard base64`);
      tt.equal(long?.text, text, `→ ${upstream}: a long text with escapes, whole`);
      tt.equal((got.metadata as JsonObject | undefined)?.note, note, `→ ${upstream}: a long metadata string, whole`);
    }
  });

  t.test(`${inbound}: long invalid base64 is refused as short invalid base64 is`, async (tt) => {
    const refusal = async (raw: string): Promise<JsonObject> => {
      const a = await send(inbound, 'GRPC', message([{ raw }]));
      tt.equal(a.ok, false, 'refused');
      return a.body;
    };
    const short = await refusal('not base64!');
    const long = await refusal(`${'A'.repeat(100_000)}!!`);
    const violations = (e: JsonObject) =>
      ((inbound === 'JSONRPC' ? e.data : e.details) as JsonObject[] | undefined)?.find((d) =>
        String(d['@type']).endsWith('BadRequest'),
      )?.fieldViolations;
    tt.same(violations(long), violations(short), 'the same violation');
    tt.match(JSON.stringify(violations(long)), /Part\.raw/, 'naming Part.raw');
  });
}
