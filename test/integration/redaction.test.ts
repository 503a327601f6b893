// Secrets in no log line and no error message: the caller's Authorization,
// cookies, API key, push-notification `authentication.credentials` and
// `token` (§13.2), and a webhook URL's password and credential parameters are
// replaced by [REDACTED] when an upstream echoes them back in an error, on
// every inbound binding; pino drops credential-named keys from any object
// logged (REDACT_PATHS).
import { Writable } from 'node:stream';
import t from 'tap';
import { pino } from 'pino';
import { REDACT_PATHS, startGateway } from '../../src/server/gateway.js';
import { brokenHttp } from '../helpers/broken-upstreams.js';
import { BINDINGS, CALLERS, closeGrpcClients, gatewayConfig } from '../helpers/harness.js';

const TOKEN = 'tok-3f9a1c77e2b04d5e';
const PUSH_SECRET = 'push-secret-8d2e4f61';
const API_KEY = 'api-key-51c0ffee1234';
const PUSH_TOKEN = 'push-token-0b7e55aa';
const HOOK_PASSWORD = 'hook-pass-9f31d2';
const HOOK_SIG = 'hook-sig-c4d2e8a1';
// An upstream that echoes everything it was sent in its error message (headers and body).
const echoing = await brokenHttp((req, res) => {
  let body = '';
  req.on('data', (d: Buffer) => (body += d.toString()));
  req.on('end', () => {
    const id = (JSON.parse(body) as { id: unknown }).id;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        error: {
          code: -32001,
          message: `not found; you sent ${JSON.stringify(req.headers)} ${body}`,
          data: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'TASK_NOT_FOUND',
              domain: 'a2a-protocol.org',
              metadata: { echo: body },
            },
          ],
        },
      }),
    );
  });
});
const SECRETS = [TOKEN, PUSH_SECRET, API_KEY, PUSH_TOKEN, HOOK_PASSWORD, HOOK_SIG];
const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, cb) {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    cb();
  },
});
const gw = await startGateway(
  gatewayConfig([
    {
      name: 'echo',
      match: { pathPrefix: '/e', tenant: 'e' },
      upstream: { url: echoing.url, binding: 'JSONRPC', tenant: 'clear', credentials: 'forward' },
      forwardHeaders: ['cookie'],
      auth: { apiKey: { name: 'X-API-Key', keys: [{ id: 'k', key: API_KEY }] } },
      card: { file: new URL('../../config/demo-agent-card.json', import.meta.url).pathname },
    },
  ]),
  pino({ level: 'info', redact: REDACT_PATHS }, sink),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await echoing.close();
});

t.test(
  'an upstream echoing credentials back: redacted in the caller error and the log line, on every binding',
  async (tt) => {
    const params = {
      taskId: 't1',
      url: `https://hooks:${HOOK_PASSWORD}@hooks.example.com/a2a?sig=${HOOK_SIG}&team=ops`,
      token: PUSH_TOKEN,
      authentication: { scheme: 'Bearer', credentials: PUSH_SECRET },
    };
    for (const inbound of BINDINGS) {
      const headers = { authorization: `Bearer ${TOKEN}`, cookie: `sid=${TOKEN}-cookie`, 'x-api-key': API_KEY };
      const r = await CALLERS[inbound](gw, 'CreateTaskPushNotificationConfig', params, {
        tenant: 'e',
        prefix: '/e',
        headers,
      });
      tt.notOk(r.ok, `${inbound}: the upstream error comes back`);
      const seen = JSON.stringify([r.message, r.details]);
      tt.match(r.message, /\[REDACTED\]/, `${inbound}: redacted marks in the message`);
      for (const secret of SECRETS)
        tt.notOk(seen.includes(secret), `${inbound}: ${secret.slice(0, 8)}… not in the error`);
      tt.match(seen, /team=ops/, `${inbound}: what is no secret stays`);
    }
    const all = lines.join('\n');
    for (const secret of SECRETS) tt.notOk(all.includes(secret), `${secret.slice(0, 8)}… in no log line`);
    tt.ok(
      lines.some((l) => (JSON.parse(l) as { error?: string }).error?.includes('[REDACTED]')),
      'the log line keeps the redacted error',
    );
  },
);

t.test("pino drops a logged request's credential headers", async (tt) => {
  const out: string[] = [];
  const log = pino(
    { redact: REDACT_PATHS },
    new Writable({
      write(c: Buffer, _e, cb) {
        out.push(c.toString());
        cb();
      },
    }),
  );
  log.info(
    {
      req: { headers: { authorization: TOKEN, cookie: PUSH_SECRET, 'x-api-key': API_KEY } },
    },
    'x',
  );
  const text = out.join('');
  for (const secret of [TOKEN, API_KEY, PUSH_SECRET]) tt.notOk(text.includes(secret), `${secret.slice(0, 8)}… dropped`);
});
