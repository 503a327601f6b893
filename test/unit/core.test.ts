// Core pieces: service parameters (§3.2.6, §3.6), the envelope as the
// protobuf of envelope.proto, required-field validation (§5.7) and routing.
import t from 'tap';
import { routeFromRaw } from '../../src/config/load.js';
import { decodeEnvelope, encodeEnvelope, type Envelope } from '../../src/core/envelope.js';
import { METHODS } from '../../src/core/methods.js';
import { negotiateVersion, readServiceParameters, upstreamHeaders } from '../../src/core/service-params.js';
import { requiredViolations } from '../../src/core/validate.js';
import { traceIdOf } from '../../src/core/trace-context.js';
import { fromJson } from '../../src/proto/protojson.js';
import { messageType } from '../../src/proto/registry.js';
import { Router } from '../../src/routing/router.js';

t.test('A2A-Version: Major.Minor, patch ignored, empty is 0.3', async (tt) => {
  tt.equal(negotiateVersion('1.0'), '1.0');
  tt.equal(negotiateVersion('1.0.2'), '1.0', 'patch ignored');
  tt.equal(negotiateVersion(' 1.1 '), '1.1', 'a later 1.x minor is accepted');
  for (const bad of [undefined, '', '0.3', '2.0', 'v1', '1', '1.0.0.0'])
    tt.throws(
      () => negotiateVersion(bad),
      { errorName: 'VERSION_NOT_SUPPORTED', message: /is not supported/ },
      `${JSON.stringify(bad) ?? 'undefined'} → VersionNotSupported`,
    );
  for (const empty of [undefined, '', '  '])
    tt.throws(
      () => negotiateVersion(empty),
      { errorName: 'VERSION_NOT_SUPPORTED', message: /^A2A version 0\.3 is not supported/ },
      `${JSON.stringify(empty)} is read as 0.3 (§3.6.2)`,
    );
});

const TP = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

t.test('service parameters in and out', async (tt) => {
  const headers: Record<string, string> = {
    'a2a-version': '1.0',
    'a2a-extensions': 'urn:a, urn:b,,urn:c',
    authorization: 'Bearer x',
    traceparent: TP,
    tracestate: 'k=v',
    'x-keep': 'k',
    'x-drop': 'd',
  };
  const sp = readServiceParameters((n) => headers[n], ['x-keep']);
  tt.same(sp, {
    version: '1.0',
    extensions: ['urn:a', 'urn:b', 'urn:c'],
    forwardedHeaders: { authorization: 'Bearer x', traceparent: TP, tracestate: 'k=v', 'x-keep': 'k' },
  });
  tt.same(upstreamHeaders(sp), {
    authorization: 'Bearer x',
    traceparent: TP,
    tracestate: 'k=v',
    'x-keep': 'k',
    'a2a-version': '1.0',
    'a2a-extensions': 'urn:a,urn:b,urn:c',
  });
  tt.equal(readServiceParameters(() => undefined, [], '1.0').version, '1.0', 'the A2A-Version query parameter counts');
});

t.test('trace context: kept when valid, started when missing or malformed', async (tt) => {
  const fresh = readServiceParameters(() => undefined, [], '1.0').forwardedHeaders;
  tt.match(fresh.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/, 'a new traceparent when the caller sent none');
  const bad: Record<string, string> = {
    traceparent: '00-00000000000000000000000000000000-b7ad6b7169203331-01',
    tracestate: 'k=v',
  };
  const fixed = readServiceParameters((n) => bad[n], [], '1.0').forwardedHeaders;
  tt.not(fixed.traceparent, bad.traceparent, 'an all-zero trace id is replaced');
  tt.equal(fixed.tracestate, undefined, 'and the orphaned tracestate dropped');
  tt.equal(traceIdOf({ traceparent: TP }), '0af7651916cd43dd8448eb211c80319c');
});

t.test('the envelope is the protobuf of envelope.proto', async (tt) => {
  for (const m of METHODS.values()) {
    const env: Envelope = {
      method: m.name,
      serviceParameters: { version: '1.0', extensions: ['urn:x'], forwardedHeaders: { traceparent: 'tp' } },
      tenant: 'acme',
      request: { tenant: 'acme' },
    };
    const back = decodeEnvelope(encodeEnvelope(env));
    tt.same(back, env, `${m.name} round-trips through Envelope bytes`);
  }
});

t.test('REQUIRED fields (§5.7)', async (tt) => {
  const Send = messageType('lf.a2a.v1.SendMessageRequest');
  tt.same(
    requiredViolations(Send, fromJson(Send, {})).map((v) => v.field),
    ['message'],
  );
  tt.same(
    requiredViolations(Send, fromJson(Send, { message: { parts: [{ text: 'x' }, {}] } })).map((v) => v.field),
    ['message.messageId', 'message.role'],
    'nested',
  );
  tt.same(
    requiredViolations(Send, fromJson(Send, { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } })).map(
      (v) => v.field,
    ),
    ['message.parts'],
    'a required repeated field needs one element',
  );
  const Cfg = messageType('lf.a2a.v1.SendMessageRequest');
  tt.same(
    requiredViolations(
      Cfg,
      fromJson(Cfg, {
        message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] },
        configuration: { taskPushNotificationConfig: {} },
      }),
    ).map((v) => v.field),
    ['configuration.taskPushNotificationConfig.url'],
    'inside optional sub-messages that are present',
  );
});

t.test('routing: host, longest prefix, tenant', async (tt) => {
  const r = (name: string, match: Record<string, unknown>) =>
    routeFromRaw({ name, match, upstream: { url: 'http://u:1' } });
  const router = new Router([
    r('root', {}),
    r('a', { pathPrefix: '/a' }),
    r('ab', { pathPrefix: '/a/b' }),
    r('a-acme', { pathPrefix: '/a', tenant: 'acme' }),
    r('host', { hosts: ['agents.example.com'] }),
  ]);
  const names = (host: string, path: string) => router.httpCandidates(host, path).map((c) => c.route.name);
  tt.same(
    names('gw:8080', '/a/b/tasks/1'),
    ['ab', 'a-acme', 'a', 'root'],
    'longest prefix first, tenant-bound before any-tenant',
  );
  tt.same(names('gw', '/ab'), ['root'], 'a prefix matches whole segments only');
  tt.same(names('Agents.Example.com:443', '/x')[0], 'host', 'host routes first, case-insensitive, port ignored');
  tt.equal(router.httpCandidates('gw', '/a/b/x')[0]?.rest, '/x', 'the rest below the prefix');
  tt.equal(router.grpcRoute('gw', 'acme')?.name, 'a-acme', 'gRPC by tenant');
  tt.equal(router.grpcRoute('agents.example.com', '')?.name, 'host', 'gRPC by :authority');
  tt.equal(router.grpcRoute('gw', '')?.name, 'root', 'gRPC falls back to the root route');
});
