// Backpressure: a caller that stops reading makes the gateway stop reading
// from the upstream, so memory per stream stays bounded however fast the
// upstream produces. Each upstream binding floods 64 MiB of events while the
// caller (each inbound binding once) pauses after the first event, until the
// upstream stops (what it handed over stays the same for 25 looks, 20 ms
// apart) or has handed over half of it; that must be far below the 64 MiB,
// and after the caller resumes every event arrives, in order.
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import type { Binding } from '../../src/config/types.js';
import type { JsonObject } from '../../src/proto/json.js';
import { responseJson, streamEventBytes } from '../helpers/codec.js';
import { startGateway } from '../../src/server/gateway.js';
import { floodGrpc, floodSse, type Flood } from '../helpers/flood-upstreams.js';
import { closeGrpcClients, gatewayConfig, slug, userMessage } from '../helpers/harness.js';
import { TestSseParser } from '../helpers/sse.js';
import { grpcStreamCall } from '../helpers/streams.js';
import { waitFor } from '../helpers/wait.js';

const COUNT = 1024;
const PAD = 64 * 1024;
const TOTAL = COUNT * PAD;
const encode = (json: unknown): Buffer => streamEventBytes(json as JsonObject);

const PAIRS: Array<[Binding, Binding]> = [
  ['JSONRPC', 'HTTP+JSON'],
  ['HTTP+JSON', 'GRPC'],
  ['GRPC', 'JSONRPC'],
];
const floods = new Map<Binding, Flood>();
floods.set('JSONRPC', await floodSse('JSONRPC', COUNT, PAD));
floods.set('HTTP+JSON', await floodSse('HTTP+JSON', COUNT, PAD));
floods.set('GRPC', await floodGrpc(COUNT, PAD, encode));
const gw = await startGateway(
  gatewayConfig(
    [...floods].map(([b, f]) => ({
      name: `flood-${slug(b)}`,
      match: { pathPrefix: `/flood-${slug(b)}`, tenant: `flood-${slug(b)}` },
      upstream: { url: b === 'JSONRPC' ? `${f.url}/rpc` : f.url, binding: b, tenant: 'clear' as const },
    })),
  ),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await Promise.all([...floods.values()].map((f) => f.close()));
});

const warnings: string[] = [];
process.on('warning', (w) => warnings.push(`${w.name}: ${w.message}`));

/**
 * While the caller does not read: waits until the upstream is held back (the
 * bytes it handed over stay the same for 25 looks) or has flooded half of
 * everything (no backpressure), and returns how much it handed over. The
 * flood servers share this process's event loop, so an upstream that can
 * write does so between two looks.
 */
async function heldBack(flood: Flood): Promise<number> {
  let last = -1;
  let unchanged = 0;
  return waitFor(async () => {
    await new Promise((r) => setTimeout(r, 20));
    const now = flood.sent();
    unchanged = now === last ? unchanged + 1 : 0;
    last = now;
    return (unchanged >= 25 || now >= TOTAL / 2) && now;
  }, 'the upstream to be held back, or to flood');
}

/** Reads a stream, pausing after the first event until the upstream is held back; returns the seq numbers and what the upstream sent during the pause. */
async function httpCaller(
  inbound: Binding,
  upstream: Binding,
  flood: Flood,
): Promise<{ seqs: number[]; sentWhilePaused: number }> {
  const tenant = `flood-${slug(upstream)}`;
  const isRpc = inbound === 'JSONRPC';
  const res = await request(isRpc ? `${gw.httpUrl}/${tenant}` : `${gw.httpUrl}/${tenant}/${tenant}/message:stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify(
      isRpc
        ? { jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { tenant, message: userMessage('flood') } }
        : { message: userMessage('flood') },
    ),
  });
  const parser = new TestSseParser();
  const seqs: number[] = [];
  let sentWhilePaused = -1;
  for await (const chunk of res.body) {
    for (const ev of parser.push(chunk as Buffer)) {
      const json = JSON.parse(ev.data) as JsonObject;
      const sr = (isRpc ? json.result : json) as JsonObject;
      seqs.push(((sr.statusUpdate as JsonObject).metadata as JsonObject).seq as number);
    }
    if (sentWhilePaused < 0 && seqs.length > 0) sentWhilePaused = await heldBack(flood);
  }
  return { seqs, sentWhilePaused };
}

async function grpcCaller(upstream: Binding, flood: Flood): Promise<{ seqs: number[]; sentWhilePaused: number }> {
  const tenant = `flood-${slug(upstream)}`;
  const call = grpcStreamCall(gw, 'SendStreamingMessage', { message: userMessage('flood') }, { tenant, prefix: '' });
  const seqs: number[] = [];
  let sentWhilePaused = -1;
  await new Promise<void>((resolve, reject) => {
    call.on('data', (bytes: Buffer) => {
      const sr = responseJson('SendStreamingMessage', bytes) as { statusUpdate: { metadata: { seq: number } } };
      seqs.push(sr.statusUpdate.metadata.seq);
      if (sentWhilePaused < 0 && seqs.length === 1) {
        call.pause();
        void heldBack(flood).then((sent) => {
          sentWhilePaused = sent;
          call.resume();
        }, reject);
      }
    });
    call.on('end', resolve);
    call.on('error', reject);
  });
  return { seqs, sentWhilePaused };
}

for (const [inbound, upstream] of PAIRS) {
  t.test(`${inbound} caller pauses, ${upstream} upstream floods`, async (tt) => {
    const flood = floods.get(upstream)!;
    const { seqs, sentWhilePaused } =
      inbound === 'GRPC' ? await grpcCaller(upstream, flood) : await httpCaller(inbound, upstream, flood);
    tt.comment(
      `upstream handed over ${(sentWhilePaused / 2 ** 20).toFixed(1)} MiB of ${(TOTAL / 2 ** 20).toFixed(0)} MiB while the caller paused`,
    );
    tt.ok(
      sentWhilePaused > 0 && sentWhilePaused < TOTAL / 2,
      'the upstream was held back while the caller did not read',
    );
    tt.equal(seqs.length, COUNT, 'every event arrived after the caller resumed');
    tt.ok(
      seqs.every((s, i) => s === i),
      'in order',
    );
  });
}

t.test('no listener piles up on a long stream', async (tt) => {
  tt.same(
    warnings.filter((w) => w.startsWith('MaxListenersExceededWarning')),
    [],
    'no MaxListenersExceededWarning',
  );
});
