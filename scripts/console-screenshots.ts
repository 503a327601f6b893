// `npm run screenshots`: the admin console's pages (routes, traffic, try it,
// config) as PNGs in docs/images/, taken with Debian's Chromium from a real
// gateway in front of the demo echo agent — one route per upstream binding,
// one with an API key, one whose agent is down — after half a minute of
// mixed traffic (successes, streams and failures) so the charts have a shape.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { startEchoAgent } from '../examples/demo-agent/echo-agent.js';
import { startGateway } from '../src/server/gateway.js';
import { launchChromium } from '../test/helpers/browser.js';
import { refusedPort } from '../test/helpers/broken-upstreams.js';
import { stringify } from 'yaml';
import { readConfig } from '../src/ops/config-watch.js';

const OUT = fileURLToPath(new URL('../docs/images/', import.meta.url));
const TRAFFIC_SECONDS = Number(process.env.TRAFFIC_SECONDS ?? 30);

const agent = await startEchoAgent({ bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'], pushNotifications: true });
const down = await refusedPort(); // the down agent's
// loaded from a file, as the CLI does, so the config page has a hash to show
const dir = mkdtempSync(join(tmpdir(), 'console-screenshots-'));
const file = join(dir, 'gateway.yaml');
writeFileSync(
  file,
  stringify({
    listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
    admin: { host: '127.0.0.1', port: 0 },
    log: { level: 'silent' },
    routes: [
      {
        name: 'echo-jsonrpc',
        match: { pathPrefix: '/echo' },
        upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' },
        rateLimit: { requestsPerSecond: 50, burst: 100 },
      },
      {
        name: 'echo-rest',
        match: { pathPrefix: '/rest', tenant: 'team-a' },
        upstream: { url: agent.restUrl, binding: 'HTTP+JSON', tenant: 'clear' },
        auth: { apiKey: { name: 'x-api-key', keys: [{ id: 'ops', key: 'demo-key-do-not-show' }] } },
      },
      {
        name: 'echo-grpc',
        match: { pathPrefix: '/grpc', tenant: 'grpc' },
        upstream: { url: agent.urlFor('GRPC'), binding: 'GRPC', tenant: 'clear' },
        card: { url: `${agent.httpUrl}/.well-known/agent-card.json` },
      },
      {
        name: 'billing',
        match: { pathPrefix: '/billing' },
        upstream: { url: `http://127.0.0.1:${down}/a2a/jsonrpc`, binding: 'JSONRPC' },
        timeoutMs: 2000,
      },
    ],
  }),
);
const { config, hash } = await readConfig(file);
rmSync(dir, { recursive: true });
const gw = await startGateway(config, pino({ level: 'silent' }), { trafficSampleMs: 1000 });
gw.configState.applied(hash, 'start');
const admin = gw.adminUrl!;

async function tryIt(route: string, binding: string, stream: boolean, text: string, headers = {}): Promise<void> {
  const res = await fetch(`${admin}/admin/api/try`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ route, binding, stream, text, headers }),
  });
  await res.text();
}

const key = { 'x-api-key': 'demo-key-do-not-show' };
const calls: Array<() => Promise<void>> = [
  () => tryIt('echo-jsonrpc', 'JSONRPC', false, 'hello'),
  () => tryIt('echo-jsonrpc', 'HTTP+JSON', true, 'stream'),
  () => tryIt('echo-rest', 'HTTP+JSON', false, 'hello', key),
  () => tryIt('echo-rest', 'JSONRPC', false, 'message', key),
  () => tryIt('echo-rest', 'GRPC', true, 'stream', key),
  () => tryIt('echo-grpc', 'GRPC', false, 'hello'),
  () => tryIt('echo-grpc', 'JSONRPC', true, 'stream'),
];
let traffic = true;
async function drive(): Promise<void> {
  for (let i = 0; traffic; i++) {
    // a wave that rises and falls, failures now and then
    const wave = 2 + Math.round(4 * (1 + Math.sin(i / 6)));
    await Promise.all(Array.from({ length: wave }, (_, j) => calls[(i + j) % calls.length]!()));
    if (i % 4 === 0) await tryIt('billing', 'JSONRPC', false, 'invoice');
    if (i % 7 === 0) await tryIt('echo-rest', 'HTTP+JSON', false, 'no key');
    await sleep(250);
  }
}
// the traffic goes on while the pictures are taken, so the latest values are live ones
const driving = drive();
await sleep(TRAFFIC_SECONDS * 1000);

mkdirSync(OUT, { recursive: true });
const browser = await launchChromium();
const tab = await browser.newPage({ viewport: { width: 1360, height: 900 } });
await tab.goto(`${admin}/admin/routes`);
await tab.waitForSelector('[data-health="unhealthy"]');
await tab.screenshot({ path: join(OUT, 'console-routes.png'), fullPage: false });
await tab.goto(`${admin}/admin/traffic`);
await tab.waitForSelector('#traffic-pairs .chart-card');
await tab.screenshot({ path: join(OUT, 'console-traffic.png'), fullPage: false });
await tab.goto(`${admin}/admin/try`);
await tab.selectOption('#try-route', 'echo-grpc');
await tab.selectOption('#try-binding', 'GRPC');
await tab.check('#try-stream');
await tab.fill('#try-text', 'stream');
await tab.click('#try-send');
await tab.waitForSelector('#try-status[data-done]');
await tab.screenshot({ path: join(OUT, 'console-try.png'), fullPage: false });
await tab.goto(`${admin}/admin/config`);
await tab.screenshot({ path: join(OUT, 'console-config.png'), fullPage: false });
await browser.close();
traffic = false;
await driving;
await gw.close();
await agent.close();
process.stdout.write(`screenshots in ${OUT}\n`);
