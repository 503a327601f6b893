// A stream closes when its task reaches a terminal state (§3.1.2, §3.1.6):
// an agent that sends the terminal event and then keeps its stream open is
// given a short grace for what may follow (a last Task snapshot, §11.7) and
// then ended cleanly, its call cancelled — not failed with UPSTREAM_TIMEOUT
// after streamIdleTimeoutMs. And a 0.3 agent, which answers a resubscribe to
// a finished task with the task, is refused as 1.0's SubscribeToTask refuses
// it: UnsupportedOperationError (§3.1.6).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { pino } from 'pino';
import { startGateway } from '../../src/server/gateway.js';
import { brokenHttp } from '../helpers/broken-upstreams.js';
import { startEchoAgentV03 } from '../helpers/echo-agent-v03.js';
import { CALLERS, gatewayConfig, userMessage } from '../helpers/harness.js';
import { STREAM_CALLERS } from '../helpers/streams.js';
import { waitFor } from '../helpers/wait.js';

const dir = t.testdir();
const task = (state: string) => ({ id: 't-1', contextId: 'c-1', status: { state } });
const frame = (id: unknown, result: object) => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
/** Streams the agent left open after their last event, and how many of them the gateway has closed. */
let open = 0;
let closed = 0;
const agent = await brokenHttp((req, res) => {
  let body = '';
  req.on('data', (d: Buffer) => (body += d.toString()));
  req.on('end', () => {
    const rpc = JSON.parse(body) as { id: unknown; params: { message?: { parts?: Array<{ text?: string }> } } };
    const snapshot = rpc.params.message?.parts?.[0]?.text === 'snapshot';
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    open++;
    res.on('close', () => closed++);
    res.write(
      frame(rpc.id, { task: task('TASK_STATE_WORKING') }) +
        frame(rpc.id, {
          statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } },
        }) +
        (snapshot ? frame(rpc.id, { task: task('TASK_STATE_COMPLETED') }) : ''),
    );
    // ...and nothing more: the stream stays open
  });
});
const cardFile = join(dir, 'card.json');
writeFileSync(
  cardFile,
  JSON.stringify({
    name: 'open-ended',
    description: 'never ends its streams',
    version: '1',
    supportedInterfaces: [{ url: agent.url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 's', description: 's', tags: ['t'] }],
  }),
);
const v03 = await startEchoAgentV03({ bindings: ['JSONRPC', 'GRPC'] });
const gw = await startGateway(
  gatewayConfig([
    {
      name: 'open-ended',
      upstream: { url: agent.url, binding: 'JSONRPC' },
      card: { file: cardFile },
      streamIdleTimeoutMs: 600_000,
    },
    {
      name: 'v03',
      match: { tenant: 'v03' },
      upstream: { url: v03.urlFor('JSONRPC'), binding: 'JSONRPC', version: '0.3' as const },
      card: { url: v03.cardUrl },
    },
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  await gw.close();
  await agent.close();
  await v03.close();
});

t.test('the terminal event ends the stream, though the agent keeps it open', async (tt) => {
  for (const caller of ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const) {
    for (const [text, events] of [
      ['done', 2],
      ['snapshot', 3],
    ] as const) {
      const before = closed;
      const r = await STREAM_CALLERS[caller](
        gw,
        'SendStreamingMessage',
        { message: userMessage(text) },
        {
          tenant: '',
          prefix: '',
        },
      );
      tt.equal(r.events.length, events, `${caller} ${text}: every event the agent sent`);
      tt.equal(r.error, undefined, `${caller} ${text}: ended cleanly, no UPSTREAM_TIMEOUT`);
      await waitFor(() => closed > before, `${caller} ${text}: the agent's stream is closed`);
    }
  }
  tt.equal(closed, open, 'no stream left open at the agent');
});

t.test('a 0.3 agent resubscribed to a finished task: UnsupportedOperation', async (tt) => {
  for (const caller of ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const) {
    const sent = await CALLERS[caller](
      gw,
      'SendMessage',
      { message: userMessage('hello') },
      { tenant: 'v03', prefix: '' },
    );
    const id = (sent.result?.task as { id?: string } | undefined)?.id;
    tt.ok(id, `${caller}: a completed task`);
    const r = await STREAM_CALLERS[caller](gw, 'SubscribeToTask', { id: id! }, { tenant: 'v03', prefix: '' });
    tt.equal(r.events.length, 0, `${caller}: no event`);
    tt.match(
      (r.error?.details as Array<{ reason?: string }> | undefined)?.find((d) => d.reason)?.reason,
      'UNSUPPORTED_OPERATION',
      `${caller}: UnsupportedOperationError`,
    );
  }
});
