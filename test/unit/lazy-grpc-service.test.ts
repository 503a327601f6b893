// gRPC services whose library loads on their first call
// (src/util/lazy-grpc-service.ts), on a real grpc-js server and client: the
// shapes the gateway registers at start (grpc.health.v1, both reflection
// versions) are the ones the libraries register; the loader runs on the first
// call, whichever method it is, and once; then the library's own codecs and
// handlers answer every method (unary, server stream with later updates,
// unknown service).
import t from 'tap';
import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation, service as healthService } from 'grpc-health-check';
import { HEALTH_SERVICE } from '../../src/ops/health.js';
import { REFLECTION_SERVICES } from '../../src/server/grpc-reflection.js';
import { addLazyService, captureServices, type ServiceShape } from '../../src/util/lazy-grpc-service.js';
import { waitFor } from '../helpers/wait.js';

/** The shape grpc-js registers for each method of a service definition. */
function shapeOf(definition: grpc.ServiceDefinition): ServiceShape {
  return Object.fromEntries(
    Object.entries(definition).map(([name, m]) => [
      name,
      { path: m.path, requestStream: m.requestStream, responseStream: m.responseStream },
    ]),
  );
}

t.test('the shapes registered at start are the ones the libraries register', async (tt) => {
  tt.same(HEALTH_SERVICE, shapeOf(healthService), 'grpc.health.v1.Health: Check, Watch, List');
  const reflection: ServiceShape[] = [];
  new ReflectionService({}).addToServer({
    addService: (definition: grpc.ServiceDefinition) => reflection.push(shapeOf(definition)),
  } as unknown as grpc.Server);
  tt.same(REFLECTION_SERVICES, reflection, 'grpc.reflection v1 and v1alpha: ServerReflectionInfo');
});

type Answer = { status: string };
type HealthClient = grpc.Client & {
  check(req: { service: string }, cb: (e: grpc.ServiceError | null, a?: Answer) => void): void;
  list(req: object, cb: (e: grpc.ServiceError | null, a?: { statuses: Record<string, Answer> }) => void): void;
  watch(req: { service: string }): grpc.ClientReadableStream<Answer>;
};

t.test('loaded on the first call, once; then the library answers every method', async (tt) => {
  const server = new grpc.Server();
  const health = new HealthImplementation({ '': 'SERVING' });
  let loads = 0;
  addLazyService(server, HEALTH_SERVICE, () => {
    loads++;
    return captureServices((s) => health.addToServer(s));
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  const Client = grpc.makeClientConstructor(healthService, 'Health');
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as HealthClient;
  tt.teardown(() => {
    client.close();
    server.forceShutdown();
  });
  tt.equal(loads, 0, 'nothing loaded at registration and bind');

  // first call: a server stream (its request is decoded before any handler runs)
  const seen: string[] = [];
  const watch = client.watch({ service: '' });
  watch.on('data', (a: Answer) => seen.push(a.status));
  watch.on('error', () => undefined); // cancelled at the end
  await waitFor(() => seen.length === 1, 'the first Watch answer');
  tt.same(seen, ['SERVING'], 'Watch: the current status');
  health.setStatus('', 'NOT_SERVING');
  await waitFor(() => seen.length === 2, 'the update on the Watch stream');
  tt.same(seen, ['SERVING', 'NOT_SERVING'], 'Watch: a later change reaches the open stream');
  watch.cancel();

  const check = (service: string) =>
    new Promise<Answer | grpc.ServiceError>((resolve) => client.check({ service }, (e, a) => resolve(e ?? a!)));
  tt.same(await check(''), { status: 'NOT_SERVING' }, 'Check (unary)');
  tt.equal(((await check('nope')) as grpc.ServiceError).code, grpc.status.NOT_FOUND, 'Check: unknown service');
  const list = await new Promise<{ statuses: Record<string, Answer> }>((resolve, reject) =>
    client.list({}, (e, a) => (e ? reject(e) : resolve(a!))),
  );
  tt.same(list.statuses, { '': { status: 'NOT_SERVING' } }, 'List');
  tt.equal(loads, 1, 'the library was loaded once for all methods and calls');
});
