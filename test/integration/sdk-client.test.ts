// Done-when check: the official SDK client, pointed at the gateway's card URL
// for a route, finds the gateway's interfaces and works over each of the
// three bindings against an upstream of each binding; SDK error classes come
// out the other side (TaskNotFoundError, TaskNotCancelableError).
import t from 'tap';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { sdkClient, sdkMessage } from '../helpers/sdk.js';
import { BINDINGS, slug, startHarness } from '../helpers/harness.js';

const h = await startHarness();
t.teardown(() => h.close());

for (const inbound of BINDINGS) {
  for (const upstream of BINDINGS) {
    t.test(`SDK ${inbound} client → gateway card → ${upstream} agent`, async (tt) => {
      const client = await sdkClient(inbound, `${h.gateway.httpUrl}/up-${slug(upstream)}/.well-known/agent-card.json`);
      tt.equal(
        client.transport.protocolName.toUpperCase(),
        inbound.toUpperCase(),
        'the client chose the binding under test',
      );

      const result = await client.sendMessage({
        tenant: '',
        message: sdkMessage('through the card'),
        configuration: undefined,
        metadata: undefined,
      });
      const task = 'status' in result ? result : undefined;
      tt.ok(task, 'a Task came back');
      tt.equal(h.agent.lastCall()?.text, 'through the card', 'the agent got the text');
      const again = await client.getTask({ tenant: '', id: task!.id, historyLength: undefined });
      tt.equal(again.id, task!.id, 'GetTask through the gateway');
      const list = await client.listTasks({
        tenant: '',
        contextId: '',
        status: 0,
        pageSize: 10,
        pageToken: '',
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: undefined,
      });
      tt.ok(list.tasks.length > 0, 'ListTasks through the gateway');

      await tt.rejects(
        client.getTask({ tenant: '', id: 'missing', historyLength: undefined }),
        TaskNotFoundError,
        'TaskNotFoundError',
      );
      await tt.rejects(
        client.cancelTask({ tenant: '', id: task!.id, metadata: undefined }),
        TaskNotCancelableError,
        'TaskNotCancelableError',
      );
    });
  }
}
