// The a2a-gateway command: serve from a YAML config (`--config FILE`), check a
// config without serving (`check --config FILE`), or a one-route quick start
// (`--upstream URL`) whose route sits at the root. Exits non-zero on a bad
// config and serves nothing then; drains on SIGTERM, reloads on SIGHUP.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfigFile, routeFromRaw } from '../config/load.js';
import { DEFAULTS, type Binding, type GatewayConfig } from '../config/types.js';
import { pino } from 'pino';
import { installLifecycle } from '../ops/lifecycle.js';
import { REDACT_PATHS, startGateway, type RunningGateway } from '../server/gateway.js';

export const HELP = `a2a-gateway: a protocol-translating reverse proxy for A2A 1.0 (JSON-RPC, HTTP+JSON/REST, gRPC)

Usage:
  a2a-gateway --config FILE                 serve the routes of a YAML config file
  a2a-gateway check --config FILE           validate a config file and exit (0 = valid)
  a2a-gateway --upstream URL [options]      quick start: one route at the root
  A2A_GATEWAY_CONFIG=FILE a2a-gateway       the config file from the environment (the Docker image's way)

Quick-start options:
  --upstream URL              the agent: its base URL (auto), JSON-RPC endpoint,
                              REST base URL, or gRPC host:port
  --upstream-binding B        auto | JSONRPC | HTTP+JSON | GRPC   (default: auto)
  --host H                    listen address                      (default: ${DEFAULTS.host})
  --http-port P               HTTP port: JSON-RPC, REST, cards    (default: ${DEFAULTS.httpPort})
  --grpc-port Q               gRPC port                           (default: ${DEFAULTS.grpcPort})

Other:
  --log-level L               fatal | error | warn | info | debug | trace | silent
  -h, --help                  this text
`;

const BINDING_VALUES = ['auto', 'JSONRPC', 'HTTP+JSON', 'GRPC'];

function port(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError([`${flag}: "${value}" is not a port number`]);
  return n;
}

export function configFromArgs(argv: string[]): {
  command: 'serve' | 'check' | 'help';
  config?: GatewayConfig;
  configPath?: string;
} {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      upstream: { type: 'string' },
      'upstream-binding': { type: 'string' },
      host: { type: 'string' },
      'http-port': { type: 'string' },
      'grpc-port': { type: 'string' },
      'log-level': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { command: 'help' };
  const command = positionals[0] === 'check' ? 'check' : 'serve';
  if (positionals.length > (command === 'check' ? 1 : 0))
    throw new ConfigError([`unknown argument "${positionals.at(-1)}" (see --help)`]);
  let config: GatewayConfig;
  const configPath = values.config ?? (values.upstream ? undefined : process.env.A2A_GATEWAY_CONFIG);
  if (configPath) {
    config = loadConfigFile(configPath);
  } else if (values.upstream && command === 'serve') {
    const binding = values['upstream-binding'] ?? 'auto';
    if (!BINDING_VALUES.includes(binding))
      throw new ConfigError([`--upstream-binding: must be one of ${BINDING_VALUES.join(', ')}`]);
    config = {
      source: '<command line>',
      host: DEFAULTS.host,
      httpPort: DEFAULTS.httpPort,
      grpcPort: DEFAULTS.grpcPort,
      tls: undefined,
      publicHttpUrl: undefined,
      publicGrpcAddress: undefined,
      logLevel: DEFAULTS.logLevel,
      trustedProxies: [],
      admin: undefined,
      grpcReflection: true,
      shutdownGraceMs: 10_000,
      tracing: undefined,
      routes: [
        routeFromRaw({ name: 'default', upstream: { url: values.upstream, binding: binding as Binding | 'auto' } }),
      ],
    };
  } else {
    throw new ConfigError([
      command === 'check' ? 'check needs --config FILE' : 'give --config FILE or --upstream URL (see --help)',
    ]);
  }
  config = {
    ...config,
    host: values.host ?? config.host,
    httpPort: port(values['http-port'], config.httpPort, '--http-port'),
    grpcPort: port(values['grpc-port'], config.grpcPort, '--grpc-port'),
    logLevel: values['log-level'] ?? config.logLevel,
  };
  return { command, config, ...(configPath ? { configPath } : {}) };
}

export async function main(argv: string[]): Promise<RunningGateway | undefined> {
  let parsed;
  try {
    parsed = configFromArgs(argv);
  } catch (e) {
    process.stderr.write(`a2a-gateway: ${(e as Error).message}\n`);
    process.exitCode = 2;
    return undefined;
  }
  if (parsed.command === 'help' || !parsed.config) {
    process.stdout.write(HELP);
    return undefined;
  }
  if (parsed.command === 'check') {
    process.stdout.write(`${parsed.config.source}: valid (${parsed.config.routes.length} route(s))\n`);
    return undefined;
  }
  // Asynchronous log writes: one line per call must not block the event loop on stdout.
  const log = pino({ level: parsed.config.logLevel, redact: REDACT_PATHS }, pino.destination({ dest: 1, sync: false }));
  const gateway = await startGateway(parsed.config, log);
  installLifecycle(gateway, log, parsed.config.shutdownGraceMs, parsed.configPath);
  return gateway;
}
