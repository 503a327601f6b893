// historyLength through a 0.3 agent (§3.2.4): 0 is no history, N at most the
// last N messages, on every 0.3 binding — 0.3's gRPC request cannot say 0,
// and the 0.3 SDK's JSON-RPC server reads 0 as no limit, so the gateway cuts
// the answer it relays. The task is a "stream" one (the user's message and
// the agent's "working on it"), so historyLength 1 must really cut it.
import t from 'tap';
import { pino } from 'pino';
import { startGateway } from '../../src/server/gateway.js';
import { startEchoAgentV03, type V03Binding } from '../helpers/echo-agent-v03.js';
import { CALLERS, closeGrpcClients, gatewayConfig, slug, userMessage } from '../helpers/harness.js';

const BINDINGS: V03Binding[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
const v03 = await startEchoAgentV03({ bindings: BINDINGS });
const gw = await startGateway(
  gatewayConfig(
    BINDINGS.map((b) => ({
      name: `v03-${slug(b)}`,
      match: { tenant: `v03-${slug(b)}` },
      upstream: { url: v03.urlFor(b), binding: b, version: '0.3' as const },
      card: { url: v03.cardUrl },
    })),
  ),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await v03.close();
});

t.test('GetTask historyLength 0 and 1 through each 0.3 binding', async (tt) => {
  for (const b of BINDINGS) {
    const at = { tenant: `v03-${slug(b)}`, prefix: '' };
    // "stream": the history holds the user's message and the agent's status message.
    const sent = await CALLERS.JSONRPC(gw, 'SendMessage', { message: userMessage('stream') }, at);
    const id = (sent.result?.task as { id?: string } | undefined)?.id;
    tt.ok(id, `${b}: a task`);
    /** The history of a GetTask answer, asserting it is an answer and not an error. */
    const history = async (historyLength: number) => {
      const got = await CALLERS.JSONRPC(gw, 'GetTask', { id: id!, historyLength }, at);
      tt.ok(got.ok, `${b}: GetTask historyLength ${historyLength} answered`, { got });
      return ((got.result as { history?: { messageId?: string }[] } | undefined)?.history ?? []).map(
        (m) => m.messageId,
      );
    };
    const all = await history(5);
    tt.ok(all.length >= 2 && all.every((m) => typeof m === 'string'), `${b}: the task has two messages or more`, {
      all,
    });
    tt.same(await history(0), [], `${b}: historyLength 0: none`);
    tt.same(await history(1), all.slice(-1), `${b}: historyLength 1: the last message only`);
  }
});
