// Issue 13, observability: the call log carries the caller's A2A version
// (`version`, Major.Minor as negotiated) and the upstream interface's
// (`upstreamVersion`), and a2a_gateway_calls_total carries both as labels
// (`version` is the caller's wire form, 1.0 or 0.3 — never the raw header,
// so callers cannot grow the label set; `upstream_version` the interface's),
// for every combination: 0.3 → 1.0, 1.0 → 0.3, 0.3 → 0.3, 1.0 → 1.0, unary and
// streaming, and a refused call.
import { Writable } from 'node:stream';
import t from 'tap';
import { pino } from 'pino';
import { Client } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import { startEchoAgentV03 } from '../helpers/echo-agent-v03.js';
import { CALLERS, gatewayConfig, userMessage } from '../helpers/harness.js';
import { v03Client, v03Message } from '../helpers/sdk-v03.js';
import { waitFor } from '../helpers/wait.js';

const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(c: Buffer, _e, cb) {
    for (const l of c.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
    cb();
  },
});
const v1 = await startEchoAgent({ bindings: ['JSONRPC'] });
const v03 = await startEchoAgentV03({ bindings: ['HTTP+JSON', 'JSONRPC'] });
const gw = await startGateway(
  gatewayConfig([
    { name: 'to-v1', match: { pathPrefix: '/v1agent' }, upstream: { url: v1.jsonRpcUrl, binding: 'JSONRPC' } },
    { name: 'to-v03', match: { pathPrefix: '/v03agent' }, upstream: { url: v03.httpUrl, binding: 'auto' } },
  ]),
  pino({ level: 'info' }, sink),
);
t.teardown(async () => {
  await gw.close();
  await Promise.all([v1.close(), v03.close()]);
});

/** The call log lines of a route and method, newest first. */
const callLines = (route: string, method: string) =>
  lines.filter((l) => l.msg === 'call' && l.route === route && l.method === method).reverse();

const metric = async (labels: string): Promise<number> => {
  const line = (await gw.metrics.text()).split('\n').find((l) => l.startsWith(`a2a_gateway_calls_total{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
};

t.test('0.3 caller → 1.0 agent and 0.3 caller → 0.3 agent (unary and stream)', async (tt) => {
  for (const [route, prefix, upstreamVersion, upstream] of [
    ['to-v1', '/v1agent', '1.0', 'JSONRPC'],
    ['to-v03', '/v03agent', '0.3', 'HTTP+JSON'],
  ] as const) {
    const client = await v03Client(`${gw.httpUrl}${prefix}/.well-known/agent-card.json`, 'JSONRPC');
    await client.sendMessage({ message: v03Message('observed') });
    for await (const _e of client.sendMessageStream({ message: v03Message('stream') }));
    for (const method of ['SendMessage', 'SendStreamingMessage']) {
      const line = await waitFor(() => callLines(route, method)[0], `the ${method} log line`);
      tt.match(
        line,
        { inbound: 'JSONRPC', version: '0.3', upstream, upstreamVersion, outcome: 'OK' },
        `${route} ${method}: log`,
      );
      const labels = `route="${route}",method="${method}",inbound="JSONRPC",upstream="${upstream}",outcome="OK",version="0.3",upstream_version="${upstreamVersion}"`;
      tt.equal(await metric(labels), 1, `${route} ${method}: metric`);
    }
  }
});

t.test('1.0 caller → 0.3 agent; a 1.x minor is logged as sent, counted as 1.0', async (tt) => {
  await CALLERS['HTTP+JSON'](
    gw,
    'SendMessage',
    { message: userMessage('as 1.0') },
    { tenant: '', prefix: '/v03agent' },
  );
  const one = callLines('to-v03', 'SendMessage').find((l) => l.inbound === 'HTTP+JSON');
  tt.match(one, { version: '1.0', upstream: 'HTTP+JSON', upstreamVersion: '0.3', outcome: 'OK' }, 'log');
  const labels = (v: string) =>
    `route="to-v03",method="GetTask",inbound="JSONRPC",upstream="HTTP+JSON",outcome="TASK_NOT_FOUND",version="${v}",upstream_version="0.3"`;
  await CALLERS.JSONRPC(
    gw,
    'GetTask',
    { id: 'nope' },
    { tenant: '', prefix: '/v03agent', headers: { 'a2a-version': '1.7' } },
  );
  tt.match(
    callLines('to-v03', 'GetTask')[0],
    { version: '1.7', upstreamVersion: '0.3', outcome: 'TASK_NOT_FOUND' },
    'log: 1.7',
  );
  tt.equal(await metric(labels('1.0')), 1, 'metric: version="1.0"');
  tt.equal(await metric(labels('1.7')), 0, 'no series for 1.7');
});

t.test('a call refused for its version: no version logged, the wire form counted', async (tt) => {
  await CALLERS.JSONRPC(
    gw,
    'GetTask',
    { id: 'x' },
    { tenant: '', prefix: '/v1agent', headers: { 'a2a-version': '9.9' } },
  );
  const line = callLines('to-v1', 'GetTask')[0];
  tt.match(line, { version: null, outcome: 'VERSION_NOT_SUPPORTED', upstream: null, upstreamVersion: null });
  const labels = `route="to-v1",method="GetTask",inbound="JSONRPC",upstream="-",outcome="VERSION_NOT_SUPPORTED",version="1.0",upstream_version="-"`;
  tt.equal(await metric(labels), 1);
});

// refused at the edge (before any route took the call) in the 0.3 caller's form: logged with the binding answered
t.test("an edge refusal in a 0.3 caller's form is logged and counted in the binding it was answered in", async (tt) => {
  const raw = new Client(gw.httpUrl); // the path as written (a URL would resolve its dot segment)
  tt.teardown(() => raw.close());
  const cases = [
    ['GET', '/v1agent/v1/./tasks/t', 'edge-rest', 'HTTP+JSON', /^\{"code":-32600/],
    ['POST', '/v1agent/.', 'edge-rpc', 'JSONRPC', /^\{"jsonrpc":"2.0","id":null,"error":\{"code":-32600/],
  ] as const;
  for (const [method, path, id, inbound, body] of cases) {
    const before = await metric(
      `route="-",method="unknown",inbound="${inbound}",upstream="-",outcome="INVALID_REQUEST",version="-",upstream_version="-"`,
    );
    const res = await raw.request({
      method,
      path,
      headers: { 'x-request-id': id, 'content-type': 'application/json' },
      body: method === 'POST' ? '{}' : null,
    });
    tt.match(await res.body.text(), body, `${method} ${path}: 0.3's form`);
    const line = await waitFor(() => lines.find((l) => l.msg === 'call' && l.requestId === id), `${id}'s log line`);
    tt.match(line, { inbound, outcome: 'INVALID_REQUEST' }, `${method} ${path}: logged as ${inbound}`);
    const after = await metric(
      `route="-",method="unknown",inbound="${inbound}",upstream="-",outcome="INVALID_REQUEST",version="-",upstream_version="-"`,
    );
    tt.equal(after, before + 1, `${method} ${path}: counted as ${inbound}`);
  }
});
