// The metrics list of docs/operations.md, generated from what the gateway
// registers with prom-client (src/ops/metrics.ts, src/ops/endpoint-metrics.ts): every family with its type,
// labels and help text, the gateway's own first, then prom-client's process
// and Node.js metrics. `npm run docs` writes it; test/unit/docs.test.ts fails
// when the page is stale, and this fails on a label nobody has described.
import { EndpointMetrics } from '../../src/ops/endpoint-metrics.js';
import { Metrics } from '../../src/ops/metrics.js';

/** What each label's values are (a new label must be described here before the docs can be generated). */
const LABELS: Record<string, string> = {
  route: 'the route name from the config',
  method: 'the A2A 1.0 method (`SendMessage`, …), `unknown` for anything not in the method catalogue',
  inbound: "the caller's binding: `JSONRPC`, `HTTP+JSON`, `GRPC`",
  upstream: "the upstream interface's binding",
  outcome:
    '`OK` or the error reason of the catalogue (calls); `updated`, `not_modified`, `failed` (card refreshes); `success`, `rejected` (reloads)',
  version: "the caller's A2A version, `1.0` or `0.3` (`-` before it is known)",
  upstream_version: "the upstream interface's A2A version",
  reason: '`UPSTREAM_UNAVAILABLE` or `UPSTREAM_TIMEOUT`',
  hash: 'the first 12 hex digits of the SHA-256 of the config file in force (compare replicas)',
  endpoint: "the endpoint's configured name (`upstream.endpoints[].name`, default `endpoint-<index>`; never its URL)",
  status: '`healthy`, `unhealthy` (active checks), `ejected` (outlier detection)',
};

interface Family {
  name: string;
  help: string;
  labelNames: readonly string[];
  type: string;
}

function families(): Family[] {
  const { registry } = new Metrics();
  new EndpointMetrics(registry); // registered by the gateway beside its own (src/server/gateway.ts)
  const registered = registry.getMetricsAsArray() as unknown as Array<{
    name: string;
    help: string;
    labelNames?: readonly string[];
    constructor: { name: string };
  }>;
  return registered.map((m) => ({
    name: m.name,
    help: m.help,
    labelNames: m.labelNames ?? [],
    type: m.constructor.name.toLowerCase(),
  }));
}

/** Registered on Linux only: left out of the table, so that the page is the same wherever it is generated. */
const LINUX_ONLY = /_fds$/;
const isProcess = (name: string) => /^a2a_gateway_(process|nodejs)_/.test(name);
const esc = (s: string) => s.replace(/\|/g, '\\|');

/** The generated metrics tables (Markdown). */
export function metricsTableMarkdown(): string {
  const all = families();
  const own = all.filter((f) => !isProcess(f.name));
  const used = [...new Set(own.flatMap((f) => f.labelNames))];
  const undescribed = used.filter((l) => !(l in LABELS));
  if (undescribed.length) throw new Error(`describe the metric labels ${undescribed.join(', ')} in metrics-table.ts`);
  const row = (f: Family) =>
    `| \`${f.name}\` | ${f.type} | ${f.labelNames.map((l) => `\`${l}\``).join(', ') || '—'} | ${esc(f.help)} |`;
  return [
    '| metric | type | labels | what it counts |',
    '| :-- | :-- | :-- | :-- |',
    ...own.map(row),
    '',
    '| label | values |',
    '| :-- | :-- |',
    ...used.map((l) => `| \`${l}\` | ${LABELS[l]} |`),
    '',
    "prom-client's default process and Node.js metrics, with the same prefix (on Linux also",
    '`a2a_gateway_process_open_fds` and `a2a_gateway_process_max_fds`, the open and allowed file descriptors):',
    '',
    '| metric | type | labels | what it counts |',
    '| :-- | :-- | :-- | :-- |',
    ...all.filter((f) => isProcess(f.name) && !LINUX_ONLY.test(f.name)).map(row),
  ].join('\n');
}
