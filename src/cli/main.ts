// The a2a-gateway command: serve from a YAML config (`--config FILE`), check a
// config without serving (`check --config FILE`), or a one-route quick start
// (`--upstream URL`) whose route sits at the root, built as a file would be
// and through the same checks. A bad config or flag, or a listener that
// cannot start, is one line per problem on stderr and exit 2, with nothing
// served; drains on SIGTERM, reloads on SIGHUP and file changes.
import { readFileSync } from 'node:fs';
import { format, parseArgs } from 'node:util';
import { cardWarnings } from '../config/checks-card.js';
import { listenerProblems } from '../config/checks.js';
import { ConfigError, parseConfig } from '../config/load.js';
import { CONFIG_SCHEMA } from '../config/schema.js';
import { stateFromRaw } from '../config/upstream.js';
import { DEFAULTS, type GatewayConfig } from '../config/types.js';
import { readConfig } from '../ops/config-watch.js';
import { LineBatch } from '../ops/line-batch.js';
import type { RunningGateway } from '../server/gateway.js';
import { ListenError } from '../server/listen-error.js';

export const HELP = `a2a-gateway: a protocol-translating reverse proxy for A2A 1.0 (JSON-RPC, HTTP+JSON/REST, gRPC)

Usage:
  a2a-gateway --config FILE                 serve the routes of a YAML config file
  a2a-gateway check --config FILE           validate a config file and exit (0 = valid)
  a2a-gateway --upstream URL [options]      quick start: one route at the root
  A2A_GATEWAY_CONFIG=FILE a2a-gateway       the config file from the environment (the Docker image's way)

Quick-start options:
  --upstream URL              the agent: its base URL (auto), JSON-RPC endpoint,
                              REST base URL, or gRPC host:port; repeat it for
                              replicas of one agent (upstream.endpoints)
  --upstream-binding B        auto | JSONRPC | HTTP+JSON | GRPC   (default: auto)
  --host H                    listen address                      (default: ${DEFAULTS.host})
  --http-port P               HTTP port: JSON-RPC, REST, cards    (default: ${DEFAULTS.httpPort})
  --grpc-port Q               gRPC port                           (default: ${DEFAULTS.grpcPort})
  --allow-host H              a host the agent's card may point at besides the
                              upstream's own (repeatable; upstream.allowedHosts)

Other:
  --redis URL                 share task affinity, rate limits and last good cards
                              with other gateway replicas (state.redis.url)
  --log-level L               fatal | error | warn | info | debug | trace | silent
  --version                   the version of a2a-gateway
  -h, --help                  this text
`;

/** package.json's version (two folders up from src/cli and dist/cli alike). */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

const LOG_LEVELS: readonly string[] = CONFIG_SCHEMA.properties.log.properties.level.enum;

/** The quick start's config source (never shown: its problems are said as flags). */
const COMMAND_LINE = '<command line>';

function port(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError([`${flag}: "${value}" is not a port number`]);
  return n;
}

/** A problem of the quick start's route as the flag that gave the value: `--upstream ftp://x: must be …`. */
function asFlag(problem: string, upstreams: string[]): string {
  const m = /^<command line>:\d+:\d+: (\S+): (.*)$/.exec(problem);
  if (!m) return problem;
  const [, field = '', message = ''] = m;
  if (field.endsWith('.binding')) return `--upstream-binding: ${message}`;
  // (a route's own "is not a host name" is of an allowed host: the quick start's route has no match.hosts)
  if (field.includes('.allowedHosts') || field === 'routes[0]') return `--allow-host: ${message}`;
  const endpoint = /\.endpoints\[(\d+)\]/.exec(field)?.[1];
  return `--upstream ${upstreams[Number(endpoint ?? 0)] ?? ''}: ${message}`;
}

/** The --upstream quick start's one route at the root, through the schema and checks a config file goes through. */
function quickStart(upstreams: string[], binding: string | undefined, allowHosts: string[]): GatewayConfig {
  const upstream = {
    ...(upstreams.length === 1 ? { url: upstreams[0] } : { endpoints: upstreams.map((url) => ({ url })) }),
    ...(binding !== undefined ? { binding } : {}),
    ...(allowHosts.length > 0 ? { allowedHosts: allowHosts } : {}),
  };
  try {
    return parseConfig(JSON.stringify({ routes: [{ name: 'default', upstream }] }), COMMAND_LINE);
  } catch (e) {
    throw e instanceof ConfigError ? new ConfigError(e.problems.map((p) => asFlag(p, upstreams))) : e;
  }
}

export async function configFromArgs(argv: string[]): Promise<{
  command: 'serve' | 'check' | 'help' | 'version';
  config?: GatewayConfig;
  configFile?: { path: string; hash: string };
  /** What the command line sets over the file, applied again to every reloaded file (`--redis`). */
  overrides?: Partial<GatewayConfig>;
}> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      upstream: { type: 'string', multiple: true },
      redis: { type: 'string' },
      'upstream-binding': { type: 'string' },
      host: { type: 'string' },
      'http-port': { type: 'string' },
      'grpc-port': { type: 'string' },
      'log-level': { type: 'string' },
      'allow-host': { type: 'string', multiple: true },
      version: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { command: 'help' };
  if (values.version) return { command: 'version' };
  const command = positionals[0] === 'check' ? 'check' : 'serve';
  if (positionals.length > (command === 'check' ? 1 : 0))
    throw new ConfigError([`unknown argument "${positionals.at(-1)}" (see --help)`]);
  let config: GatewayConfig;
  let configFile: { path: string; hash: string } | undefined;
  const upstreams = values.upstream ?? [];
  const configPath = values.config ?? (upstreams.length > 0 ? undefined : process.env.A2A_GATEWAY_CONFIG);
  const allowHosts = values['allow-host'] ?? [];
  if (configPath) {
    if (allowHosts.length > 0)
      throw new ConfigError(['--allow-host is for the --upstream quick start; in a file, use upstream.allowedHosts']);
    const read = await readConfig(configPath);
    config = read.config;
    configFile = { path: configPath, hash: read.hash };
  } else if (upstreams.length > 0 && command === 'serve') {
    config = quickStart(upstreams, values['upstream-binding'], allowHosts);
  } else {
    throw new ConfigError([
      command === 'check' ? 'check needs --config FILE' : 'give --config FILE or --upstream URL (see --help)',
    ]);
  }
  const level = values['log-level'];
  if (level !== undefined && !LOG_LEVELS.includes(level))
    throw new ConfigError([`--log-level: "${level}" is not one of ${LOG_LEVELS.join(', ')}`]);
  if (values.host === '') throw new ConfigError(['--host: an empty address (give 0.0.0.0 or :: for every interface)']);
  config = {
    ...config,
    host: values.host ?? config.host,
    httpPort: port(values['http-port'], config.httpPort, '--http-port'),
    grpcPort: port(values['grpc-port'], config.grpcPort, '--grpc-port'),
    logLevel: values['log-level'] ?? config.logLevel,
  };
  // what the command line sets wins over the file at every reload too
  const overrides: Partial<GatewayConfig> = {
    ...(values.redis !== undefined ? { state: redisState(values.redis) } : {}),
    ...(values['log-level'] !== undefined ? { logLevel: values['log-level'] } : {}),
  };
  config = { ...config, ...overrides };
  const clash = listenerProblems(config);
  if (clash.length > 0) throw new ConfigError(clash.map((p) => `${p.path.slice(1).replace('/', '.')}: ${p.message}`));
  return { command, config, overrides, ...(configFile ? { configFile } : {}) };
}

function redisState(url: string): GatewayConfig['state'] {
  if (!/^rediss?:\/\/\S+$/.test(url)) throw new ConfigError([`--redis: "${url}" is not a redis:// or rediss:// URL`]);
  return stateFromRaw({ redis: { url } });
}

/** `adjust` lets an embedding program (the demo) amend the config before it is served. */
export async function main(
  argv: string[],
  adjust: (c: GatewayConfig) => GatewayConfig = (c) => c,
): Promise<RunningGateway | undefined> {
  let parsed;
  try {
    parsed = await configFromArgs(argv);
  } catch (e) {
    // One line per problem, each with its file:line:column when it comes from a file.
    const problems = e instanceof ConfigError ? e.problems : [(e as Error).message];
    process.stderr.write(problems.map((p) => `a2a-gateway: ${p}\n`).join(''));
    process.exitCode = 2;
    return undefined;
  }
  if (parsed.command === 'version') {
    process.stdout.write(`${version()}\n`);
    return undefined;
  }
  if (parsed.command === 'help' || !parsed.config) {
    process.stdout.write(HELP);
    return undefined;
  }
  if (parsed.command === 'check') {
    // valid, but worth a look (exit 0)
    for (const w of cardWarnings(parsed.config.routes)) process.stderr.write(`a2a-gateway: warning: ${w}\n`);
    process.stdout.write(`${parsed.config.source}: valid (${parsed.config.routes.length} route(s))\n`);
    return undefined;
  }
  // Asynchronous log writes: one line per call must not block the event loop on stdout.
  // Loaded only to serve: --help, --version and check answer without the servers' modules.
  const [{ pino }, grpc, { REDACT_PATHS, startGateway }, { flushThenExit, holdSignals, installLifecycle }] =
    await Promise.all([
      import('pino'),
      import('@grpc/grpc-js'),
      import('../server/gateway.js'),
      import('../ops/lifecycle.js'),
    ]);
  const config = adjust(parsed.config);
  // The call lines are buffered and written per 8 KiB, or every second (as Envoy flushes its access log): one
  // asynchronous write per call cost each call a thread-pool write and a wake-up of the event loop. Every other
  // line is written at once (the hook flushes after it); the exit flushes what is left (lifecycle.ts).
  const dest = pino.destination({ dest: 1, sync: false, minLength: 8192, periodicFlush: 1000 });
  const log = pino(
    {
      level: config.logLevel,
      redact: REDACT_PATHS,
      hooks: {
        logMethod(args, method) {
          // (after a write the output is open: a write to a closed one throws, a disabled level never gets here)
          method.apply(this, args);
          dest.flush();
        },
      },
    },
    dest,
  );
  // (the lines of a turn reach the buffer in one write: ops/line-batch.ts)
  const accessLog = pino({ level: config.logLevel }, new LineBatch(dest));
  // grpc-js's own messages become log lines like every other (not "E …" on stderr).
  const grpcLog = log.child({ source: 'grpc-js' });
  grpc.setLogger({
    error: (m: unknown, ...p: unknown[]) => grpcLog.warn(format(m, ...p)),
    info: (m: unknown, ...p: unknown[]) => grpcLog.info(format(m, ...p)),
    debug: (m: unknown, ...p: unknown[]) => grpcLog.debug(format(m, ...p)),
  });
  let gateway: RunningGateway;
  // a signal while the gateway starts is handled once the lifecycle is installed (not Node's default exit)
  const signals = holdSignals();
  try {
    gateway = await startGateway(config, log, { accessLog });
  } catch (e) {
    // any listener that cannot start (address in use, a host name that does not resolve, …): one line, exit 2
    if (!(e instanceof ListenError)) throw e;
    // Listeners already bound and card fetches under way would keep the process up: exit here.
    process.stderr.write(`a2a-gateway: ${e.message}\n`);
    flushThenExit(log, 2, dest);
    return undefined;
  }
  installLifecycle(gateway, log, config.shutdownGraceMs, parsed.configFile, dest, parsed.overrides, (next) => {
    // a reloaded log.level is the level of every line from now on (a pino child keeps its own: grpc-js's lines)
    for (const logger of [log, accessLog, grpcLog]) logger.level = next.logLevel;
  });
  signals.release();
  return gateway;
}
