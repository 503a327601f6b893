// What a gateway loads before anyone uses a feature (issue 11, idle memory):
// the built CLI with one route, no admin listener (nor fastify, its framework), authentication, rate
// limits or card signatures (nor the parts of undici past its dispatchers), and gRPC health and reflection on (the default),
// loads none of the libraries only those features use — each would keep its
// code and parsed protos in memory for the life of the process — and a call
// does not load them either; gRPC health's library loads with its first call.
// A preload (written to the test's folder, passed in NODE_OPTIONS) records
// every module the process loads: ESM through a module hook, CommonJS from
// require.cache when the test asks (SIGUSR2).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGatewayProcess } from '../helpers/cli-process.js';
import { CALLERS, callGrpcRaw, closeGrpcClients, userMessage } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

const PRELOAD = `
const { appendFileSync } = require('node:fs');
const { register } = require('node:module');
const { pathToFileURL } = require('node:url');
const out = process.env.LOADED_MODULES_FILE;
register(pathToFileURL(__dirname + '/hooks.mjs'), { data: { out } });
let asked = 0;
process.on('SIGUSR2', () => {
  const cjs = Object.keys(require.cache).map((f) => pathToFileURL(f).href);
  appendFileSync(out, cjs.join('\\n') + '\\nasked ' + ++asked + '\\n');
});
`;
const HOOKS = `
import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function load(url, context, next) {
  appendFileSync(out, url + '\\n');
  return next(url, context);
}
`;

/** Libraries (and our modules) that only a feature this gateway does not use needs. */
const FEATURE_ONLY = [
  '/node_modules/grpc-health-check/',
  '/node_modules/@grpc/reflection/',
  '/node_modules/@grpc/proto-loader/',
  '/protobufjs/',
  // the rate limits' token buckets, in memory and in Redis
  '/dist/core/token-bucket.js',
  '/dist/state/rate-buckets.js',
  '/node_modules/jose/',
  '/dist/admin/console.js',
  // the admin listener's framework: the public listener is node:http
  '/node_modules/fastify/',
  '/dist/server/admin.js',
  // undici's fetch, WebSocket, EventSource, HTTP cache and mock agents: the gateway uses its dispatchers only
  '/node_modules/undici/lib/web/',
  '/node_modules/undici/lib/mock/',
  '/node_modules/undici/lib/cache/',
];

const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
t.teardown(async () => {
  closeGrpcClients();
  await agent.close();
});

t.test('an idle gateway loads no feature it does not use; gRPC health loads with its first call', async (tt) => {
  const dir = tt.testdir({ 'preload.cjs': PRELOAD, 'hooks.mjs': HOOKS });
  const file = join(dir, 'loaded.txt');
  writeFileSync(file, '');
  const p = await startGatewayProcess(
    dir,
    {
      listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
      log: { level: 'info' },
      routes: [{ name: 'echo', upstream: { url: agent.urlFor('JSONRPC'), binding: 'JSONRPC' } }],
    },
    { ...process.env, NODE_OPTIONS: `--require ${join(dir, 'preload.cjs')}`, LOADED_MODULES_FILE: file },
  );
  tt.teardown(() => p.stop());
  let asked = 0;
  const loaded = async (): Promise<string[]> => {
    p.child.kill('SIGUSR2');
    const marker = `asked ${++asked}`;
    await waitFor(() => readFileSync(file, 'utf8').includes(marker), `the module list (${marker})`);
    return readFileSync(file, 'utf8').split('\n');
  };
  const featureOnly = (modules: string[]): string[] =>
    FEATURE_ONLY.filter((part) => modules.some((m) => m.includes(part)));

  const atStart = await loaded();
  for (const part of ['/node_modules/@grpc/grpc-js/', '/node_modules/undici/', '/dist/server/gateway.js'])
    tt.ok(
      atStart.some((m) => m.includes(part)),
      `the list has what the gateway does load (${part})`,
    );
  tt.same(featureOnly(atStart), [], 'at start: none of the feature-only libraries');

  const answer = await CALLERS.JSONRPC(
    { httpUrl: `http://${p.http}` } as never,
    'SendMessage',
    { message: userMessage('hello') },
    { tenant: '', prefix: '' },
  );
  tt.equal(answer.ok, true, 'a call through the gateway');
  tt.same(featureOnly(await loaded()), [], 'after a call: still none');

  const health = await callGrpcRaw(p.grpc, 'Check' as never, Buffer.alloc(0), {}, '/grpc.health.v1.Health/Check');
  tt.equal(health.value?.[1], 1, 'gRPC health: SERVING');
  tt.same(
    featureOnly(await loaded()),
    ['/node_modules/grpc-health-check/', '/node_modules/@grpc/proto-loader/', '/protobufjs/'],
    'the first gRPC health call loaded its library (and nothing else)',
  );
});
