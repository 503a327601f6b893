// Authentication at the gateway (§7.4, §3.3.2): API keys (header, query,
// cookie), bearer JWTs checked against a JWKS file or URL (issuer, audience,
// expiry with clock skew, signature), on every inbound binding and to every
// upstream binding; failures are UNAUTHENTICATED in the caller's binding with
// WWW-Authenticate on HTTP; the caller's credentials are stripped, forwarded
// or replaced upstream as the route says; the served card describes the
// schemes; pass-through routes authenticate too; no secret reaches a log line.
import { createServer } from 'node:http';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { startEchoAgent } from '../../examples/demo-agent/echo-agent.js';
import { CATALOGUE, GRPC_CODES } from '../../src/errors/catalogue.js';
import { startGateway } from '../../src/server/gateway.js';
import type { Binding } from '../../src/config/types.js';
import {
  BINDINGS,
  CALLERS,
  closeGrpcClients,
  gatewayConfig,
  slug,
  userMessage,
  type WireResult,
} from '../helpers/harness.js';
import { STREAM_CALLERS } from '../helpers/streams.js';

const { privateKey, publicKey } = await generateKeyPair('ES256');
const other = await generateKeyPair('ES256');
const dir = t.testdir({
  'jwks.json': JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] }),
});
const publicJwk = await exportJWK(publicKey);
const jwksServer = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ keys: [{ ...publicJwk, kid: 'k1', alg: 'ES256' }] }));
});
await new Promise<void>((r) => jwksServer.listen(0, '127.0.0.1', r));
const jwksUrl = `http://127.0.0.1:${(jwksServer.address() as { port: number }).port}/jwks.json`;

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'a2a-gateway';
const API_KEY = 'alice-secret-key-0001';
async function token(
  opts: {
    sub?: string | null;
    claims?: Record<string, string>;
    exp?: number | null;
    iss?: string;
    aud?: string;
    key?: CryptoKey;
  } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT(opts.claims ?? {}).setProtectedHeader({ alg: 'ES256', kid: 'k1' });
  if (opts.sub !== null) jwt.setSubject(opts.sub ?? 'alice');
  if (opts.exp !== null) jwt.setExpirationTime(opts.exp ?? now + 300);
  return jwt
    .setIssuer(opts.iss ?? ISSUER)
    .setAudience(opts.aud ?? AUDIENCE)
    .setIssuedAt(now - 60)
    .sign(opts.key ?? privateKey);
}

const auth = {
  apiKey: { in: 'header' as const, name: 'X-API-Key', keys: [{ id: 'alice-key', key: API_KEY }] },
  jwt: { jwksFile: join(dir, 'jwks.json'), issuer: ISSUER, audience: AUDIENCE, clockSkewSeconds: 30 },
};
const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, cb) {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    cb();
  },
});
const agent = await startEchoAgent({ bindings: BINDINGS });
const upstream = (b: Binding) => ({ url: agent.urlFor(b), binding: b, tenant: 'clear' as const });
const route = (name: string, b: Binding, extra: Record<string, unknown> = {}) => ({
  name,
  match: { pathPrefix: `/${name}`, tenant: name },
  upstream: upstream(b),
  card: b === 'GRPC' ? { url: `${agent.httpUrl}/.well-known/agent-card.json` } : {},
  ...extra,
});
const gw = await startGateway(
  gatewayConfig([
    ...BINDINGS.map((b) => route(`auth-${slug(b)}`, b, { auth })),
    route('fwd', 'GRPC', { auth, upstream: { ...upstream('GRPC'), credentials: 'forward' } }),
    route('set', 'HTTP+JSON', {
      auth,
      upstream: {
        ...upstream('HTTP+JSON'),
        credentials: { header: 'Authorization', value: 'Bearer upstream-token-xyz' },
      },
    }),
    route('remote', 'JSONRPC', { auth: { jwt: { jwksUrl, issuer: ISSUER, audience: AUDIENCE } } }),
    route('noexp', 'HTTP+JSON', { auth: { jwt: { ...auth.jwt, requireExpiration: false } } }),
    route('qkey', 'JSONRPC', { auth: { apiKey: { in: 'query', name: 'api_key', keys: [{ id: 'q', key: API_KEY }] } } }),
    route('ckey', 'JSONRPC', {
      auth: { apiKey: { in: 'cookie', name: 'session', keys: [{ id: 'c', key: API_KEY }] } },
    }),
    { ...route('pt', 'JSONRPC', { auth, passThrough: true }), match: { pathPrefix: '/pt' } },
    {
      name: 'pt-grpc',
      match: { hosts: ['pt.test'] },
      upstream: upstream('GRPC'),
      card: { url: `${agent.httpUrl}/.well-known/agent-card.json` },
      auth,
      passThrough: true,
    },
    route('limited', 'JSONRPC', {
      auth: {
        apiKey: {
          name: 'X-API-Key',
          keys: [
            { id: 'alice', key: API_KEY },
            { id: 'bob', key: `${API_KEY}-bob` },
          ],
        },
      },
      rateLimit: { requestsPerSecond: 0.1, burst: 1, perCaller: true },
    }),
    route('jwt-limited', 'HTTP+JSON', {
      auth: { jwt: auth.jwt },
      rateLimit: { requestsPerSecond: 0.01, burst: 1, perCaller: true },
    }),
  ]),
  pino({ level: 'info' }, sink),
);
t.teardown(async () => {
  closeGrpcClients();
  await gw.close();
  await agent.close();
  jwksServer.close();
});

const opts = (name: string, headers: Record<string, string> = {}) => ({ tenant: name, prefix: `/${name}`, headers });
const send = (inbound: Binding, name: string, headers: Record<string, string> = {}) =>
  CALLERS[inbound](gw, 'SendMessage', { message: userMessage('hello') }, opts(name, headers));

function isUnauthenticated(inbound: Binding, r: WireResult): boolean {
  const row = CATALOGUE.UNAUTHENTICATED;
  if (r.ok) return false;
  if (inbound === 'GRPC') return r.code === GRPC_CODES.UNAUTHENTICATED;
  if (inbound === 'JSONRPC') return r.code === row.jsonRpc && r.httpStatus === 401;
  return r.httpStatus === 401 && r.status === 'UNAUTHENTICATED';
}
const challenge = (r: WireResult): string => String(r.headers?.['www-authenticate'] ?? '');
const reason = (r: WireResult): unknown =>
  r.details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo')?.reason;

t.test(
  'no credentials: UNAUTHENTICATED in the caller binding, on every pair; valid ones pass, stripped upstream',
  async (tt) => {
    const good = await token();
    for (const inbound of BINDINGS) {
      for (const up of BINDINGS) {
        const name = `auth-${slug(up)}`;
        const none = await send(inbound, name);
        tt.ok(isUnauthenticated(inbound, none), `${inbound} → ${up}: refused`);
        tt.equal(reason(none), 'UNAUTHENTICATED', 'with its ErrorInfo');
        if (inbound !== 'GRPC') {
          tt.match(challenge(none), /Bearer realm="auth-[a-z]+"/, 'WWW-Authenticate names Bearer');
          tt.match(challenge(none), /ApiKey realm="auth-[a-z]+", in="header", name="X-API-Key"/, 'and the API key');
        }
        const ok = await send(inbound, name, { authorization: `Bearer ${good}` });
        tt.ok(ok.ok, `${inbound} → ${up}: a valid JWT passes`);
        tt.equal(agent.lastCall()?.headers.authorization, undefined, 'the caller token is stripped upstream (default)');
        const byKey = await send(inbound, name, { 'x-api-key': API_KEY });
        tt.ok(byKey.ok, `${inbound} → ${up}: a valid API key passes`);
        tt.equal(agent.lastCall()?.headers['x-api-key'], undefined, 'the API key is stripped upstream');
      }
    }
  },
);

t.test('refused tokens and keys, with the reason (RFC 6750) and never the secret', async (tt) => {
  const now = Math.floor(Date.now() / 1000);
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['expired', { authorization: `Bearer ${await token({ exp: now - 120 })}` }, /expired/],
    ['never expires', { authorization: `Bearer ${await token({ exp: null })}` }, /no "exp" claim/],
    ['wrong audience', { authorization: `Bearer ${await token({ aud: 'someone-else' })}` }, /"aud" claim/],
    ['wrong issuer', { authorization: `Bearer ${await token({ iss: 'https://evil.test' })}` }, /"iss" claim/],
    ['other key', { authorization: `Bearer ${await token({ key: other.privateKey })}` }, /signature/],
    ['garbage', { authorization: 'Bearer not.a.jwt' }, /malformed/],
    ['wrong API key', { 'x-api-key': 'not-the-key-000' }, /API key is not valid/],
  ];
  for (const inbound of BINDINGS) {
    for (const [what, headers, why] of cases) {
      const r = await send(inbound, 'auth-jsonrpc', headers);
      tt.ok(isUnauthenticated(inbound, r), `${inbound}: ${what} refused`);
      tt.match(r.message, why, `${inbound}: ${what}: the reason is given`);
      tt.notMatch(r.message ?? '', /not-the-key|eyJ/, 'no credential in the message');
      if (inbound !== 'GRPC' && what !== 'wrong API key')
        tt.match(challenge(r), /error="invalid_token", error_description="[^"]+"/, 'RFC 6750 error attributes');
    }
  }
  const skewed = await send('HTTP+JSON', 'auth-jsonrpc', { authorization: `Bearer ${await token({ exp: now - 10 })}` });
  tt.ok(skewed.ok, 'expired 10 s ago is within the 30 s clock skew');
  const forever = { authorization: `Bearer ${await token({ exp: null })}` };
  for (const inbound of BINDINGS) {
    tt.ok((await send(inbound, 'noexp', forever)).ok, `${inbound}: requireExpiration: false accepts it`);
  }
});

t.test('credentials forwarded or replaced upstream, as the route says', async (tt) => {
  const good = await token();
  for (const inbound of BINDINGS) {
    tt.ok((await send(inbound, 'fwd', { authorization: `Bearer ${good}`, 'x-api-key': API_KEY })).ok);
    tt.equal(
      agent.lastCall()?.headers.authorization,
      `Bearer ${good}`,
      `${inbound}: forward keeps the token (gRPC metadata upstream)`,
    );
    tt.equal(agent.lastCall()?.headers['x-api-key'], API_KEY, `${inbound}: and the API key header`);
    tt.ok((await send(inbound, 'set', { authorization: `Bearer ${good}` })).ok);
    tt.equal(
      agent.lastCall()?.headers.authorization,
      'Bearer upstream-token-xyz',
      `${inbound}: the route's own credential replaces the caller's`,
    );
  }
});

t.test('key set by URL, API keys in query and cookie', async (tt) => {
  tt.ok(
    (await send('JSONRPC', 'remote', { authorization: `Bearer ${await token()}` })).ok,
    'JWKS fetched from its URL',
  );
  tt.ok(
    isUnauthenticated(
      'JSONRPC',
      await send('JSONRPC', 'remote', { authorization: `Bearer ${await token({ key: other.privateKey })}` }),
    ),
    'a token of another key is refused',
  );
  const q = await request(`${gw.httpUrl}/qkey/qkey/message:send?api_key=${API_KEY}`, {
    method: 'POST',
    headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
    body: JSON.stringify({ message: userMessage('q') }),
  });
  tt.equal(q.statusCode, 200, 'API key in the query (REST)');
  await q.body.dump();
  const qBad = await request(`${gw.httpUrl}/qkey/qkey/message:send?api_key=nope`, {
    method: 'POST',
    headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
    body: JSON.stringify({ message: userMessage('q') }),
  });
  tt.equal(qBad.statusCode, 401);
  tt.match(qBad.headers['www-authenticate'], /ApiKey realm="qkey", in="query", name="api_key"/);
  await qBad.body.dump();
  tt.ok((await send('JSONRPC', 'ckey', { cookie: `theme=dark; session=${API_KEY}` })).ok, 'API key in a cookie');
  tt.ok(
    isUnauthenticated('HTTP+JSON', await send('HTTP+JSON', 'ckey', { cookie: 'session=wrong' })),
    'a wrong cookie is refused',
  );
});

t.test('streams authenticate before the upstream is called', async (tt) => {
  for (const inbound of ['JSONRPC', 'HTTP+JSON'] as const) {
    const r = await STREAM_CALLERS[inbound](
      gw,
      'SendStreamingMessage',
      { message: userMessage('stream') },
      opts('auth-grpc'),
    );
    tt.ok(r.error !== undefined && r.events.length === 0, `${inbound}: refused before any event`);
  }
  const ok = await STREAM_CALLERS.JSONRPC(
    gw,
    'SendStreamingMessage',
    { message: userMessage('stream') },
    opts('auth-grpc', { 'x-api-key': API_KEY }),
  );
  tt.ok(ok.events.length > 0 && ok.error === undefined, 'with a key, the stream flows');
});

t.test('the served card describes the schemes and needs no credentials', async (tt) => {
  const res = await request(`${gw.httpUrl}/auth-jsonrpc/.well-known/agent-card.json`);
  tt.equal(res.statusCode, 200);
  const card = (await res.body.json()) as Record<string, unknown>;
  tt.same(card.securitySchemes, {
    gatewayApiKey: {
      apiKeySecurityScheme: {
        description: 'API key checked by the A2A gateway',
        location: 'header',
        name: 'X-API-Key',
      },
    },
    gatewayBearer: {
      httpAuthSecurityScheme: {
        description: 'JWT bearer token checked by the A2A gateway',
        scheme: 'Bearer',
        bearerFormat: 'JWT',
      },
    },
  });
  tt.same(card.securityRequirements, [
    { schemes: { gatewayApiKey: { list: [] } } },
    { schemes: { gatewayBearer: { list: [] } } },
  ]);
});

t.test('pass-through routes authenticate too', async (tt) => {
  const rpc = (headers: Record<string, string>) =>
    request(`${gw.httpUrl}/pt`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('pt') } }),
    });
  const none = await rpc({});
  tt.equal(none.statusCode, 401, 'JSON-RPC pass-through: 401');
  tt.match(none.headers['www-authenticate'], /Bearer/);
  tt.match(await none.body.json(), { error: { code: CATALOGUE.UNAUTHENTICATED.jsonRpc } });
  const ok = await rpc({ 'x-api-key': API_KEY });
  tt.equal(ok.statusCode, 200);
  tt.match(await ok.body.json(), { result: {} });
  tt.equal(agent.lastCall()?.headers['x-api-key'], undefined, 'stripped on the pass-through too');

  const client = new grpc.Client(gw.grpcAddress, grpc.credentials.createInsecure(), {
    'grpc.default_authority': 'pt.test',
  });
  const call = (md: grpc.Metadata) =>
    new Promise<grpc.ServiceError | null>((resolve) => {
      client.makeUnaryRequest(
        '/lf.a2a.v1.A2AService/GetTask',
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.from([0x12, 0x01, 0x78]),
        md,
        (err) => resolve(err),
      );
    });
  const md = new grpc.Metadata();
  md.set('a2a-version', '1.0');
  tt.equal((await call(md))?.code, GRPC_CODES.UNAUTHENTICATED, 'gRPC pass-through: UNAUTHENTICATED');
  md.set('x-api-key', API_KEY);
  tt.equal((await call(md))?.code, GRPC_CODES.NOT_FOUND, 'with a key the upstream answers (task x not found)');
  client.close();
});

t.test('per-caller rate limits count the authenticated identity', async (tt) => {
  tt.ok((await send('HTTP+JSON', 'limited', { 'x-api-key': API_KEY })).ok, 'alice: first call');
  const again = await send('HTTP+JSON', 'limited', { 'x-api-key': API_KEY });
  tt.equal(again.httpStatus, 429, 'alice: limited');
  tt.ok((await send('HTTP+JSON', 'limited', { 'x-api-key': `${API_KEY}-bob` })).ok, 'bob has his own bucket');
  tt.ok(
    isUnauthenticated('HTTP+JSON', await send('HTTP+JSON', 'limited', {})),
    'authentication comes before the limit',
  );
});

t.test('a JWT without sub: its client at its issuer, else the token itself, is the identity', async (tt) => {
  const call = async (tok: string) =>
    (await send('HTTP+JSON', 'jwt-limited', { authorization: `Bearer ${tok}` })).httpStatus;
  // rate limit of one call per caller: a second admitted call means a second identity
  tt.equal(await call(await token({ sub: null, claims: { client_id: 'svc-a' } })), 200, 'client svc-a: first call');
  const againA = await token({ sub: null, claims: { client_id: 'svc-a', jti: 'another' } });
  tt.equal(await call(againA), 429, 'another token of client svc-a is the same caller');
  tt.equal(await call(await token({ sub: null, claims: { client_id: 'svc-b' } })), 200, 'client svc-b has its own');
  tt.equal(await call(await token({ sub: null, claims: { azp: 'svc-c' } })), 200, 'azp names the client too');
  tt.equal(await call(await token({ sub: 'svc-a' })), 200, 'a sub equal to a client id is another caller');
  tt.equal(await call(await token({ sub: '', claims: { client_id: 'svc-d' } })), 200, 'an empty sub is no sub');
  const bare = await token({ sub: null, claims: { jti: 'bare-1' } });
  tt.equal(await call(bare), 200, 'no sub, no client: the token is the caller');
  tt.equal(await call(bare), 429, 'the same token again: the same caller');
  const otherBare = await token({ sub: null, claims: { jti: 'bare-2' } });
  tt.equal(await call(otherBare), 200, 'another such token is another caller (not all "jwt:jwt")');
});

t.test('no secret in any log line, and the caller identity is logged', async (tt) => {
  const all = lines.join('\n');
  for (const secret of [API_KEY, 'upstream-token-xyz', 'eyJ'])
    tt.notOk(all.includes(secret), `logs do not contain ${secret.slice(0, 8)}…`);
  tt.ok(
    lines.some((l) => JSON.parse(l).caller === 'jwt:alice'),
    'caller jwt:alice logged',
  );
  tt.ok(
    lines.some((l) => JSON.parse(l).caller === 'apiKey:alice-key'),
    'caller apiKey:alice-key logged',
  );
  const callers = lines.map((l) => String(JSON.parse(l).caller));
  tt.ok(callers.includes(`jwt:client:svc-a@${ISSUER}`), 'a client without sub is logged at its issuer');
  tt.ok(callers.includes(`jwt:client:svc-c@${ISSUER}`), 'azp likewise');
  tt.ok(
    callers.some((c) => /^jwt:token:[\w-]{22}$/.test(c)),
    'a token without sub or client is logged by the hash of its signature',
  );
  tt.notOk(callers.includes('jwt:jwt'), 'no shared "jwt:jwt" identity');
});
