// No buffering and cancellation, on every pair: the caller receives the first
// events while the upstream is still holding the stream open, and when the
// caller goes away (HTTP connection closed, gRPC call cancelled) the upstream
// call is aborted and the gateway keeps no timer of it. The abort latency is
// reported (targets live in the benchmark, not in test assertions).
import t from 'tap';
import { BINDINGS, closeGrpcClients, slug, startHarness, userMessage } from '../helpers/harness.js';
import { STREAM_CALLERS } from '../helpers/streams.js';
import { eventually, waitFor } from '../helpers/wait.js';

const h = await startHarness();
t.teardown(async () => {
  closeGrpcClients();
  await h.close();
});

function timers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

const until = (cond: () => boolean): Promise<boolean> => eventually(cond);

const latencies: number[] = [];
for (const inbound of BINDINGS) {
  for (const upstream of BINDINGS) {
    t.test(`${inbound} → ${upstream}: events flow unbuffered, hanging up aborts the upstream`, async (tt) => {
      await waitFor(() => h.agent.openCalls() === 0, 'no upstream call open');
      const timersBefore = timers();
      const openWhenReceived: number[] = [];
      const opts = {
        tenant: `up-${slug(upstream)}`,
        prefix: `/up-${slug(upstream)}`,
        take: 2,
        onEvent: () => openWhenReceived.push(h.agent.openCalls()),
      };
      const r = await STREAM_CALLERS[inbound](
        h.gateway,
        'SendStreamingMessage',
        { message: userMessage('hold') },
        opts,
      );
      const hungUpAt = Date.now();
      tt.same(
        r.events.map((e) => Object.keys(e)[0]),
        ['task', 'statusUpdate'],
        'the first two events arrived',
      );
      tt.ok(
        openWhenReceived.every((n) => n >= 1),
        'each while the upstream still held the stream open',
      );
      tt.ok(await until(() => h.agent.openCalls() === 0), 'the upstream call was aborted');
      latencies.push(h.agent.lastClosedAt() - hungUpAt);
      tt.comment(`upstream abort observed ${h.agent.lastClosedAt() - hungUpAt} ms after the caller hung up`);
      tt.ok(
        await until(() => timers() <= timersBefore),
        `no timer left behind (${timers()} vs ${timersBefore} before)`,
      );
    });
  }
}

t.test('abort latency summary', async (tt) => {
  tt.equal(latencies.length, 9);
  tt.comment(`upstream abort after caller hang-up: max ${Math.max(...latencies)} ms, all ${latencies.join(', ')} ms`);
});
