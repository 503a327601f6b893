// Agent cards across 0.3 and 1.0 (src/compat/v0_3/card.ts and security.ts,
// bridge-0.3-1.0.md §1–§2): recognising a 0.3 card exactly as @a2a-js/sdk
// 1.3.0 does, reading it as 1.3.0's parseLegacyAgentCard does, the 0.3 shape
// served to 0.3 callers (valid 0.3, what 0.3.14's client picks its transport
// from, never an upstream URL, 1.0 interfaces embedded), the 0.3 proto card of
// GetAgentCard, and the lossy security cases.
import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { fromJson } from '@bufbuild/protobuf';
import * as Sdk from '@a2a-js/sdk';
import { isLegacyAgentCard, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from 'a2a-sdk-03/client';
import { AgentCardSchema } from '../../src/gen/a2a_pb.js';
import { AgentCardSchema as AgentCardSchemaV03 } from '../../src/gen/a2a/v1/a2a_pb.js';
import { readJson, writeJson, type Json, type JsonObject } from '../../src/proto/json.js';
import {
  cardFromV03,
  cardFromV03Proto,
  cardToV03,
  cardToV03Proto,
  interfacesOfV03Card,
  isV03Card,
  v03EndpointsOf,
  type V03Endpoints,
} from '../../src/compat/v0_3/card.js';

const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(
  JSON.parse(readFileSync(new URL('../fixtures/a2a-v0.3.schema.json', import.meta.url), 'utf8')) as object,
  'a2a03',
);
const validCard03 = ajv.getSchema('a2a03#/definitions/AgentCard')!;

/** A 0.3 card as an @a2a-js/sdk 0.3.14 agent serves it. */
const card03: JsonObject = {
  protocolVersion: '0.3.0',
  name: 'Echo 0.3',
  description: 'echoes',
  url: 'http://127.0.0.1:41700/a2a/jsonrpc',
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [
    { url: 'http://127.0.0.1:41700/a2a/rest', transport: 'HTTP+JSON' },
    { url: '127.0.0.1:41701', transport: 'GRPC' },
  ],
  provider: { organization: 'Acme', url: 'https://acme.example' },
  version: '1.0.0',
  documentationUrl: 'https://docs.acme.example',
  iconUrl: 'https://acme.example/icon.png',
  capabilities: {
    streaming: true,
    pushNotifications: false,
    stateTransitionHistory: true,
    extensions: [{ uri: 'urn:ext:1', description: 'ext', required: true, params: { a: 1 } }],
  },
  supportsAuthenticatedExtendedCard: true,
  securitySchemes: {
    key: { type: 'apiKey', in: 'header', name: 'X-Key', description: 'api key' },
    bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    oauth: {
      type: 'oauth2',
      flows: {
        clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: { read: 'r' } },
        authorizationCode: {
          authorizationUrl: 'https://auth.example/authorize',
          tokenUrl: 'https://auth.example/token',
          refreshUrl: 'https://auth.example/refresh',
          scopes: { read: 'r', write: 'w' },
        },
      },
    },
    oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://auth.example/.well-known/openid-configuration' },
    mtls: { type: 'mutualTLS', description: 'client certs' },
  },
  security: [{ oauth: ['read'] }, { key: [], mtls: [] }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'application/json'],
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'repeats',
      tags: ['demo'],
      examples: ['hi'],
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
      security: [{ bearer: [] }],
    },
  ],
};

/** The gateway's served 1.0 card: its own interfaces, plus one that must never reach a 0.3 caller. */
const gatewayCard = (extra: Json[] = []): JsonObject => ({
  ...cardFromV03(card03),
  supportedInterfaces: [
    { url: 'https://gw.example/agents/echo', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'https://gw.example/agents/echo/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ...extra,
  ],
});
const endpoints: V03Endpoints = {
  jsonrpc: 'https://gw.example/agents/echo',
  rest: 'https://gw.example/agents/echo/rest',
  grpc: 'gw.example:8443',
  preferred: 'HTTP+JSON',
};

t.test('isV03Card decides as 1.3.0 isLegacyAgentCard does', async (tt) => {
  const samples: unknown[] = [
    card03,
    { name: 'x', url: 'http://a' },
    { name: 'x', url: 'http://a', supportedInterfaces: [] },
    { name: 'x', supportedInterfaces: [{ url: 'http://a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] },
    { ...card03, supportedInterfaces: [{ url: 'http://a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] },
    { name: 'x', supportedInterfaces: [], preferredTransport: 'GRPC' },
    { name: 'x', protocolVersion: '0.3.0' },
    { name: 'x', protocolVersion: '0.2.5' },
    { name: 'x', protocolVersion: '1.0' },
    { name: 'x', protocolVersion: '' },
    { name: 'x', supportsAuthenticatedExtendedCard: false },
    { name: 'x' },
    null,
    'card',
  ];
  for (const s of samples)
    tt.equal(isV03Card(s), isLegacyAgentCard(s as never), JSON.stringify(s)?.slice(0, 80) ?? 'undefined');
});

t.test('interfaces of a 0.3 card', async (tt) => {
  tt.same(interfacesOfV03Card(card03), [
    { url: 'http://127.0.0.1:41700/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    { url: 'http://127.0.0.1:41700/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    { url: '127.0.0.1:41701', protocolBinding: 'GRPC', protocolVersion: '0.3' },
  ]);
  tt.same(
    interfacesOfV03Card({
      url: 'http://a/rpc',
      additionalInterfaces: [
        { url: 'http://a/rpc', transport: 'jsonrpc' },
        { url: 'http://a/rest', transport: 'HTTP+JSON' },
      ],
    }),
    [
      { url: 'http://a/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'http://a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ],
    'preferredTransport defaults to JSONRPC; the main interface listed again counts once',
  );
  tt.same(interfacesOfV03Card({ name: 'no url' }), []);
});

t.test('cardFromV03 reads a 0.3 card as 1.3.0 parseLegacyAgentCard does', async (tt) => {
  const mine = writeJson(AgentCardSchema, readJson(AgentCardSchema, cardFromV03(card03))) as JsonObject;
  const sdk = writeJson(
    AgentCardSchema,
    readJson(AgentCardSchema, Sdk.AgentCard.toJSON(parseLegacyAgentCard(card03 as never)) as Json),
  ) as JsonObject;
  const { supportedInterfaces: mineIfaces, ...mineRest } = mine;
  const { supportedInterfaces: sdkIfaces, ...sdkRest } = sdk;
  tt.same(mineRest, sdkRest, 'every field but the interfaces');
  tt.same(
    (sdkIfaces as JsonObject[]).map((i) => ({ ...i, protocolVersion: '0.3' })),
    mineIfaces,
    'the same interfaces; 1.3.0 copies the card-level "0.3.0" onto the first, this bridge says "0.3" (Major.Minor, spec §3.6)',
  );
  tt.match(mine, {
    capabilities: { streaming: true, extendedAgentCard: true },
    securitySchemes: {
      key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } },
      oauth: { oauth2SecurityScheme: { flows: { authorizationCode: { tokenUrl: 'https://auth.example/token' } } } },
      mtls: { mtlsSecurityScheme: { description: 'client certs' } },
    },
    securityRequirements: [{ schemes: { oauth: { list: ['read'] } } }, { schemes: { key: {}, mtls: {} } }],
    skills: [{ securityRequirements: [{ schemes: { bearer: {} } }] }],
  });
  tt.notOk(
    'clientCredentials' in
      ((((mine.securitySchemes as JsonObject).oauth as JsonObject).oauth2SecurityScheme as JsonObject)
        .flows as JsonObject),
    'several 0.3 flows: the first (authorizationCode) is kept, as 1.3.0 does',
  );
  tt.notOk(JSON.stringify(mine).includes('stateTransitionHistory'));
});

t.test('cardToV03: the 0.3 shape naming only the given endpoints', async (tt) => {
  const upstream = { url: 'http://10.0.0.5:9999/private', protocolBinding: 'JSONRPC', protocolVersion: '1.0' };
  const out = cardToV03(gatewayCard([upstream]), endpoints);
  tt.ok(validCard03(out), ajv.errorsText(validCard03.errors));
  tt.match(out, {
    protocolVersion: '0.3.0',
    url: 'https://gw.example/agents/echo/rest',
    preferredTransport: 'HTTP+JSON',
    additionalInterfaces: [
      { url: 'https://gw.example/agents/echo/rest', transport: 'HTTP+JSON' },
      { url: 'https://gw.example/agents/echo', transport: 'JSONRPC' },
      { url: 'gw.example:8443', transport: 'GRPC' },
    ],
    supportsAuthenticatedExtendedCard: true,
    capabilities: { streaming: true, pushNotifications: false },
    securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' }, oauth: { type: 'oauth2' } },
    security: [{ oauth: ['read'] }, { key: [], mtls: [] }],
    skills: [{ id: 'echo', security: [{ bearer: [] }] }],
  });
  tt.same(out.supportedInterfaces, [
    { url: 'https://gw.example/agents/echo', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'https://gw.example/agents/echo/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url: 'https://gw.example/agents/echo/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    { url: 'https://gw.example/agents/echo', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    { url: 'gw.example:8443', protocolBinding: 'GRPC', protocolVersion: '0.3' },
  ]);
  const text = JSON.stringify(out);
  tt.notOk(text.includes('10.0.0.5'), 'an upstream interface never reaches the 0.3 card');
  tt.notOk(text.includes('127.0.0.1'), 'nor the upstream 0.3 card’s own url/additionalInterfaces');
  tt.notOk('signatures' in out);

  const sdkV1 = Sdk.AgentCard.fromJSON(out);
  tt.notOk(isLegacyAgentCard(out as never), '1.3.0 reads the hybrid card as 1.0 …');
  tt.same(
    sdkV1.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion} ${i.url}`),
    (out.supportedInterfaces as JsonObject[]).map((i) => `${i.protocolBinding} ${i.protocolVersion} ${i.url}`),
    '… with every embedded interface',
  );

  for (const preferred of ['JSONRPC', 'HTTP+JSON'] as const) {
    const client = (await new ClientFactory({
      transports: [new JsonRpcTransportFactory(), new RestTransportFactory()],
    }).createFromAgentCard(cardToV03(gatewayCard(), { ...endpoints, preferred }) as never)) as unknown as {
      transport: { endpoint: string };
    };
    tt.equal(
      client.transport.endpoint.replace(/\/$/, ''),
      preferred === 'JSONRPC' ? endpoints.jsonrpc : endpoints.rest,
      `a 0.3.14 client picks the gateway's ${preferred} endpoint`,
    );
  }
  tt.throws(() => cardToV03(gatewayCard(), { preferred: 'GRPC' }), /at least one endpoint/);
  const onlyGrpc = cardToV03(gatewayCard(), { grpc: 'gw.example:8443', preferred: 'JSONRPC' });
  tt.match(
    onlyGrpc,
    { url: 'gw.example:8443', preferredTransport: 'GRPC' },
    'the preferred binding falls back to a given one',
  );
});

t.test('cardToV03 agrees with 1.3.0 toCompatAgentCard where both speak', async (tt) => {
  const { LegacyJsonRpcTransportHandler } = await import('@a2a-js/sdk/compat/v0_3/server');
  const card1 = {
    ...gatewayCard(),
    supportedInterfaces: [
      { url: 'https://gw.example/agents/echo', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
  };
  const h = new LegacyJsonRpcTransportHandler({
    getAgentCard: async () => Sdk.AgentCard.fromJSON(card1),
    getAuthenticatedExtendedAgentCard: async () => Sdk.AgentCard.fromJSON(card1),
  } as never);
  const sdk = (
    (await h.handle(
      { jsonrpc: '2.0', id: 1, method: 'agent/getAuthenticatedExtendedCard' },
      {} as never,
    )) as unknown as { result: JsonObject }
  ).result;
  const mine = cardToV03(card1, v03EndpointsOf(card1)!);
  const drop = (c: JsonObject): JsonObject => {
    const { protocolVersion: _p, additionalInterfaces: _a, supportedInterfaces: _s, signatures: _g, ...rest } = c;
    return rest;
  };
  tt.same(
    drop(mine),
    drop(sdk),
    'all but protocolVersion ("0.3.0" vs the interface’s "0.3"), additionalInterfaces (this bridge lists the main one too) and the embedded interfaces',
  );
});

t.test('lossy security toward 0.3', async (tt) => {
  const card1 = readJson(AgentCardSchema, {
    ...gatewayCard(),
    securitySchemes: {
      device: {
        oauth2SecurityScheme: {
          flows: { deviceCode: { deviceAuthorizationUrl: 'https://a/d', tokenUrl: 'https://a/t', scopes: {} } },
        },
      },
      pkce: {
        oauth2SecurityScheme: {
          flows: {
            authorizationCode: {
              authorizationUrl: 'https://a/a',
              tokenUrl: 'https://a/t',
              scopes: {},
              pkceRequired: true,
            },
          },
        },
      },
      body: { apiKeySecurityScheme: { location: 'body', name: 'k' } },
    },
  });
  const out = cardToV03(writeJson(AgentCardSchema, card1) as JsonObject, endpoints);
  tt.same((out.securitySchemes as JsonObject).device, { type: 'oauth2', flows: {} }, 'deviceCode has no 0.3 form');
  tt.same(((out.securitySchemes as JsonObject).pkce as JsonObject).flows, {
    authorizationCode: { authorizationUrl: 'https://a/a', tokenUrl: 'https://a/t', scopes: {} },
  });
  tt.same(
    (out.securitySchemes as JsonObject).body,
    { type: 'apiKey', name: 'k', in: 'header' },
    'a location 0.3 lacks is "header"',
  );
});

t.test('the 0.3 proto card (GetAgentCard over REST/gRPC)', async (tt) => {
  const chunkDir = join('node_modules', 'a2a-sdk-03', 'dist');
  const chunk = readdirSync(chunkDir).find(
    (f) => f.startsWith('chunk-') && readFileSync(join(chunkDir, f), 'utf8').includes('var FromProto = class'),
  )!;
  const V03 = (await import(join(process.cwd(), chunkDir, chunk))) as {
    AgentCard: { fromJSON(o: unknown): unknown; toJSON(o: unknown): unknown };
    FromProto: { agentCard(o: unknown): JsonObject };
    ToProto: { agentCard(o: unknown): unknown };
  };
  const proto = cardToV03Proto(gatewayCard(), endpoints);
  tt.doesNotThrow(() => fromJson(AgentCardSchemaV03, proto), 'valid for a strict 0.3 proto reader (no unknown fields)');
  tt.notOk('supportedInterfaces' in proto || 'iconUrl' in proto);
  tt.match(proto, {
    url: endpoints.rest,
    preferredTransport: 'HTTP+JSON',
    securitySchemes: { key: { apiKeySecurityScheme: { location: 'header' } } },
    security: [{ schemes: { oauth: { list: ['read'] } } }],
  });
  const rpc = V03.FromProto.agentCard(V03.AgentCard.fromJSON(proto));
  tt.match(
    rpc,
    {
      url: endpoints.rest,
      securitySchemes: { key: { type: 'apiKey', in: 'header' } },
      security: [{ oauth: ['read'] }],
    },
    'a 0.3.14 REST/gRPC client reads it',
  );

  // one OAuth flow (0.3.14's ToProto keeps implicit > password > clientCredentials > authorizationCode)
  // and no false booleans (proto3 drops them)
  const schemes = card03.securitySchemes as JsonObject;
  const single: JsonObject = {
    ...card03,
    capabilities: { ...(card03.capabilities as JsonObject), pushNotifications: true },
    securitySchemes: {
      ...schemes,
      oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://a/t', scopes: {} } } },
    },
  };
  const fromSdk = V03.AgentCard.toJSON(V03.ToProto.agentCard(single));
  const a = writeJson(AgentCardSchema, readJson(AgentCardSchema, cardFromV03Proto(fromSdk)));
  const { iconUrl: _i, ...b } = writeJson(
    AgentCardSchema,
    readJson(AgentCardSchema, cardFromV03(single)),
  ) as JsonObject;
  tt.same(a, b, 'a 0.3.14 agent’s proto card reads as its JSON card does (the proto has no iconUrl)');
});

t.test('v03EndpointsOf: the 0.x interface per binding first', async (tt) => {
  tt.same(
    v03EndpointsOf({
      supportedInterfaces: [
        { url: 'https://gw/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url: 'https://gw/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://gw/rpc03', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
    }),
    { jsonrpc: 'https://gw/rpc03', rest: 'https://gw/rest', preferred: 'HTTP+JSON' },
  );
  tt.equal(v03EndpointsOf({ name: 'none' }), undefined);
});
