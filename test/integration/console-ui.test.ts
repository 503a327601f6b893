// The admin console in a real browser (issue 16): Debian's Chromium driven by
// playwright-core against a gateway in front of demo echo agents. The routes
// table lists the configured routes; try-it over each binding shows the echo
// answer and the request as curl / grpcurl to that binding's URL and as that
// binding's JSON; a send the console refuses shows no request (not the last
// one's); a stream shows its events as they come; an agent taken down turns
// its endpoint unhealthy on the open routes page (refreshed by the page
// itself); hostile card text stays text and runs nothing; the traffic page
// draws its charts and lists the last errors; the page raises no CSP violation.
import t from 'tap';
import { pino } from 'pino';
import type { Browser, Page } from 'playwright-core';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import { launchChromium } from '../helpers/browser.js';
import { gatewayConfig } from '../helpers/harness.js';

const HOSTILE = '<img src=x onerror="window.__pwned=1">';
const agent = await startEchoAgent({ bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'] });
// the agent this test takes down
const doomed = await startEchoAgent({ bindings: ['JSONRPC'], name: `Doomed ${HOSTILE}` });
const gw = await startGateway(
  gatewayConfig(
    [
      {
        name: 'echo',
        match: { pathPrefix: '/echo', tenant: 'echo' },
        upstream: { url: agent.restUrl, binding: 'HTTP+JSON', tenant: 'clear' },
      },
      {
        name: 'echo-grpc',
        match: { pathPrefix: '/echo-grpc', tenant: 'echo-grpc' },
        upstream: { url: agent.urlFor('GRPC'), binding: 'GRPC', tenant: 'clear' },
        card: { url: `${agent.httpUrl}/.well-known/agent-card.json` },
      },
      { name: 'doomed', match: { pathPrefix: '/doomed' }, upstream: { url: doomed.jsonRpcUrl, binding: 'JSONRPC' } },
    ],
    { admin: { host: '127.0.0.1', port: 0 } },
  ),
  pino({ level: 'silent' }),
  { trafficSampleMs: 1000 },
);
const admin = gw.adminUrl!;
let doomedClosed = false;
// a browser that cannot start fails the file at once (the servers go with the process)
const browser: Browser = await launchChromium();
t.teardown(async () => {
  await browser.close();
  await gw.close();
  await agent.close();
  if (!doomedClosed) await doomed.close();
});

const violations: string[] = [];

async function open(path: string): Promise<Page> {
  const tab = await browser.newPage();
  tab.on('console', (m) => {
    if (/Content Security Policy|Refused to/.test(m.text())) violations.push(m.text());
  });
  tab.on('pageerror', (e) => violations.push(`page error: ${e.message}`));
  await tab.goto(`${admin}${path}`);
  return tab;
}

async function send(tab: Page, route: string, binding: string, text: string, stream: boolean): Promise<void> {
  await tab.selectOption('#try-route', route);
  await tab.selectOption('#try-binding', binding);
  await tab.setChecked('#try-stream', stream);
  await tab.fill('#try-text', text);
  await tab.click('#try-send');
  await tab.waitForSelector('#try-status[data-done]');
}

t.test('the routes table lists the configured routes', async (t) => {
  const tab = await open('/admin/routes');
  const rows = await tab.$$eval('#routes-table tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-route')));
  t.same(rows, ['echo', 'echo-grpc', 'doomed'], 'one row per route');
  const match = await tab.textContent('#routes-table tr[data-route="echo"]');
  t.match(match, /prefix \/echo/, 'the prefix');
  t.match(match, /tenant echo/, 'the tenant');
  t.match(match, /HTTP\+JSON/, 'the upstream binding');
  await tab.click('#route-echo details.raw summary');
  const raw = JSON.parse((await tab.textContent('#route-echo details.raw pre'))!);
  t.equal(raw.name, 'Echo Agent', 'the raw card JSON one click away');
  await tab.close();
});

/** The request each binding shows: its command's first and last lines, and its JSON as the binding writes it. */
const SHOWN: Record<string, { first: string; last: string | RegExp; json: RegExp }> = {
  JSONRPC: {
    first: `curl -X POST '${gw.httpUrl}/echo'`,
    last: /^ {2}--data '\{"jsonrpc":"2\.0","id":1,"method":"SendMessage",/,
    json: /^\{\s*"jsonrpc": "2\.0",\s*"id": 1,\s*"method": "SendMessage",\s*"params": \{/,
  },
  'HTTP+JSON': {
    first: `curl -X POST '${gw.httpUrl}/echo/echo/message:send'`,
    last: /^ {2}--data '\{"message":\{/,
    json: /^\{\s*"message": \{/,
  },
  GRPC: {
    first: 'grpcurl -plaintext',
    last: `  ${gw.grpcAddress} lf.a2a.v1.A2AService/SendMessage`,
    json: /^\{\s*("tenant": "[^"]*",\s*)?"message": \{/,
  },
};

t.test('try it: the echo answer over each binding, and a stream with its events', async (t) => {
  const tab = await open('/admin/try');
  for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC']) {
    await send(tab, 'echo', binding, 'hello', false);
    t.match(await tab.textContent('#try-events li.event'), /echo: hello/, `${binding}: the echo answer shown`);
    const shown = await tab.$$eval('#try-request pre.request', (ps) => ps.map((p) => p.textContent ?? ''));
    t.equal(shown.length, 2, `${binding}: the request shown twice`);
    const [command = '', json = ''] = shown;
    const lines = command.split(' \\\n');
    t.equal(lines[0], SHOWN[binding]!.first, `${binding}: the request as a command, to the binding's URL`);
    t.match(lines.at(-1), SHOWN[binding]!.last, `${binding}: with the binding's body or method`);
    t.match(json, SHOWN[binding]!.json, `${binding}: and as the binding's JSON`);
    if (binding !== 'JSONRPC') t.notMatch(json, /"jsonrpc"/, `${binding}: no JSON-RPC envelope`);
  }
  // a send the console refuses (a header no caller may set) shows no request — the last one's least of all
  await tab.fill('#try-headers', 'bad name: v');
  await send(tab, 'echo', 'JSONRPC', 'hello', false);
  t.match(await tab.textContent('#try-events li.error'), /HTTP 400: header "bad name" cannot be set/, 'refused');
  t.equal(await tab.$$eval('#try-request pre.request', (ps) => ps.length), 0, 'and no request shown');
  await tab.fill('#try-headers', '');
  await send(tab, 'echo-grpc', 'HTTP+JSON', 'stream', true);
  const summaries = await tab.$$eval('#try-events li.event .summary', (els) => els.map((e) => e.textContent));
  t.same(
    summaries,
    [
      'task TASK_STATE_SUBMITTED',
      'statusUpdate TASK_STATE_WORKING',
      'artifactUpdate "chunk one, "',
      'artifactUpdate "chunk two, "',
      'artifactUpdate "chunk three"',
      'statusUpdate TASK_STATE_COMPLETED',
    ],
    'every stream event shown, in order',
  );
  t.match(await tab.textContent('#try-status'), /text\/event-stream · done/, 'the stream ended');
  await tab.close();
});

t.test('hostile card text stays text', async (t) => {
  const tab = await open('/admin/routes');
  const name = await tab.textContent('#route-doomed .card-name');
  t.match(name, HOSTILE, 'the card name shown as it is');
  t.equal(await tab.$$eval('#route-doomed .agent-card img', (imgs) => imgs.length), 0, 'no element from it');
  t.notOk(await tab.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), 'nothing ran');
  await tab.close();
});

t.test('an agent taken down turns unhealthy on the open routes page', async (t) => {
  const routes = await open('/admin/routes');
  const badge = '#routes-table td.endpoints[data-route="doomed"] [data-health]';
  const tryTab = await open('/admin/try');
  await send(tryTab, 'doomed', 'JSONRPC', 'hello', false);
  await routes.waitForSelector(`${badge}[data-health="healthy"]`);
  t.pass('healthy while it answers');
  await doomed.close();
  doomedClosed = true;
  await send(tryTab, 'doomed', 'JSONRPC', 'hello', false);
  t.match(
    await tryTab.textContent('#try-events li.error'),
    /JSON-RPC error -32051: upstream unreachable/,
    'the failed call shown',
  );
  await routes.waitForSelector(`${badge}[data-health="unhealthy"]`);
  t.match(
    await routes.textContent('#routes-table td.endpoints[data-route="doomed"]'),
    /unreachable|refused/i,
    'with why',
  );
  await routes.close();
  await tryTab.close();
});

t.test('traffic: charts per route and binding pair, and the last errors', async (t) => {
  const tab = await open('/admin/traffic');
  await tab.waitForSelector('#traffic-pairs .chart-card[data-key="HTTP+JSON → GRPC"] svg.spark polyline');
  await tab.waitForSelector('#traffic-routes .chart-card[data-key="echo"]');
  const totals = await tab.textContent('#traffic-routes .chart-card[data-key="echo"] .totals');
  t.match(totals, /^\d+ calls, 0 errors/, 'the route totals');
  await tab.waitForSelector('#errors-table tbody tr');
  t.match(
    await tab.textContent('#errors-table tbody'),
    /doomed.*UPSTREAM_UNAVAILABLE/s,
    'the failed call in the last errors',
  );
  await tab.close();
});

t.test('no CSP violation and no script error on any page', async (t) => {
  const tab = await open('/admin/config');
  await tab.waitForSelector('#config-json');
  await tab.close();
  t.same(violations, [], 'none');
});
