// Runs the demo echo agent on its own (for docker/compose.yaml and local
// experiments): `node --import tsx examples/demo-agent/agent-main.ts --binding GRPC --port 50061`
// (bindings: JSONRPC, HTTP+JSON, GRPC; repeat --binding for several).
import { parseArgs } from 'node:util';
import { startEchoAgent, type AgentBinding } from './echo-agent.js';

const { values } = parseArgs({
  options: {
    binding: { type: 'string', multiple: true },
    host: { type: 'string', default: '0.0.0.0' },
    port: { type: 'string', default: '0' },
    'grpc-port': { type: 'string' },
    name: { type: 'string', default: 'Demo Echo Agent' },
  },
});
const bindings = (values.binding ?? ['GRPC']) as AgentBinding[];
const port = Number(values.port);
const agent = await startEchoAgent({
  bindings,
  host: values.host,
  name: values.name,
  httpPort: port,
  grpcPort: values['grpc-port'] ? Number(values['grpc-port']) : port,
});
process.stdout.write(`${values.name}: ${bindings.map((b) => `${b} ${agent.urlFor(b)}`).join(', ')}\n`);
const stop = (): void => {
  void agent.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
