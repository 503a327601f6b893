// Core pieces: version negotiation and service parameters (§3.2.6, §3.6),
// W3C trace context, the envelope as the protobuf of envelope.proto for every
// method, and route candidates for HTTP and gRPC.
import t, { type Test } from 'tap';
import { create, equals } from '@bufbuild/protobuf';
import { routeFromRaw } from '../../src/config/load.js';
import type { Binding } from '../../src/config/types.js';
import { decodeEnvelope, encodeEnvelope, envelopeOf, serviceParameters } from '../../src/core/envelope.js';
import { METHODS, type AnyRequest } from '../../src/core/methods.js';
import {
  extensionsOf,
  forwardedHeaders,
  MAX_HEADER_VALUE_BYTES,
  negotiateVersion,
  upstreamHeaders,
  versionOf,
} from '../../src/core/service-params.js';
import { acceptedTraceparent, newTraceparent, traceIdOf, validTraceparent } from '../../src/core/trace-context.js';
import { A2AError } from '../../src/errors/a2a-error.js';
import { EnvelopeSchema } from '../../src/gen/a2a/gateway/v1/envelope_pb.js';
import type { Call } from '../../src/pipeline/call.js';
import { selectRoute } from '../../src/pipeline/stages/route.js';
import { Router } from '../../src/routing/router.js';

/** Runs fn, which must throw an A2AError; returns it. */
function a2aError(tt: Test, fn: () => unknown, what: string): A2AError {
  try {
    fn();
  } catch (e) {
    tt.ok(e instanceof A2AError, what);
    return e as A2AError;
  }
  tt.fail(`${what}: did not throw`);
  return A2AError.of('INTERNAL_ERROR', 'did not throw');
}

const headersOf =
  (h: Record<string, string>) =>
  (name: string): string | undefined =>
    h[name];

t.test('A2A-Version: Major.Minor, patch ignored, empty is 0.3 (spoken through the bridge)', async (tt) => {
  tt.equal(negotiateVersion('1.0'), '1.0');
  tt.equal(negotiateVersion('1.0.2'), '1.0', 'patch ignored');
  tt.equal(negotiateVersion(' 1.1 '), '1.1', 'a later 1.x minor is accepted');
  tt.equal(negotiateVersion('0.3'), '0.3', '0.3 is spoken');
  tt.equal(negotiateVersion('0.3.14'), '0.3', '0.3 patch ignored');
  for (const empty of [undefined, '', '  ']) {
    tt.equal(negotiateVersion(empty), '0.3', `${JSON.stringify(empty)} is read as 0.3 (§3.6.2)`);
  }
  for (const bad of ['0.2', '2.0', 'v1', '1', '1.0.0.0']) {
    const e = a2aError(tt, () => negotiateVersion(bad), `${String(bad)} refused`);
    tt.equal(e.errorName, 'VERSION_NOT_SUPPORTED', `${String(bad)} → VersionNotSupported`);
    tt.match(e.details[0]?.metadata, { supportedVersions: '1.0, 0.3' }, 'naming what is spoken');
  }
});

const TP = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

t.test('service parameters in and out', async (tt) => {
  const header = headersOf({
    'a2a-version': '1.0',
    'a2a-extensions': 'urn:a, urn:b,,urn:c',
    authorization: 'Bearer x',
    traceparent: TP,
    tracestate: 'k=v',
    'x-keep': 'k',
    'x-drop': 'd',
  });
  tt.equal(versionOf(header, undefined), '1.0');
  tt.equal(versionOf(header, '2.0'), '1.0', 'the header wins over the query parameter');
  tt.equal(
    versionOf(() => undefined, '1.0'),
    '1.0',
    'the A2A-Version query parameter counts (§3.6.1)',
  );
  tt.equal(
    versionOf(() => undefined, undefined),
    '0.3',
    'neither header nor query parameter: 0.3 (§3.6.2)',
  );
  tt.same(
    extensionsOf(headersOf({ 'x-a2a-extensions': 'urn:old' }), '0.3'),
    ['urn:old'],
    "a 0.3 caller's X-A2A-Extensions",
  );
  tt.same(extensionsOf(header), ['urn:a', 'urn:b', 'urn:c'], 'A2A-Extensions split, trimmed, empties dropped');
  tt.same(
    extensionsOf(() => undefined),
    [],
    'no extensions',
  );

  const forwarded = forwardedHeaders(header, ['x-keep', 'x-absent'], TP, true);
  tt.same(
    forwarded,
    { authorization: 'Bearer x', traceparent: TP, tracestate: 'k=v', 'x-keep': 'k' },
    'Authorization, the allow-list (present names only), trace context; nothing else',
  );
  tt.same(
    forwardedHeaders(header, [], 'new-tp', false),
    { authorization: 'Bearer x', traceparent: 'new-tp' },
    "the call's traceparent; tracestate dropped when the caller's traceparent is not kept",
  );
  tt.same(upstreamHeaders(serviceParameters('1.0', ['urn:a', 'urn:b'], forwarded)), {
    authorization: 'Bearer x',
    traceparent: TP,
    tracestate: 'k=v',
    'x-keep': 'k',
    'a2a-version': '1.0',
    'a2a-extensions': 'urn:a,urn:b',
  });
  tt.same(
    upstreamHeaders(serviceParameters('1.0', [], {})),
    { 'a2a-version': '1.0' },
    'no A2A-Extensions header without extensions',
  );

  for (const [name, value] of [
    ['x-keep', 'a\r\nInjected: 1'],
    ['authorization', 'Bearer \0'],
    ['tracestate', 'k=v\n'],
    ['x-keep', 'v'.repeat(MAX_HEADER_VALUE_BYTES + 1)],
  ] as const) {
    const e = a2aError(
      tt,
      () => forwardedHeaders(headersOf({ [name]: value }), ['x-keep'], TP, true),
      `${name}: ${JSON.stringify(value.slice(0, 20))} refused`,
    );
    tt.equal(e.errorName, 'INVALID_REQUEST');
  }
  tt.equal(
    a2aError(tt, () => extensionsOf(headersOf({ 'a2a-extensions': 'urn:a\r\n' })), 'extensions').errorName,
    'INVALID_REQUEST',
    'a control character in A2A-Extensions refused',
  );
});

t.test('trace context: kept when valid, started when missing or malformed', async (tt) => {
  tt.ok(validTraceparent(TP), 'a valid traceparent is kept');
  tt.ok(validTraceparent(` ${TP} `), 'surrounding whitespace tolerated');
  tt.equal(acceptedTraceparent(` ${TP} `), TP, 'and forwarded without it');
  const later = `cc-${TP.slice(3)}-what-a-later-version-adds`;
  tt.equal(acceptedTraceparent(later), TP, 'a later version: its version-00 fields continue the trace');
  tt.equal(acceptedTraceparent(`cc-${TP.slice(3)}`), TP, 'a later version without more fields too');
  tt.equal(acceptedTraceparent(`${TP}-more`), undefined, 'version 00 with more fields is malformed');
  for (const bad of [
    undefined,
    '',
    '00-00000000000000000000000000000000-b7ad6b7169203331-01',
    '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01',
    'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01',
    '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331',
  ]) {
    tt.notOk(validTraceparent(bad), `${JSON.stringify(bad)} is replaced`);
  }
  const a = newTraceparent();
  const b = newTraceparent();
  tt.match(a, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/, 'a new traceparent');
  tt.ok(validTraceparent(a), 'which is valid');
  tt.not(a, b, 'and new each time');
  tt.equal(traceIdOf(TP), '0af7651916cd43dd8448eb211c80319c');
  tt.equal(traceIdOf(undefined), undefined);
  tt.equal(traceIdOf('garbage'), undefined);
});

t.test('the envelope is the protobuf of envelope.proto', async (tt) => {
  tt.equal(METHODS.size, 11, 'the eleven A2A methods');
  for (const info of METHODS.values()) {
    const request = create(info.requestSchema, { tenant: 'acme' }) as AnyRequest;
    const env = envelopeOf(info, request, 'acme', serviceParameters('1.0', ['urn:x'], { traceparent: 'tp' }));
    const bytes = encodeEnvelope(env);
    const back = decodeEnvelope(bytes);
    tt.ok(equals(EnvelopeSchema, back, env), `${info.name} round-trips through Envelope bytes`);
    tt.same(back, env, `${info.name}: deep equal`);
    tt.equal(back.request.case, info.envelopeCase, `${info.name}: request oneof member ${info.envelopeCase}`);
    tt.equal(back.method, info.enumValue, `${info.name}: Method value`);
  }
});

t.test('routing: host, longest prefix, tenant', async (tt) => {
  const r = (name: string, match: Record<string, unknown>, bindings?: Binding[]) =>
    routeFromRaw({ name, match, upstream: { url: 'http://u:1' }, card: bindings ? { bindings } : undefined });
  const router = new Router([
    r('root', {}),
    r('a', { pathPrefix: '/a' }),
    r('ab', { pathPrefix: '/a/b' }),
    r('a-acme', { pathPrefix: '/a', tenant: 'acme' }),
    r('globex', { tenant: 'globex' }, ['JSONRPC']),
    r('host', { hosts: ['agents.example.com'] }),
  ]);
  const names = (host: string, path: string) => router.httpCandidates(host, path).map((c) => c.route.name);
  tt.same(
    names('gw:8080', '/a/b/tasks/1'),
    ['ab', 'a-acme', 'a', 'globex', 'root'],
    'longest prefix first, tenant-bound before any-tenant',
  );
  tt.same(names('gw', '/ab'), ['globex', 'root'], 'a prefix matches whole segments only');
  tt.same(names('Agents.Example.com:443', '/x')[0], 'host', 'host routes first, case-insensitive, port ignored');
  tt.equal(router.httpCandidates('gw', '/a/b/x')[0]?.rest, '/x', 'the rest below the prefix');

  const grpc = (authority: string) => router.grpcCandidates(authority).map((c) => c.name);
  tt.same(grpc('gw:443'), ['a-acme', 'globex', 'root'], 'gRPC reaches tenant-bound and root routes, never by path');
  tt.same(
    grpc('AGENTS.example.com'),
    ['host', 'a-acme', 'globex', 'root'],
    'gRPC by :authority first, most specific first',
  );

  // The pipeline's route stage picks the first candidate serving the call's tenant over its binding.
  const pick = (from: Router, authority: string, tenant: string, inbound: Binding = 'GRPC'): string | undefined => {
    const call = { candidates: from.grpcCandidates(authority), tenant, inbound, request: { size: 0 } };
    selectRoute(call as unknown as Call);
    return (call as unknown as Call).route?.name;
  };
  tt.equal(pick(router, 'gw', 'acme'), 'a-acme', 'gRPC by tenant');
  tt.equal(pick(router, 'agents.example.com', ''), 'host', 'gRPC by :authority');
  tt.equal(pick(router, 'gw', ''), 'root', 'gRPC falls back to the root route');
  tt.equal(pick(router, 'gw', 'globex'), 'root', 'a route whose card does not expose gRPC is passed over');
  tt.equal(pick(router, 'gw', 'globex', 'JSONRPC'), 'globex', 'but serves its own binding');
  const tenantsOnly = new Router([r('acme', { tenant: 'acme' }), r('sub', { pathPrefix: '/sub' })]);
  tt.same(
    tenantsOnly.grpcCandidates('gw').map((c) => c.name),
    ['acme'],
    'a path-only route is not reachable by gRPC',
  );
  const none = a2aError(tt, () => pick(tenantsOnly, 'gw', 'initech'), 'another tenant');
  tt.equal(none.errorName, 'NO_ROUTE', 'no candidate for the tenant is NO_ROUTE');
});
