// `npm start`: the embedded default. Starts the demo echo agent, which speaks
// gRPC only, on 127.0.0.1:50061 (DEMO_AGENT_GRPC_PORT overrides; 0 = a free
// port), then the built gateway (dist/, `npm start` builds it first) on
// config/gateway.yaml, whose route makes that agent reachable over JSON-RPC
// and REST too. The route's upstream follows the port the agent really got.
// Run with tsx: the agent uses the SDK and express (devDependencies); the
// gateway itself is the compiled package.
import { startEchoAgent } from './echo-agent.js';

type Cli = typeof import('../../src/cli/main.js');
const DEMO_GRPC_PORT = Number(process.env.DEMO_AGENT_GRPC_PORT ?? 50061);

const { main } = (await import(new URL('../../dist/cli/main.js', import.meta.url).href)) as Cli;
const agent = await startEchoAgent({ bindings: ['GRPC'], grpcPort: DEMO_GRPC_PORT, name: 'Demo Echo Agent' });
process.stdout.write(`demo agent (gRPC only) listening on ${agent.grpcAddress}\n`);
const args = process.argv.slice(2);
const gateway = await main(args.length > 0 ? args : ['--config', 'config/gateway.yaml'], (config) => ({
  ...config,
  routes: config.routes.map((r) =>
    r.name === 'demo' ? { ...r, upstream: { ...r.upstream, url: `grpc://${agent.grpcAddress}` } } : r,
  ),
}));
if (!gateway) {
  await agent.close();
} else {
  const stop = (): void => {
    void agent.close();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
