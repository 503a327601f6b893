// Re-signed cards (card.signatures: resign, spec §8.4) across reloads and as
// served: a key file replaced at the same path and reloaded under a new kid,
// or the same file reloaded with another alg, signs the next served card (the
// key is read again for the new configuration); a reload that changes nothing
// serves the same bytes (no new signature, same ETag); and the served body is
// exactly what was signed — a verifier that follows §8.4.3 literally (the
// served JSON without `signatures`, RFC 8785, JWS with a detached payload)
// accepts it even when the upstream card carries fields the proto does not know.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import canonicalize from 'canonicalize';
import { exportPKCS8, flattenedVerify, generateKeyPair, importSPKI, exportSPKI, type CryptoKey } from 'jose';
import { verifyAgentCardSignature, type AgentCard } from '@a2a-js/sdk';
import { echoAgentCard } from '../../examples/demo-agent/echo-agent.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import { cardServer } from '../helpers/card-server.js';
import { gatewayConfig } from '../helpers/harness.js';

const silent = pino({ level: 'silent' });
/** An entity tag (RFC 9110 §8.8.3), strong or weak: an absent header is "undefined", which this refuses. */
const ETAG = /^(W\/)?"[^"]+"$/;

async function served(gw: RunningGateway, path: string): Promise<{ status: number; etag: string; json: JsonObject }> {
  const res = await request(`${gw.httpUrl}${path}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } });
  return { status: res.statusCode, etag: String(res.headers.etag), json: (await res.body.json()) as JsonObject };
}

const header = (c: JsonObject): JsonObject =>
  JSON.parse(
    Buffer.from(String((c.signatures as JsonObject[])[0]!.protected), 'base64url').toString('utf8'),
  ) as JsonObject;

/** The official SDK's verifier (it normalises the card itself) with the one key given. */
const verifiesWith = (c: JsonObject, key: CryptoKey): Promise<boolean> =>
  verifyAgentCardSignature(async () => key)(c as unknown as AgentCard).then(
    () => true,
    () => false,
  );

/** §8.4.3 as written, on the served JSON: drop `signatures`, RFC 8785, verify the JWS over those bytes. */
async function verifiesLiterally(c: JsonObject, key: CryptoKey): Promise<boolean> {
  const { signatures, ...rest } = c;
  const sig = (signatures as JsonObject[])[0]!;
  const payload = Buffer.from(canonicalize(rest) ?? '').toString('base64url');
  return flattenedVerify({ protected: String(sig.protected), signature: String(sig.signature), payload }, key).then(
    () => true,
    () => false,
  );
}

t.test('a key replaced at the same path and reloaded under a new kid signs the next card', async (tt) => {
  const k1 = await generateKeyPair('ES256', { extractable: true });
  const k2 = await generateKeyPair('ES256', { extractable: true });
  const dir = tt.testdir({ 'gw.pem': await exportPKCS8(k1.privateKey) });
  const file = join(dir, 'gw.pem');
  const upstream = await cardServer(echoAgentCard('Rotating', {}) as unknown as JsonObject, 'max-age=60');
  const config = (kid: string) =>
    gatewayConfig([
      {
        name: 'r',
        match: { pathPrefix: '/r' },
        upstream: { url: `${upstream.url}/rpc`, binding: 'JSONRPC' as const },
        card: { url: `${upstream.url}/c.json`, signatures: 'resign' as const, signingKey: { file, alg: 'ES256', kid } },
      },
    ]);
  const gw = await startGateway(config('k1'), silent);
  tt.teardown(async () => {
    await gw.close();
    await upstream.close();
  });

  const before = await served(gw, '/r');
  tt.equal(header(before.json).kid, 'k1');
  tt.ok(await verifiesWith(before.json, k1.publicKey), 'signed with k1');

  gw.reload(config('k1'));
  const same = await served(gw, '/r');
  tt.match(before.etag, ETAG, 'the card has an ETag');
  tt.equal(same.etag, before.etag, 'a reload that changes nothing serves the same signed bytes');
  // ES256 signatures are randomised: the same one is no new signing
  tt.same(same.json.signatures, before.json.signatures, 'and the same signature');

  writeFileSync(file, await exportPKCS8(k2.privateKey));
  gw.reload(config('k2'));
  const after = await served(gw, '/r');
  tt.equal(header(after.json).kid, 'k2');
  tt.ok(await verifiesWith(after.json, k2.publicKey), 'signed with the new key k2');
  tt.notOk(await verifiesWith(after.json, k1.publicKey), 'not with the old key k1');
});

t.test('the same key file reloaded with another alg signs with that alg', async (tt) => {
  const rsa = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
  const dir = tt.testdir({ 'rsa.pem': await exportPKCS8(rsa.privateKey) });
  const spki = await exportSPKI(rsa.publicKey);
  const upstream = await cardServer(echoAgentCard('Rsa', {}) as unknown as JsonObject, 'max-age=60');
  const config = (alg: string) =>
    gatewayConfig([
      {
        name: 'r',
        match: { pathPrefix: '/r' },
        upstream: { url: `${upstream.url}/rpc`, binding: 'JSONRPC' as const },
        card: {
          url: `${upstream.url}/c.json`,
          signatures: 'resign' as const,
          signingKey: { file: join(dir, 'rsa.pem'), alg, kid: 'rsa-1' },
        },
      },
    ]);
  const gw = await startGateway(config('RS256'), silent);
  tt.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const rs = await served(gw, '/r');
  tt.equal(header(rs.json).alg, 'RS256');
  tt.ok(await verifiesWith(rs.json, await importSPKI(spki, 'RS256')), 'RS256 verifies');

  gw.reload(config('PS256'));
  const ps = await served(gw, '/r');
  tt.equal(ps.status, 200, 'served');
  tt.equal(header(ps.json).alg, 'PS256');
  tt.ok(await verifiesWith(ps.json, await importSPKI(spki, 'PS256')), 'PS256 verifies');
});

t.test('a re-signed card is served exactly as signed, fields the proto does not know included', async (tt) => {
  const keys = await generateKeyPair('ES256', { extractable: true });
  const dir = tt.testdir({ 'gw.pem': await exportPKCS8(keys.privateKey) });
  const base = echoAgentCard('Vendor', {}) as unknown as JsonObject;
  const upstream = await cardServer(
    {
      ...base,
      'x-vendor': { tier: 'gold' },
      capabilities: { ...(base.capabilities as JsonObject), foo: 1 },
      documentationUrl: '',
      skills: [],
    },
    'max-age=60',
  );
  const gw = await startGateway(
    gatewayConfig([
      {
        name: 'v',
        match: { pathPrefix: '/v' },
        upstream: { url: `${upstream.url}/rpc`, binding: 'JSONRPC' as const },
        card: {
          url: `${upstream.url}/c.json`,
          signatures: 'resign' as const,
          signingKey: { file: join(dir, 'gw.pem'), alg: 'ES256', kid: 'gw-1' },
        },
      },
    ]),
    silent,
  );
  tt.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const c = await served(gw, '/v');
  tt.equal(c.status, 200);
  tt.ok(await verifiesLiterally(c.json, keys.publicKey), 'the served JSON minus signatures is the signed payload');
  tt.notOk('x-vendor' in c.json, 'a field the proto does not know is not served unsigned');
  tt.notOk('foo' in (c.json.capabilities as JsonObject), 'nor one nested in a known message');
  tt.notOk('securityRequirements' in c.json, 'a default value is served as it was signed: omitted');
  tt.notOk('extensions' in (c.json.capabilities as JsonObject), 'at every level');
  tt.equal(c.json.documentationUrl, '', 'an optional field set to its default is kept');
  tt.same(c.json.skills, [], 'a REQUIRED field is kept at its default');
});

t.test('a signing key gone since load: the card request is 500 and the log says why', async (tt) => {
  const k = await generateKeyPair('ES256', { extractable: true });
  const dir = tt.testdir({ 'gw.pem': await exportPKCS8(k.privateKey) });
  const file = join(dir, 'gw.pem');
  const upstream = await cardServer(echoAgentCard('Keyless', {}) as unknown as JsonObject, 'max-age=60');
  const lines: Array<Record<string, unknown>> = [];
  const log = pino(
    { level: 'info' },
    { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
  );
  const gw = await startGateway(
    gatewayConfig([
      {
        name: 'gone',
        match: { pathPrefix: '/g' },
        upstream: { url: `${upstream.url}/rpc`, binding: 'JSONRPC' as const },
        card: {
          url: `${upstream.url}/c.json`,
          signatures: 'resign' as const,
          signingKey: { file, alg: 'ES256', kid: 'k' },
        },
      },
    ]),
    log,
  );
  tt.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  rmSync(file); // after load, before the first card is signed
  const r = await served(gw, '/g');
  tt.equal(r.status, 500);
  tt.notMatch(JSON.stringify(r.json), dir, 'the answer names no file');
  const line = lines.find((l) => l.msg === 'card cannot be served');
  tt.equal(line?.route, 'gone', 'logged, naming the route');
  tt.match(String(line?.err), /ENOENT/, 'and why');
});
