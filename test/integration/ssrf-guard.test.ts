// The SSRF guard (spec §13): file parts whose URL is not http(s) or names a
// loopback, link-local or private address are refused before any upstream
// call, with a BadRequest naming the part, on every inbound binding; a public
// URL passes; a route can turn the guard off.
import t from 'tap';
import { pino } from 'pino';
import { unsafeUrl } from '../../src/core/ssrf-guard.js';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway } from '../../src/server/gateway.js';
import type { JsonObject } from '../../src/proto/json.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig } from '../helpers/harness.js';

const agent = await startEchoAgent({ bindings: ['JSONRPC'] });
const gw = await startGateway(
  gatewayConfig([
    { name: 'guarded', upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const } },
    {
      name: 'open',
      match: { pathPrefix: '/open', tenant: 'open' },
      upstream: { url: agent.jsonRpcUrl, binding: 'JSONRPC' as const, tenant: 'clear' as const },
      ssrfGuard: false,
    },
  ]),
  pino({ level: 'silent' }),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await agent.close();
});

const withFile = (url: string, text = 'see file'): JsonObject => ({
  message: {
    messageId: `m-${Math.random()}`,
    role: 'ROLE_USER',
    parts: [{ text }, { url, mediaType: 'application/pdf' }],
  },
});

t.test('unsafe URLs', async (tt) => {
  for (const url of [
    'file:///etc/passwd',
    'gopher://x',
    'http://127.0.0.1:8080/',
    'http://localhost/x',
    'http://169.254.169.254/latest/meta-data',
    'http://10.1.2.3/',
    'http://192.168.0.1/',
    'http://172.20.0.1/',
    'http://[::1]/',
    'http://[fe80::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://0.0.0.0/',
    'not a url',
    // issue 12 item 9: special-purpose ranges and embedded-IPv4 forms the first guard missed
    'http://198.18.0.1/',
    'http://224.0.0.1/',
    'http://240.0.0.1/',
    'http://255.255.255.255/',
    'http://localhost./',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
  ]) {
    tt.ok(unsafeUrl(url), `${url}: refused`);
  }
  // 203.0.113.0/24 and 2001:db8::/32 are documentation ranges, refused since the IANA registries are followed
  for (const url of ['https://example.com/file.pdf', 'http://8.8.8.8/a', 'http://[2606:4700::1]/'])
    tt.equal(unsafeUrl(url), undefined, `${url}: allowed`);
});

t.test('refused in the caller binding before the upstream is called', async (tt) => {
  for (const inbound of BINDINGS) {
    const r = await CALLERS[inbound](
      gw,
      'SendMessage',
      withFile('http://169.254.169.254/latest', `refused ${inbound}`),
      { tenant: '', prefix: '' },
    );
    tt.equal(r.ok, false, `${inbound}: refused`);
    const bad = r.details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
    tt.match(
      (bad?.fieldViolations as Array<{ field: string }>)?.[0]?.field,
      'message.parts[1].url',
      `${inbound}: names the part`,
    );
    tt.not(agent.lastCall()?.text, `refused ${inbound}`, 'the agent was not called');
    const ok = await CALLERS[inbound](gw, 'SendMessage', withFile('https://example.com/report.pdf'), {
      tenant: '',
      prefix: '',
    });
    tt.equal(ok.ok, true, `${inbound}: a public URL passes`);
  }
  const open = await CALLERS.JSONRPC(gw, 'SendMessage', withFile('http://127.0.0.1/x'), {
    tenant: 'open',
    prefix: '/open',
  });
  tt.equal(open.ok, true, 'ssrfGuard: false lets it through');
});
