// AsyncResource#bind once the gRPC client replaced it (src/upstream/lean-async-bind.ts):
// the bound function runs in the resource's async scope (AsyncLocalStorage
// sees the store it was bound in), with thisArg or else its own `this`, has
// fn's length, refuses a non-function as Node does, and carries no
// deprecated `asyncResource` accessor; a node:http2 request (which binds one
// per call) still completes.
import { AsyncLocalStorage, AsyncResource, executionAsyncId } from 'node:async_hooks';
import { connect, createServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import '../../src/upstream/grpc-session.js';
import { nodeBindAddsAccessor } from '../../src/upstream/lean-async-bind.js';

t.test('the gRPC client installs the lean bind (on a Node whose bind adds the accessor)', async (t) => {
  // Node 20 (where this suite runs) adds it; a Node without it keeps its own bind, which has no accessor either
  if (process.versions.node.startsWith('20.')) t.ok(nodeBindAddsAccessor, "Node 20's bind adds DEP0172's accessor");
  t.notOk(Object.getOwnPropertyNames(AsyncResource.bind(() => 1)).includes('asyncResource'), 'no DEP0172 accessor');
});

t.test('the bound function runs in the resource scope', async (t) => {
  const store = new AsyncLocalStorage<string>();
  const resource = store.run('bound-here', () => new AsyncResource('LeanBindTest'));
  const read = resource.bind(() => [store.getStore(), executionAsyncId()]);
  const [seen, id] = store.run('called-here', read);
  t.equal(seen, 'bound-here', "the store of the resource's context");
  t.equal(id, resource.asyncId(), "the resource's async id");
  const viaStatic = store.run('static', () => AsyncResource.bind(() => store.getStore()));
  t.equal(viaStatic(), 'static', 'AsyncResource.bind too');
});

t.test('this, arguments, length, refusal', async (t) => {
  const resource = new AsyncResource('LeanBindTest');
  function add(this: { base: number }, a: number, b: number): number {
    return this.base + a + b;
  }
  // Node's bind takes a thisArg, which @types/node leaves out
  const bindWith = resource.bind.bind(resource) as unknown as (fn: typeof add, thisArg: unknown) => typeof add;
  const withThis = bindWith(add, { base: 100 }) as unknown as (a: number, b: number) => number;
  t.equal(withThis(1, 2), 103, 'thisArg');
  t.equal(withThis.length, 2, "fn's length");
  const own = { base: 10, add: resource.bind(add) };
  t.equal(own.add(1, 2), 13, "without thisArg: the bound function's own this");
  t.throws(() => resource.bind('no' as unknown as () => void), { code: 'ERR_INVALID_ARG_TYPE' });
});

t.test('a node:http2 request completes', async (t) => {
  const server = createServer((_req, res) => res.end('pong'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const session = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  t.teardown(() => session.close());
  const req = session.request({ ':path': '/' });
  req.setEncoding('utf8');
  let body = '';
  for await (const chunk of req) body += chunk as string;
  t.equal(body, 'pong');
});
