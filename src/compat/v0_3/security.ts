// Agent-card security in 0.3's JSON-RPC dialect ⇄ 1.0 ProtoJSON
// (bridge-0.3-1.0.md §2; WN §AgentCard Object, §OAuth 2.0 Security Updates):
// - securitySchemes discriminated by `type` (apiKey{in,name}, http, oauth2{flows},
//   openIdConnect, mutualTLS) ⇄ the oneof members apiKeySecurityScheme{location,name},
//   httpAuthSecurityScheme, oauth2SecurityScheme, openIdConnectSecurityScheme, mtlsSecurityScheme;
// - security `[{scheme: [scopes]}]` ⇄ securityRequirements `[{schemes: {scheme: {list: [scopes]}}}]`.
// Lossy, as @a2a-js/sdk 1.3.0 does: 0.3 may list several OAuth flows, 1.0 holds
// exactly one (the first of authorizationCode, clientCredentials, implicit,
// password is kept); 1.0's deviceCode flow and pkceRequired have no 0.3 form;
// an apiKey location other than query/cookie is "header" in 0.3. A scheme of
// an unknown type is left out (a card is read tolerantly, not rejected).
import { compact, isObject, nonEmpty, type Json, type JsonObject } from './common.js';

const str = (v: Json | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const scopes = (v: Json | undefined): JsonObject => (isObject(v) ? v : {});

/** 0.3 OAuth flows, in the order the first present one is kept. */
const FLOW_ORDER = ['authorizationCode', 'clientCredentials', 'implicit', 'password'] as const;
const FLOW_FIELDS: ReadonlyMap<string, readonly string[]> = new Map([
  ['authorizationCode', ['authorizationUrl', 'tokenUrl', 'refreshUrl']],
  ['clientCredentials', ['tokenUrl', 'refreshUrl']],
  ['implicit', ['authorizationUrl', 'refreshUrl']],
  ['password', ['tokenUrl', 'refreshUrl']],
]);

function flowCopy(kind: string, f: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of FLOW_FIELDS.get(kind) ?? []) {
    const v = nonEmpty(f[k]);
    if (v !== undefined) out[k] = v;
  }
  out.scopes = scopes(f.scopes);
  return out;
}

/** The one flow a scheme keeps: 1.0 holds exactly one, 0.3 may list several (1.0's deviceCode has no 0.3 form). */
function oneFlow(flows: Json | undefined): JsonObject {
  if (!isObject(flows)) return {};
  for (const kind of FLOW_ORDER) {
    const f = flows[kind];
    if (isObject(f)) return { [kind]: flowCopy(kind, f) };
  }
  return {};
}

function schemeToV1(s: JsonObject): JsonObject | undefined {
  const description = nonEmpty(s.description);
  switch (s.type) {
    case 'apiKey':
      return { apiKeySecurityScheme: compact({ description, location: str(s.in), name: str(s.name) }) };
    case 'http':
      return {
        httpAuthSecurityScheme: compact({ description, scheme: str(s.scheme), bearerFormat: nonEmpty(s.bearerFormat) }),
      };
    case 'oauth2':
      return {
        oauth2SecurityScheme: compact({
          description,
          flows: oneFlow(s.flows),
          oauth2MetadataUrl: nonEmpty(s.oauth2MetadataUrl),
        }),
      };
    case 'openIdConnect':
      return { openIdConnectSecurityScheme: compact({ description, openIdConnectUrl: str(s.openIdConnectUrl) }) };
    case 'mutualTLS':
      return { mtlsSecurityScheme: compact({ description }) };
    default:
      return undefined;
  }
}

function schemeToV03(s: JsonObject): JsonObject | undefined {
  const [member, value] = Object.entries(s).find(([, v]) => isObject(v)) ?? [];
  if (!member || !isObject(value)) return undefined;
  const description = nonEmpty(value.description);
  switch (member) {
    case 'apiKeySecurityScheme':
      return compact({
        type: 'apiKey',
        name: str(value.name) ?? '',
        in: value.location === 'query' || value.location === 'cookie' ? value.location : 'header',
        description,
      });
    case 'httpAuthSecurityScheme':
      return compact({
        type: 'http',
        scheme: str(value.scheme) ?? '',
        bearerFormat: nonEmpty(value.bearerFormat),
        description,
      });
    case 'oauth2SecurityScheme':
      return compact({
        type: 'oauth2',
        flows: oneFlow(value.flows),
        oauth2MetadataUrl: nonEmpty(value.oauth2MetadataUrl),
        description,
      });
    case 'openIdConnectSecurityScheme':
      return compact({ type: 'openIdConnect', openIdConnectUrl: str(value.openIdConnectUrl) ?? '', description });
    case 'mtlsSecurityScheme':
      return compact({ type: 'mutualTLS', description });
    default:
      return undefined;
  }
}

/** 0.3 `securitySchemes` (by `type`) → 1.0 `securitySchemes` (oneof members); unknown types left out. */
export function securitySchemesToV1(v: Json | undefined): JsonObject | undefined {
  if (!isObject(v)) return undefined;
  const out = Object.entries(v).flatMap(([k, s]) => {
    const v1 = isObject(s) ? schemeToV1(s) : undefined;
    return v1 ? [[k, v1] as const] : [];
  });
  return out.length > 0 ? Object.fromEntries(out) : undefined;
}

export function securitySchemesToV03(v: Json | undefined): JsonObject | undefined {
  if (!isObject(v)) return undefined;
  const out = Object.entries(v).flatMap(([k, s]) => {
    const v03 = isObject(s) ? schemeToV03(s) : undefined;
    return v03 ? [[k, v03] as const] : [];
  });
  return out.length > 0 ? Object.fromEntries(out) : undefined;
}

/** 0.3 `security: [{scheme: [scopes]}]` → 1.0 `securityRequirements: [{schemes: {scheme: {list}}}]`. */
export function requirementsToV1(v: Json | undefined): JsonObject[] | undefined {
  if (!Array.isArray(v) || v.length === 0) return undefined;
  return v.filter(isObject).map((r) => ({
    schemes: Object.fromEntries(
      Object.entries(r).map(([k, list]) => [
        k,
        { list: Array.isArray(list) ? list.filter((s) => typeof s === 'string') : [] },
      ]),
    ),
  }));
}

export function requirementsToV03(v: Json | undefined): JsonObject[] | undefined {
  if (!Array.isArray(v) || v.length === 0) return undefined;
  return v
    .filter(isObject)
    .map((r) =>
      Object.fromEntries(
        Object.entries(isObject(r.schemes) ? r.schemes : {}).map(([k, l]) => [
          k,
          isObject(l) && Array.isArray(l.list) ? l.list : [],
        ]),
      ),
    );
}
