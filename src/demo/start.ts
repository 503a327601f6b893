// `npm start`: the embedded default. Starts the demo echo agent, which speaks
// gRPC only, on 127.0.0.1:50061, then the gateway on config/gateway.yaml,
// whose route makes that agent reachable over JSON-RPC and REST too.
import { main } from '../cli/main.js';
import { startEchoAgent } from './echo-agent.js';

const DEMO_GRPC_PORT = Number(process.env.DEMO_AGENT_GRPC_PORT ?? 50061);

const agent = await startEchoAgent({ bindings: ['GRPC'], grpcPort: DEMO_GRPC_PORT, name: 'Demo Echo Agent' });
process.stdout.write(`demo agent (gRPC only) listening on ${agent.grpcAddress}\n`);
const args = process.argv.slice(2);
const gateway = await main(args.length > 0 ? args : ['--config', 'config/gateway.yaml']);
if (!gateway) {
  await agent.close();
} else {
  const stop = (): void => {
    void agent.close();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
