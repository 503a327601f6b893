// An upstream's TLS files (routes[].upstream.tls) that cannot be read when a
// connection is made — removed since the config was loaded (the load checks
// them) — fail the call as UPSTREAM_UNAVAILABLE in the caller's binding, the
// field named in the answer and the file in the log line, never as an
// internal error; once the file is back the next call connects. The upstream
// is a gateway with a TLS listener that requires a client certificate, in
// front of a real SDK agent.
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { CATALOGUE, GRPC_CODES } from '../../src/errors/catalogue.js';
import { startGateway } from '../../src/server/gateway.js';
import { TLS_FIXTURES as FIX } from '../helpers/client-cert-files.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig, userMessage } from '../helpers/harness.js';

const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(c: Buffer, _e, cb) {
    for (const l of c.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
    cb();
  },
});
const agent = await startEchoAgent({ bindings: BINDINGS });
const front = await startGateway(
  gatewayConfig([{ name: 'front', upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' } }], {
    tls: {
      cert: join(FIX, 'server.pem'),
      key: join(FIX, 'server-key.pem'),
      clientCa: join(FIX, 'ca.pem'),
      requireClientCert: true,
    },
  }),
  pino({ level: 'silent' }),
);
// each field's routes have TLS files of their own (routes with the same TLS settings share their connections)
const FIELDS = ['ca', 'cert', 'key'] as const;
type Field = (typeof FIELDS)[number];
const dir = t.testdir({ ca: {}, cert: {}, key: {} });
const filesOf = (f: Field) => ({
  ca: join(dir, f, 'ca.pem'),
  cert: join(dir, f, 'client.pem'),
  key: join(dir, f, 'client-key.pem'),
});
const restore = (f: Field): void => {
  copyFileSync(join(FIX, 'ca.pem'), filesOf(f).ca);
  copyFileSync(join(FIX, 'client.pem'), filesOf(f).cert);
  copyFileSync(join(FIX, 'client-key.pem'), filesOf(f).key);
};
for (const f of FIELDS) restore(f);
// the cards come from the agent itself: only the calls use the TLS files
const card = { url: `${agent.httpUrl}/.well-known/agent-card.json` };
const upstreams = {
  jsonrpc: { url: `${front.httpUrl}/`, binding: 'JSONRPC' as const },
  grpc: { url: `grpcs://${front.grpcAddress}`, binding: 'GRPC' as const },
};
const routes = FIELDS.flatMap((field) =>
  Object.entries(upstreams).map(([kind, up]) => ({
    name: `${field}-${kind}`,
    match: { pathPrefix: `/${field}-${kind}`, tenant: `${field}-${kind}` },
    upstream: { ...up, tenant: 'clear' as const, tls: filesOf(field) },
    card,
  })),
);
const gw = await startGateway(gatewayConfig(routes), pino({ level: 'info' }, sink));
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await front.close();
  await agent.close();
});

t.test('a TLS file gone when the connection is made: UPSTREAM_UNAVAILABLE naming the field', async (tt) => {
  const row = CATALOGUE.UPSTREAM_UNAVAILABLE;
  for (const field of FIELDS) {
    const file = filesOf(field)[field];
    rmSync(file);
    for (const kind of Object.keys(upstreams)) {
      const name = `${field}-${kind}`;
      for (const inbound of BINDINGS) {
        const r = await CALLERS[inbound](
          gw,
          'SendMessage',
          { message: userMessage('tls files') },
          { tenant: name, prefix: `/${name}` },
        );
        tt.equal(
          r.code,
          inbound === 'JSONRPC' ? row.jsonRpc : inbound === 'HTTP+JSON' ? row.http : GRPC_CODES.UNAVAILABLE,
          `${inbound} → ${name}: upstream unavailable`,
        );
        tt.match(r.message, `upstream.tls.${field} cannot be read`, `${inbound} → ${name}: the field named`);
        tt.notMatch(r.message, dir, `${inbound} → ${name}: the file is not answered`);
      }
      tt.match(
        [...lines].reverse().find((l) => l.route === name),
        { outcome: 'UPSTREAM_UNAVAILABLE', errorDetail: `upstream.tls.${field}: file not found: ${file}` },
        `${name}: the file logged`,
      );
    }
    restore(field);
    for (const kind of Object.keys(upstreams)) {
      const name = `${field}-${kind}`;
      const r = await CALLERS.JSONRPC(
        gw,
        'SendMessage',
        { message: userMessage('tls files') },
        { tenant: name, prefix: `/${name}` },
      );
      tt.ok(r.ok, `${name}: the file back, the next call connects`);
    }
  }
});
