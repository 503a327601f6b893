// The gateway's grpc.health.v1.Health (src/ops/health.ts), whose library
// loads on the first gRPC health call: statuses set before that call (at
// start: a route whose upstream is down) are the ones the first caller sees,
// whichever method it calls (here a Watch stream, then List), and statuses
// set after it (the drain) reach the open Watch streams. Real SDK agent,
// real grpc-js client; Check is covered end to end in operations.test.ts.
import t from 'tap';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { request } from 'undici';
import { service as healthService } from 'grpc-health-check';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import { refusedPort } from '../helpers/broken-upstreams.js';
import { gatewayConfig } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

type Answer = { status: string };
type HealthClient = grpc.Client & {
  list(req: object, cb: (e: grpc.ServiceError | null, a?: { statuses: Record<string, Answer> }) => void): void;
  watch(req: { service: string }): grpc.ClientReadableStream<Answer>;
};

const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
const down = await refusedPort();
const gateway = await startGateway(
  gatewayConfig([
    { name: 'up', match: { pathPrefix: '/up' }, upstream: { url: agent.urlFor('JSONRPC'), binding: 'JSONRPC' } },
    { name: 'down', match: { pathPrefix: '/down' }, upstream: { url: `http://127.0.0.1:${down}`, binding: 'JSONRPC' } },
  ]),
  pino({ level: 'silent' }),
);
const Client = grpc.makeClientConstructor(healthService, 'Health');
const client = new Client(gateway.grpcAddress, grpc.credentials.createInsecure()) as unknown as HealthClient;
t.teardown(async () => {
  client.close();
  await gateway.close();
  await agent.close();
});

/** A Watch stream's answers as they come. */
function watch(service: string): { seen: string[]; call: grpc.ClientReadableStream<Answer> } {
  const seen: string[] = [];
  const call = client.watch({ service });
  call.on('data', (a: Answer) => seen.push(a.status));
  call.on('error', () => undefined); // the drain ends it
  return { seen, call };
}

t.test('statuses from before and after the first gRPC health call', async (tt) => {
  // readiness has judged both routes (HTTP): the statuses are set, and no gRPC health call has come yet
  await waitFor(async () => {
    const res = await request(`${gateway.httpUrl}/readyz`);
    const body = (await res.body.json()) as { routes: Array<{ name: string; ready: boolean }> };
    return body.routes.find((r) => r.name === 'up')?.ready && body.routes.some((r) => r.name === 'down');
  }, 'readiness of both routes');

  const downRoute = watch('a2a-gateway.route.down');
  await waitFor(() => downRoute.seen.length > 0, 'the first Watch answer');
  tt.same(downRoute.seen, ['NOT_SERVING'], 'the first call (a Watch): the status set before it');
  downRoute.call.cancel();

  const list = await new Promise<Record<string, Answer>>((resolve, reject) =>
    client.list({}, (e, a) => (e ? reject(e) : resolve(a!.statuses))),
  );
  tt.same(
    list,
    {
      '': { status: 'SERVING' },
      'lf.a2a.v1.A2AService': { status: 'NOT_SERVING' },
      'a2a-gateway.route.up': { status: 'SERVING' },
      'a2a-gateway.route.down': { status: 'NOT_SERVING' },
    },
    'List: every status set at start',
  );

  const gatewayStatus = watch('');
  await waitFor(() => gatewayStatus.seen.length > 0, 'the Watch answer for ""');
  tt.same(gatewayStatus.seen, ['SERVING'], 'the gateway is SERVING');
  const drained = gateway.drain(100);
  await waitFor(() => gatewayStatus.seen.includes('NOT_SERVING'), 'NOT_SERVING on the open Watch');
  tt.same(gatewayStatus.seen, ['SERVING', 'NOT_SERVING'], 'the drain reaches the open Watch stream');
  gatewayStatus.call.cancel();
  await drained;
});
