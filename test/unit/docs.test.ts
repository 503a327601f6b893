// The docs cannot drift from the code: every generated region of docs/*.md and
// every generated file (the config schema, the architecture diagram, the
// benchmark figure) is what `npm run docs` writes now; the configuration
// page's example passes the loader's schema and names every field; the
// schema's defaults are the ones the loader applies; the architecture diagram
// shows exactly the pipeline's stages; the security page states every limit
// with its default; and every relative link and anchor of the README and
// docs/ leads somewhere.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { Ajv } from 'ajv';
import t from 'tap';
import { parseConfig } from '../../src/config/load.js';
import { CONFIG_SCHEMA } from '../../src/config/schema.js';
import type { GatewayConfig, RouteConfig } from '../../src/config/types.js';
import { STAGE_NAMES } from '../../src/pipeline/pipeline.js';
import { exampleDocuments, fieldPaths, type SchemaNode } from '../../scripts/docs/config-reference.js';
import { FILES, regenerate, REGIONS, ROOT } from '../../scripts/docs/generate.js';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

t.test('every generated region is up to date (npm run docs)', async (tt) => {
  for (const region of REGIONS) {
    const page = read(region.file);
    tt.equal(page, regenerate(page, region), `${region.file}: <!-- ${region.marker} --> is fresh`);
  }
});

t.test('every generated file is up to date (npm run docs)', async (tt) => {
  for (const [file, generate] of Object.entries(FILES)) tt.equal(read(file), generate(), `${file} is fresh`);
});

t.test("the configuration page's example passes the schema and names every field", async (tt) => {
  const [asWritten, ...alternatives] = exampleDocuments(read('docs/configuration.md'));
  const validate = new Ajv({ allErrors: true, strict: true }).compile(CONFIG_SCHEMA);
  tt.ok(validate(asWritten), `valid: ${JSON.stringify(validate.errors ?? [])}`);
  for (const alt of alternatives) tt.ok(validate(alt), `an alternative is valid: ${JSON.stringify(validate.errors)}`);
  const present = (doc: unknown, path: string): boolean => {
    let values: unknown[] = [doc];
    for (const part of path.split('.')) {
      const key = part.replace(/\[\]$/, '');
      values = values
        .flatMap((v) => (v && typeof v === 'object' && !Array.isArray(v) ? [(v as Record<string, unknown>)[key]] : []))
        .flatMap((v) => (part.endsWith('[]') && Array.isArray(v) ? v : [v]))
        .filter((v) => v !== undefined);
    }
    return values.length > 0;
  };
  for (const path of fieldPaths())
    tt.ok(
      [asWritten, ...alternatives].some((d) => present(d, path)),
      `the example has ${path}`,
    );
});

/** Where the loader puts each field that has a default: schema path → the value in the typed config. */
const LOADED: Record<string, (c: GatewayConfig, r: RouteConfig) => unknown> = {
  'listen.host': (c) => c.host,
  'listen.httpPort': (c) => c.httpPort,
  'listen.grpcPort': (c) => c.grpcPort,
  trustedProxies: (c) => c.trustedProxies,
  grpcReflection: (c) => c.grpcReflection,
  'tracing.protocol': (c) => c.tracing?.protocol,
  'tracing.headers': (c) => c.tracing?.headers,
  'tracing.serviceName': (c) => c.tracing?.serviceName,
  'tracing.sampleRatio': (c) => c.tracing?.sampleRatio,
  'tracing.flushIntervalMs': (c) => c.tracing?.flushIntervalMs,
  shutdownGraceMs: (c) => c.shutdownGraceMs,
  'log.level': (c) => c.logLevel,
  'routes[].match.pathPrefix': (_c, r) => r.pathPrefix || '/', // the root is kept as ""
  'routes[].match.hosts': (_c, r) => r.hosts,
  'routes[].upstream.binding': (_c, r) => r.upstream.binding,
  'routes[].upstream.version': (_c, r) => r.upstream.version,
  'routes[].upstream.allowedHosts': (_c, r) => r.upstream.allowedHosts,
  'routes[].upstream.allowPlaintextInterfaces': (_c, r) => r.upstream.allowPlaintextInterfaces,
  'routes[].upstream.tenant': (_c, r) => r.upstream.tenant.mode,
  'routes[].card.overrides': (_c, r) => r.card.overrides,
  'routes[].card.maxAgeSeconds': (_c, r) => r.card.maxAgeSeconds,
  'routes[].card.signatures': (_c, r) => r.card.signatures,
  'routes[].cors.allowCredentials': (_c, r) => r.cors?.allowCredentials,
  'routes[].cors.allowHeaders': (_c, r) => r.cors?.allowHeaders,
  'routes[].cors.exposeHeaders': (_c, r) => r.cors?.exposeHeaders,
  'routes[].cors.maxAgeSeconds': (_c, r) => r.cors?.maxAgeSeconds,
  'routes[].rateLimit.perCaller': (_c, r) => r.rateLimit?.perCaller,
  'routes[].auth.apiKey.in': (_c, r) => r.auth?.apiKey?.location,
  'routes[].auth.jwt.clockSkewSeconds': (_c, r) => r.auth?.jwt?.clockSkewSeconds,
  'routes[].auth.jwt.requireExpiration': (_c, r) => r.auth?.jwt?.requireExpiration,
  'routes[].auth.mtls': (_c, r) => r.auth?.mtls,
  'routes[].auth.advertise': (_c, r) => r.auth?.advertise,
  'admin.allowedHosts': (c) => c.admin?.allowedHosts,
  'state.redis.keyPrefix': (c) => c.state?.redis.keyPrefix,
  'state.redis.rateLimitFailure': (c) => c.state?.redis.rateLimitFailure,
  'state.redis.commandTimeoutMs': (c) => c.state?.redis.commandTimeoutMs,
  'routes[].upstream.endpoints[].weight': (_c, r) => r.upstream.endpoints[0]?.weight,
  'routes[].upstream.sharedTaskStore': (_c, r) => r.upstream.sharedTaskStore,
  'routes[].upstream.loadBalancing': (_c, r) => r.upstream.loadBalancing,
  'routes[].upstream.healthCheck.intervalMs': (c) => c.routes[1]?.upstream.healthCheck?.intervalMs,
  'routes[].upstream.healthCheck.timeoutMs': (c) => c.routes[1]?.upstream.healthCheck?.timeoutMs,
  'routes[].upstream.healthCheck.unhealthyThreshold': (c) => c.routes[1]?.upstream.healthCheck?.unhealthyThreshold,
  'routes[].upstream.healthCheck.healthyThreshold': (c) => c.routes[1]?.upstream.healthCheck?.healthyThreshold,
  'routes[].upstream.outlierDetection.consecutiveFailures': (_c, r) => r.upstream.outlierDetection.consecutiveFailures,
  'routes[].upstream.outlierDetection.baseEjectionMs': (_c, r) => r.upstream.outlierDetection.baseEjectionMs,
  'routes[].upstream.outlierDetection.maxEjectionMs': (_c, r) => r.upstream.outlierDetection.maxEjectionMs,
  'routes[].upstream.outlierDetection.maxEjectionPercent': (_c, r) => r.upstream.outlierDetection.maxEjectionPercent,
  'routes[].upstream.circuitBreaker.maxConnections': (_c, r) => r.upstream.circuitBreaker.maxConnections,
  'routes[].upstream.circuitBreaker.maxPending': (_c, r) => r.upstream.circuitBreaker.maxPending,
  'routes[].upstream.affinityTtlSeconds': (_c, r) => r.upstream.affinityTtlSeconds,
};

function schemaAt(path: string): SchemaNode {
  let node = CONFIG_SCHEMA as unknown as SchemaNode;
  for (const part of path.split('.')) {
    const key = part.replace(/\[\]$/, '');
    node = node.properties![key]!;
    if (part.endsWith('[]')) node = node.items!;
    node = node.properties ? node : (node.oneOf?.find((b) => b.properties) ?? node);
  }
  return node;
}

t.test("the schema's defaults are what the loader applies", async (tt) => {
  const config = parseConfig(
    `tracing: { otlpEndpoint: http://127.0.0.1:4318 }
limits: {}
admin: { port: 9 }
state: { redis: { url: 'redis://127.0.0.1:9' } }
routes:
  - name: r
    upstream: { url: http://127.0.0.1:9 }
    cors: { allowOrigins: ['*'] }
    rateLimit: { requestsPerSecond: 1 }
    auth: { apiKey: { name: X-Key, keys: [{ id: k, key: abcdefgh }] }, jwt: { jwksUrl: http://127.0.0.1:9/jwks } }
  - name: replicas
    match: { pathPrefix: /replicas }
    upstream: { endpoints: [{ url: http://127.0.0.1:9 }, { url: http://127.0.0.1:10 }] }
`,
    'defaults.yaml',
  );
  const route = config.routes[0]!;
  const withDefaults = fieldPaths().filter((p) => schemaAt(p).default !== undefined);
  for (const path of withDefaults) {
    const dflt = schemaAt(path).default;
    const limit = /^limits\.(\w+)$/.exec(path)?.[1];
    const loaded = limit
      ? (config.limits as unknown as Record<string, unknown>)[limit]
      : /^routes\[\]\.(\w+)$/.test(path) && !(path in LOADED)
        ? (route as unknown as Record<string, unknown>)[path.slice('routes[].'.length)]
        : LOADED[path]?.(config, route);
    tt.same(loaded, dflt, `${path}: the schema says ${JSON.stringify(dflt)}`);
  }
  tt.ok(withDefaults.length > 40, 'the schema states the defaults');
});

t.test('the architecture diagram shows exactly the pipeline stages, in order', async (tt) => {
  const svg = read('docs/images/architecture.svg');
  const shown = [...svg.matchAll(/<text [^>]*class="stage"[^>]*>([^<]+)<\/text>/g)].map((m) => m[1]);
  tt.same(shown, [...STAGE_NAMES], 'every stage of STAGE_NAMES, and no other, in the order the pipeline runs them');
  const page = read('docs/architecture.md');
  const listed = /<!-- stage-list[^>]*-->\n([\s\S]*?)\n<!-- \/stage-list -->/.exec(page)?.[1] ?? '';
  tt.same(
    [...listed.matchAll(/`(\w+)`/g)].map((m) => m[1]),
    [...STAGE_NAMES],
    'docs/architecture.md lists the same',
  );
});

t.test('the security page states every limit with its default', async (tt) => {
  const page = read('docs/security.md');
  const limits = page.slice(page.indexOf('## Limits'), page.indexOf('## Hostile input'));
  const short = (field: string, v: number) =>
    /Bytes$/.test(field)
      ? `${v / 2 ** 20} MiB`
      : /Ms$/.test(field)
        ? v >= 120_000 && v % 60_000 === 0
          ? `${v / 60_000} min`
          : `${v / 1000} s`
        : v.toLocaleString('en-US');
  const route = schemaAt('routes[]').properties!;
  const fields: Array<[string, SchemaNode]> = [
    ...Object.entries(schemaAt('limits').properties!).map(([k, n]): [string, SchemaNode] => [`limits.${k}`, n]),
    ...['maxBodyBytes', 'maxResponseBytes', 'maxSseEventBytes', 'maxStringLength', 'timeoutMs', 'streamIdleTimeoutMs']
      .concat(['sseKeepAliveMs', 'rateLimit', 'maxConcurrentStreams'])
      .map((k): [string, SchemaNode] => [k, route[k]!]),
    ['shutdownGraceMs', CONFIG_SCHEMA.properties.shutdownGraceMs as SchemaNode],
  ];
  for (const [name, node] of fields) {
    const stated = typeof node.default === 'number' ? `\`${name}\` (${short(name, node.default)}` : `\`${name}`;
    tt.ok(
      limits.split('\n').some((l) => l.startsWith('|') && l.includes(stated)),
      `the limits table states ${stated}${stated.endsWith('`') ? '' : ')'}`,
    );
  }
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(page: string): Set<string> {
  const ids = [...page.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]!);
  for (const m of page.matchAll(/^#{1,6} (.+)$/gm))
    ids.push(
      m[1]!
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  return new Set(ids);
}

t.test('every relative link of the README and docs/ leads to a file and an anchor that exist', async (tt) => {
  const pages = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  for (const page of pages) {
    const text = read(page).replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [file, anchor] = target!.split('#');
      const resolved = file ? normalize(join(dirname(page), file)) : page;
      tt.ok(existsSync(join(ROOT, resolved)), `${page} → ${target}: the file exists`);
      if (anchor && resolved.endsWith('.md') && existsSync(join(ROOT, resolved)))
        tt.ok(anchors(read(resolved)).has(anchor), `${page} → ${target}: the anchor exists`);
    }
  }
});
