// A body holding a large `raw` part (src/proto/json-out.ts PiecedBody) is
// made as it is sent, at both ends: to a caller (server/http-edge.ts send:
// the pieces written with backpressure, none made once the caller is gone;
// sse/writer.ts: an SSE event's data the same way) and to an HTTP upstream
// (upstream/http-pool.ts: undici takes it as an iterable with its
// Content-Length). Real node:http servers on 127.0.0.1.
import { once } from 'node:events';
import { connect as h2connect, createServer as createH2Server, type Http2ServerResponse } from 'node:http2';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { create } from '@bufbuild/protobuf';
import { DEFAULT_LIMITS } from '../../src/config/types.js';
import type { UpstreamTarget } from '../../src/core/upstream.js';
import { PartSchema, SendMessageRequestSchema } from '../../src/gen/a2a_pb.js';
import { outboundJson, PiecedBody } from '../../src/proto/json-out.js';
import { send } from '../../src/server/http-edge.js';
import { writeSse } from '../../src/sse/writer.js';
import type { SseFrame } from '../../src/http/request.js';
import { TestSseParser } from '../helpers/sse.js';
import { HttpPool } from '../../src/upstream/http-pool.js';
import { UpstreamRegistry, type ClientFactories } from '../../src/upstream/registry.js';

const MiB = 2 ** 20;

/** A SendMessageRequest with one raw part of `size` bytes, as a body, and the pieces its iterations made. */
function largeBody(size: number, text = ''): { body: PiecedBody; made: () => number; raw: Buffer } {
  const raw = Buffer.alloc(size, 0x5a);
  const parts = [create(PartSchema, { content: { case: 'raw', value: raw } })];
  if (text) parts.unshift(create(PartSchema, { content: { case: 'text', value: text } }));
  const message = { messageId: 'm', role: 1, parts };
  const out = outboundJson(SendMessageRequestSchema, create(SendMessageRequestSchema, { message }));
  const pieced = out.body(out.json);
  if (!(pieced instanceof PiecedBody)) throw new Error('not written in pieces');
  let made = 0;
  const counted = Object.create(pieced) as PiecedBody; // the same body, its pieces counted as they are made
  counted[Symbol.iterator] = function* () {
    for (const piece of pieced) {
      made++;
      yield piece;
    }
  };
  return { body: counted, made: () => made, raw };
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A GET that leaves (destroys its request) once the first bytes of the answer came. */
function leaveAfterFirstBytes(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let left = false;
    const req = httpRequest(url, (res) =>
      res.once('data', () => {
        left = true;
        req.destroy();
        resolve();
      }),
    );
    req.on('error', (e) => (left ? undefined : reject(e))).end();
  });
}

/** One tick of the event loop's check phase (for what a 'close' may still set off). */
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

t.test('to a caller: the whole body with its length; a caller gone stops the making', async (tt) => {
  const bodies: Array<ReturnType<typeof largeBody>> = [];
  const closed: Array<Promise<unknown>> = [];
  const url = await listen((req, res) => {
    // 8 MiB read whole; 64 MiB (1,366 pieces) for the caller that leaves: more than any socket buffers hold
    const b = largeBody((req.url === '/leave' ? 64 : 8) * MiB);
    bodies.push(b);
    closed.push(once(res, 'close'));
    send(res, { status: 200, headers: { 'content-type': 'application/json' }, body: b.body });
  });
  const pieces = (mib: number): number => Math.ceil((mib * MiB) / (48 * 1024)) + 2; // base64 chunks, text either side

  // read whole: every piece, its declared length, the same JSON
  const full = await new Promise<{ length: string | undefined; text: string }>((resolve, reject) => {
    httpRequest(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ length: res.headers['content-length'], text: Buffer.concat(chunks).toString('utf8') }),
      );
    })
      .on('error', reject)
      .end();
  });
  tt.equal(Number(full.length), Buffer.byteLength(full.text), 'Content-Length is the length sent');
  const json = JSON.parse(full.text) as { message: { parts: Array<{ raw: string }> } };
  tt.ok(Buffer.from(json.message.parts[0]!.raw, 'base64').equals(bodies[0]!.raw), 'the raw part, byte for byte');
  tt.equal(bodies[0]!.made(), pieces(8), 'every piece made once');

  // a caller that leaves after its first bytes: the rest is not made, then or later
  await leaveAfterFirstBytes(`${url}/leave`);
  await closed[1];
  const madeAtClose = bodies[1]!.made();
  tt.ok(madeAtClose < pieces(64), `${madeAtClose} of ${pieces(64)} pieces made for a caller that left`);
  await turn();
  await turn();
  tt.equal(bodies[1]!.made(), madeAtClose, 'no piece made after the response closed');
});

t.test('to an HTTP upstream: the pieces with their Content-Length, sent again in full on a new request', async (tt) => {
  const received: Array<{ length: number; bytes: Buffer }> = [];
  const url = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ length: Number(req.headers['content-length']), bytes: Buffer.concat(chunks) });
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  const registry = new UpstreamRegistry({} as ClientFactories, DEFAULT_LIMITS);
  tt.teardown(() => registry.close());
  const target: UpstreamTarget = {
    url,
    version: '1.0',
    timeoutMs: 10_000,
    maxSseEventBytes: MiB,
    maxResponseBytes: MiB,
    tls: undefined,
  };
  const pool = new HttpPool(target, registry);
  const b = largeBody(3 * MiB);
  const opts = { method: 'POST' as const, path: '/', headers: { 'content-type': 'application/json' }, body: b.body };
  for (let i = 0; i < 2; i++) {
    const answer = await pool.request(opts, new AbortController().signal);
    tt.equal(answer.body.toString(), '{}', `request ${i + 1} answered`);
  }
  const expected = Buffer.concat([...b.body]);
  for (const [i, r] of received.entries()) {
    tt.equal(r.length, expected.length, `request ${i + 1}: Content-Length is the body's length`);
    tt.ok(r.bytes.equals(expected), `request ${i + 1}: the body, byte for byte`);
  }
  tt.equal(received.length, 2, 'both requests reached the upstream');
});

/** An answer sent by send() to an HTTP/2 caller: its head, its body as received and the writes that carried it. */
async function sentOverH2(
  tt: Test,
  body: Buffer | PiecedBody,
): Promise<{ headers: Record<string, string>; body: Buffer; writes: Buffer[] }> {
  const writes: Buffer[] = [];
  const server = createH2Server((_req, res: Http2ServerResponse) => {
    const write = res.write.bind(res) as (chunk: Buffer) => boolean;
    (res as unknown as { write: (chunk: Buffer) => boolean }).write = (chunk) => {
      writes.push(chunk);
      return write(chunk);
    };
    send(res, { status: 200, headers: { 'content-type': 'application/json' }, body });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = h2connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  tt.teardown(() => {
    client.close();
    return new Promise<void>((r) => server.close(() => r()));
  });
  const stream = client.request({ ':path': '/' });
  const [headers] = (await once(stream, 'response')) as [Record<string, string>];
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  await once(stream, 'end');
  return { headers, body: Buffer.concat(chunks), writes };
}

t.test('to an HTTP/2 caller: the whole body, written 64 KiB at most at a time (its long text too)', async (tt) => {
  const b = largeBody(256 * 1024, 'ü'.repeat(600_000)); // 1.2 MB of text before the raw part
  const { headers, body, writes } = await sentOverH2(tt, b.body);
  const largest = Math.max(...writes.map((w) => w.length));
  tt.equal(Number(headers['content-length']), body.length, 'Content-Length is the length sent');
  tt.ok(body.equals(Buffer.concat([...b.body])), 'the body, byte for byte');
  tt.ok(largest <= 64 * 1024, `${writes.length} writes, none over 64 KiB (largest ${largest})`);
});

t.test(
  'to an HTTP/2 caller: a plain answer buffer over 64 KiB is written in slices of itself, not a copy',
  async (tt) => {
    const answer = Buffer.alloc(300 * 1024, 0x61);
    const { body, writes } = await sentOverH2(tt, answer);
    tt.ok(body.equals(answer), 'the answer, byte for byte');
    tt.equal(writes.length, 5, 'five writes of at most 64 KiB');
    tt.ok(
      writes.every((w) => w.buffer === answer.buffer),
      'each write is a view of the answer buffer (no copy of it)',
    );
  },
);

t.test(
  'an SSE event holding a large part: written in pieces; a caller gone stops the making and the stream',
  async (tt) => {
    const bodies: Array<ReturnType<typeof largeBody>> = [];
    const ended: Array<Promise<number>> = [];
    const url = await listen((req, res) => {
      const b = largeBody((req.url === '/leave' ? 64 : 4) * MiB);
      bodies.push(b);
      let bytes = 0;
      let returned = false;
      async function* frames(): AsyncGenerator<SseFrame> {
        try {
          yield { data: b.body };
          yield { event: 'last', data: '{"small":true}' };
        } finally {
          returned = true;
        }
      }
      ended.push(
        writeSse(res as ServerResponse, frames(), 0, {}, (n) => (bytes += n)).then(() => (returned ? bytes : -1)),
      );
    });

    const parser = new TestSseParser();
    let received = 0;
    const events = await new Promise<Array<{ event: string; data: string }>>((resolve, reject) => {
      httpRequest(url, (res) => {
        const out: Array<{ event: string; data: string }> = [];
        res.on('data', (c: Buffer) => {
          received += c.length;
          out.push(...parser.push(c));
        });
        res.on('end', () => resolve([...out, ...parser.end()]));
      })
        .on('error', reject)
        .end();
    });
    tt.same(
      events.map((e) => e.event),
      ['message', 'last'],
      'two events, the large one first',
    );
    const json = JSON.parse(events[0]!.data) as { message: { parts: Array<{ raw: string }> } };
    tt.ok(Buffer.from(json.message.parts[0]!.raw, 'base64').equals(bodies[0]!.raw), 'the raw part, byte for byte');
    tt.equal(await ended[0], received, 'the bytes counted are the bytes sent; the frames were returned');

    await leaveAfterFirstBytes(`${url}/leave`);
    const counted = await ended[1]!;
    tt.not(counted, -1, 'a caller gone mid-event: the stream ends and its frames are returned');
    tt.ok(
      counted > 0 && counted < bodies[1]!.body.byteLength,
      `${counted} bytes counted: what was written, not the whole event`,
    );
    const made = bodies[1]!.made();
    tt.ok(made < Math.ceil((64 * MiB) / (48 * 1024)), `${made} pieces made for a caller that left`);
    await turn();
    await turn();
    tt.equal(bodies[1]!.made(), made, 'none after');
  },
);
