// A pass-through route with several endpoints (issue 14): the relay forwards
// the agent's bytes unread, so an endpoint that answers 502/503/504 is judged
// by its status — each counts as a failure toward its outlier ejection (one
// got on a failover from a replica that refused the connection too; the
// answer still goes to the caller as it came), and once ejected the calls go
// to the live replica only.
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { parseConfig } from '../../src/config/load.js';
import { startGateway } from '../../src/server/gateway.js';
import type { Binding } from '../../src/config/types.js';
import { refusedPort } from '../helpers/broken-upstreams.js';
import { BINDINGS, closeGrpcClients, gatewayConfig, slug, userMessage } from '../helpers/harness.js';
import { STREAM_CALLERS } from '../helpers/streams.js';

t.test('a replica answering 503 is ejected; the calls then reach the live one', async (t) => {
  const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
  t.teardown(() => agent.close());
  // a replica behind a proxy whose backend is gone: its card is served (from a cache, say), every call is a 503
  const card = await (await request(`${agent.httpUrl}/.well-known/agent-card.json`)).body.text();
  const broken = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET') res.writeHead(200, { 'content-type': 'application/json' }).end(card);
      else res.writeHead(503, { 'content-type': 'text/plain' }).end('no healthy upstream');
    });
  });
  broken.listen(0, '127.0.0.1');
  await once(broken, 'listening');
  t.teardown(() => new Promise<void>((r) => broken.close(() => r())));
  const brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}/a2a/jsonrpc`;

  const gw = await startGateway(
    parseConfig(
      JSON.stringify({
        listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
        routes: [
          {
            name: 'pt',
            passThrough: true,
            upstream: {
              binding: 'JSONRPC',
              sharedTaskStore: true,
              loadBalancing: 'round-robin',
              healthCheck: false,
              outlierDetection: { consecutiveFailures: 2 },
              endpoints: [
                { url: agent.jsonRpcUrl, name: 'live' },
                { url: brokenUrl, name: 'broken' },
              ],
            },
          },
        ],
      }),
      '<pass-through endpoints test>',
    ),
    pino({ level: 'silent' }),
  );
  t.teardown(() => gw.close());

  const statuses: number[] = [];
  for (let i = 0; i < 8; i++) {
    const res = await request(gw.httpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'SendMessage', params: { message: userMessage(`m${i}`) } }),
    });
    await res.body.dump();
    statuses.push(res.statusCode);
  }
  t.equal(statuses.filter((s) => s === 503).length, 2, 'the broken replica answered twice, relayed as it came');
  t.same(statuses.slice(4), [200, 200, 200, 200], 'then it was ejected: every call reached the live replica');
  const metrics = await gw.metrics.text();
  t.match(metrics, /a2a_gateway_endpoint_ejections_total\{route="pt",endpoint="broken"\} 1/);
  t.match(metrics, /a2a_gateway_endpoint_status\{route="pt",endpoint="broken",status="ejected"\} 1/);
});

// A relayed gRPC stream is sent when it is first read. The endpoint stage awaits its first message, as it awaits a
// translated stream's first event, so a replica that refuses the connection is counted as failing and the stream
// goes to the other replica (a refused connection never reached the agent), for every binding.
t.test(
  'a pass-through stream to a replica that refuses connections fails over and counts toward ejection',
  async (t) => {
    const agent = await startEchoAgent({ bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'] });
    t.teardown(() => agent.close());
    const refused = await refusedPort();
    const urls: Record<Binding, [string, string]> = {
      JSONRPC: [`http://127.0.0.1:${refused}/a2a/jsonrpc`, agent.jsonRpcUrl],
      'HTTP+JSON': [`http://127.0.0.1:${refused}/a2a/rest`, agent.restUrl],
      GRPC: [`127.0.0.1:${refused}`, agent.grpcAddress],
    };
    const gw = await startGateway(
      gatewayConfig(
        BINDINGS.map((b) => ({
          name: `pt-${slug(b)}`,
          passThrough: true,
          match: { pathPrefix: `/pt-${slug(b)}`, tenant: `pt-${slug(b)}` },
          upstream: {
            binding: b,
            tenant: 'clear' as const,
            loadBalancing: 'round-robin' as const,
            healthCheck: false,
            outlierDetection: { consecutiveFailures: 2 },
            endpoints: [
              { url: urls[b][0], name: 'refused' },
              { url: urls[b][1], name: 'live' },
            ],
          },
          ssrfGuard: false,
        })),
      ),
    );
    t.teardown(async () => {
      closeGrpcClients();
      await gw.close();
    });

    for (const b of BINDINGS) {
      const opts = { tenant: `pt-${slug(b)}`, prefix: `/pt-${slug(b)}` };
      for (let i = 0; i < 4; i++) {
        const got = await STREAM_CALLERS[b](gw, 'SendStreamingMessage', { message: userMessage(`s${i}`) }, opts);
        t.equal(got.error, undefined, `${b}: stream ${i} ends cleanly`);
        t.ok(got.events.length > 0, `${b}: stream ${i} carries the agent's events`);
      }
      const metrics = await gw.metrics.text();
      const ejected = new RegExp(
        `a2a_gateway_endpoint_ejections_total\\{route="pt-${slug(b)}",endpoint="refused"\\} 1`,
      );
      t.match(metrics, ejected, `${b}: the refusing replica was ejected after two failures`);
    }
  },
);

// A call that failed over from a refused replica and got a relayed 503 from the other one: that 503 counts toward
// the other replica's ejection as it would on a first try (it does not reset its count of failures in a row).
t.test('a relayed 503 after a failover counts toward ejection', async (t) => {
  const broken = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(req.method === 'GET' ? 404 : 503, { 'content-type': 'text/plain' }).end('no'));
  });
  broken.listen(0, '127.0.0.1');
  await once(broken, 'listening');
  t.teardown(() => new Promise<void>((r) => broken.close(() => r())));
  const gw = await startGateway(
    gatewayConfig([
      {
        name: 'pt',
        passThrough: true,
        upstream: {
          binding: 'JSONRPC',
          sharedTaskStore: true,
          loadBalancing: 'round-robin',
          healthCheck: false,
          outlierDetection: { consecutiveFailures: 2, maxEjectionPercent: 100 },
          endpoints: [
            { url: `http://127.0.0.1:${await refusedPort()}`, name: 'refused' },
            { url: `http://127.0.0.1:${(broken.address() as AddressInfo).port}`, name: 'broken' },
          ],
        },
        ssrfGuard: false,
      },
    ]),
  );
  t.teardown(() => gw.close());
  // round robin: the first call starts on the refused replica and fails over, the second starts on the broken one
  for (let i = 0; i < 2; i++) {
    const res = await request(gw.httpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'SendMessage', params: { message: userMessage(`f${i}`) } }),
    });
    await res.body.dump();
    t.equal(res.statusCode, 503, `call ${i}: the broken replica's 503, relayed`);
  }
  const broken503 = gw.endpointStates()[0]!.endpoints.find((e) => e.name === 'broken');
  t.equal(broken503?.status, 'ejected', 'two 503s in a row ejected it');
});
