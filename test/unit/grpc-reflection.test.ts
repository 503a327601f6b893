// gRPC reflection on a real grpc-js server (src/server/grpc-reflection.ts):
// both reflection versions answer from descriptors built on the first call;
// descriptors that cannot be built do not stop the start, are logged once,
// and every reflection call ends with INTERNAL (no path in the answer) while
// the server keeps answering. (The gateway's own reflection is tested end to
// end in operations.test.ts.)
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import t from 'tap';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { pino } from 'pino';
import { addReflection } from '../../src/server/grpc-reflection.js';

type Answer = {
  listServicesResponse?: { service: Array<{ name: string }> };
  errorResponse?: { errorCode: number };
};

async function serve(protoDir?: string): Promise<{ address: string; close: () => void; logged: string[] }> {
  const server = new grpc.Server();
  const logged: string[] = [];
  addReflection(server, pino({ level: 'error' }, { write: (line: string) => logged.push(line) }), protoDir);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { address: `127.0.0.1:${port}`, close: () => server.forceShutdown(), logged };
}

function client(
  address: string,
  version: 'v1' | 'v1alpha',
): grpc.Client & Record<string, () => grpc.ClientDuplexStream<object, Answer>> {
  const file = join(
    dirname(createRequire(import.meta.url).resolve('@grpc/reflection/package.json')),
    `build/proto/grpc/reflection/${version}/reflection.proto`,
  );
  const def = grpc.loadPackageDefinition(protoLoader.loadSync(file)) as unknown as {
    grpc: { reflection: Record<string, { ServerReflection: grpc.ServiceClientConstructor }> };
  };
  const Ctor = def.grpc.reflection[version]!.ServerReflection;
  return new Ctor(address, grpc.credentials.createInsecure()) as never;
}

/** One listServices request: the answer, or the call's error status. */
function listServices(c: ReturnType<typeof client>): Promise<Answer | grpc.ServiceError> {
  return new Promise((resolve) => {
    const call = c.ServerReflectionInfo!();
    call.on('data', (a: Answer) => {
      resolve(a);
      call.end();
    });
    call.on('error', (e: grpc.ServiceError) => resolve(e));
    call.write({ listServices: '' });
  });
}

t.test('both versions answer from descriptors built on the first call', async (tt) => {
  const s = await serve();
  tt.teardown(s.close);
  for (const version of ['v1', 'v1alpha'] as const) {
    const c = client(s.address, version);
    const answer = (await listServices(c)) as Answer;
    c.close();
    const names = answer.listServicesResponse?.service.map((x) => x.name) ?? [];
    tt.ok(names.includes('lf.a2a.v1.A2AService'), `${version}: lists the A2A service`);
    tt.ok(names.includes('grpc.health.v1.Health'), `${version}: and health`);
  }
});

t.test('descriptors that cannot be built: the start goes on, INTERNAL per call, logged once', async (tt) => {
  const dir = tt.testdir(); // no a2a.proto: building at start (as before) would have thrown here
  const s = await serve(dir);
  tt.teardown(s.close);
  tt.same(s.logged, [], 'nothing built, nothing logged at start');
  for (const round of [1, 2, 3]) {
    const c = client(s.address, round === 2 ? 'v1alpha' : 'v1');
    const e = (await listServices(c)) as grpc.ServiceError;
    c.close();
    tt.equal(e.code, grpc.status.INTERNAL, `call ${round}: INTERNAL`);
    tt.equal(e.details, 'gRPC reflection is unavailable', `call ${round}: a fixed text`);
    tt.notMatch(e.details, dir, `call ${round}: no path`);
  }
  tt.equal(s.logged.length, 1, 'the failure is logged once, not rebuilt per call');
  tt.match(s.logged[0], /cannot be built/);
});
