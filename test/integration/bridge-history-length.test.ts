// historyLength through a 0.3 agent (§3.2.4): 0 is no history, N at most the
// last N messages, on every 0.3 binding — 0.3's gRPC request cannot say 0,
// and the 0.3 SDK's JSON-RPC server reads 0 as no limit, so the gateway cuts
// the answer it relays.
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
    const sent = await CALLERS.JSONRPC(gw, 'SendMessage', { message: userMessage('hello') }, at);
    const id = (sent.result?.task as { id?: string } | undefined)?.id;
    tt.ok(id, `${b}: a task`);
    const history = async (historyLength: number) => {
      const got = await CALLERS.JSONRPC(gw, 'GetTask', { id: id!, historyLength }, at);
      return ((got.result as { history?: unknown[] } | undefined)?.history ?? []).length;
    };
    tt.ok((await history(5)) >= 1, `${b}: the task has history`);
    tt.equal(await history(0), 0, `${b}: historyLength 0: none`);
    tt.ok((await history(1)) <= 1, `${b}: historyLength 1: at most one`);
  }
});
