// Agent cards across A2A 0.3 and 1.0 (bridge-0.3-1.0.md §1 upstream card, §2
// Agent Card; WN §Get Agent Card, §AgentCard Object, §AgentCapabilities):
// - recognising a 0.3 card (@a2a-js/sdk 1.3.0's isLegacyAgentCard rule) and
//   deriving 1.0 interfaces from url + preferredTransport + additionalInterfaces;
// - a 0.3 card (JSON-RPC dialect, the /.well-known form, or the 0.3 proto's
//   ProtoJSON of GetAgentCard) → a 1.0 card: supportsAuthenticatedExtendedCard
//   → capabilities.extendedAgentCard, security → securityRequirements,
//   securitySchemes by `type` → oneof members; stateTransitionHistory dropped;
// - a 1.0 card → the 0.3 shape for 0.3 callers, pointing only at the endpoints
//   it is given (never the upstream's url/preferredTransport/additionalInterfaces),
//   protocolVersion "0.3.0", with the 1.0 supportedInterfaces kept embedded
//   (as 1.3.0's embedV1Interfaces does) — only entries on a host:port of a
//   given endpoint — plus a protocolVersion "0.3" entry per given endpoint
//   (spec §3.6.2: several interfaces per transport with different versions).
//   Signatures are dropped (they sign the other shape).
import { fromJson, toJson } from '@bufbuild/protobuf';
import { AgentCardSchema as AgentCardSchemaV03 } from '../../gen/a2a/v1/a2a_pb.js';
import { compact, isObject, nonEmpty, nonEmptyList, type Json, type JsonObject } from './common.js';
import { requirementsToV03, requirementsToV1, securitySchemesToV03, securitySchemesToV1 } from './security.js';

export type V03Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

/** The endpoints a 0.3 card may name: the gateway's own (REST: the base URL, without /v1; gRPC: host:port). */
export interface V03Endpoints {
  jsonrpc?: string;
  rest?: string;
  grpc?: string;
  preferred: V03Binding;
}

/** A 1.0 AgentInterface (ProtoJSON; a plain JSON object). */
export type CardInterface = { url: string; protocolBinding: string; protocolVersion: string };

const str = (v: Json | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const strings = (v: Json | undefined): string[] => (Array.isArray(v) ? v.filter((s) => typeof s === 'string') : []);
const LEGACY_ONLY = ['preferredTransport', 'additionalInterfaces', 'supportsAuthenticatedExtendedCard'];

/** "" or a version in [0.3, 1.0) (a2a-js isLegacyVersion). */
function isLegacyVersion(v: string): boolean {
  if (v.trim() === '') return true;
  const m = /^\s*(\d+)(?:\.(\d+))?/.exec(v);
  if (!m) return false;
  const major = Number(m[1]);
  const minor = Number(m[2] ?? 0);
  return major === 0 && minor >= 3;
}

/** A 0.3 card: no non-empty supportedInterfaces, and a 0.3 field or a 0.x protocolVersion. */
export function isV03Card(json: unknown): boolean {
  if (!isObject(json)) return false;
  if (Array.isArray(json.supportedInterfaces) && json.supportedInterfaces.length > 0) return false;
  if (typeof json.url === 'string' && !('supportedInterfaces' in json)) return true;
  if (LEGACY_ONLY.some((f) => f in json)) return true;
  return typeof json.protocolVersion === 'string' && isLegacyVersion(json.protocolVersion);
}

function binding(t: string): string {
  const up = t.toUpperCase();
  return up === 'JSONRPC' || up === 'GRPC' || up === 'HTTP+JSON' ? up : t;
}

/** The interfaces a 0.3 card declares, as 1.0 AgentInterface JSON with protocolVersion "0.3" (duplicates once). */
export function interfacesOfV03Card(json: unknown): CardInterface[] {
  const card = isObject(json) ? json : {};
  const out: CardInterface[] = [];
  const add = (url: string | undefined, transport: string | undefined): void => {
    if (!url) return;
    const protocolBinding = binding(transport || 'JSONRPC');
    if (!out.some((i) => i.url === url && i.protocolBinding === protocolBinding)) {
      out.push({ url, protocolBinding, protocolVersion: '0.3' });
    }
  };
  add(str(card.url), str(card.preferredTransport));
  for (const i of Array.isArray(card.additionalInterfaces) ? card.additionalInterfaces : []) {
    if (isObject(i)) add(str(i.url), str(i.transport));
  }
  return out;
}

function extensionToV1(e: JsonObject): JsonObject {
  return compact({
    uri: str(e.uri),
    description: nonEmpty(e.description),
    required: e.required === true ? true : undefined,
    params: isObject(e.params) ? e.params : undefined,
  });
}

function extensionToV03(e: JsonObject): JsonObject {
  return compact({
    uri: str(e.uri) ?? '',
    description: nonEmpty(e.description),
    required: e.required === true,
    params: isObject(e.params) ? e.params : undefined,
  });
}

/** Requirements already in the {schemes: {…}} shape (1.0 and the 0.3 proto). */
function asIs(v: Json | undefined): JsonObject[] | undefined {
  return nonEmptyList(Array.isArray(v) ? v.filter(isObject) : []);
}

function skillsOf(
  v: Json | undefined,
  securityKey: string,
  convert: (r: Json | undefined) => Json[] | undefined,
): JsonObject[] {
  return (Array.isArray(v) ? v.filter(isObject) : []).map((s) =>
    compact({
      id: str(s.id) ?? '',
      name: str(s.name) ?? '',
      description: str(s.description) ?? '',
      tags: strings(s.tags),
      examples: nonEmptyList(strings(s.examples)),
      inputModes: nonEmptyList(strings(s.inputModes)),
      outputModes: nonEmptyList(strings(s.outputModes)),
      [securityKey]: convert(s.security ?? s.securityRequirements),
    }),
  );
}

function commonToV1(card: JsonObject, interfaces: CardInterface[]): JsonObject {
  const caps = isObject(card.capabilities) ? card.capabilities : {};
  const provider = isObject(card.provider) ? card.provider : undefined;
  return compact({
    name: str(card.name) ?? '',
    description: str(card.description) ?? '',
    supportedInterfaces: interfaces,
    provider: provider ? compact({ url: str(provider.url), organization: str(provider.organization) }) : undefined,
    version: str(card.version) ?? '',
    documentationUrl: nonEmpty(card.documentationUrl),
    iconUrl: nonEmpty(card.iconUrl),
    capabilities: compact({
      streaming: typeof caps.streaming === 'boolean' ? caps.streaming : undefined,
      pushNotifications: typeof caps.pushNotifications === 'boolean' ? caps.pushNotifications : undefined,
      extensions: nonEmptyList(
        (Array.isArray(caps.extensions) ? caps.extensions.filter(isObject) : []).map(extensionToV1),
      ),
      extendedAgentCard:
        typeof card.supportsAuthenticatedExtendedCard === 'boolean'
          ? card.supportsAuthenticatedExtendedCard
          : undefined,
    }),
    defaultInputModes: strings(card.defaultInputModes),
    defaultOutputModes: strings(card.defaultOutputModes),
  });
}

/** A 0.3 card (JSON-RPC dialect / well-known form) → 1.0 AgentCard ProtoJSON. */
export function cardFromV03(json: unknown): JsonObject {
  const card = isObject(json) ? json : {};
  return compact({
    ...commonToV1(card, interfacesOfV03Card(card)),
    securitySchemes: securitySchemesToV1(card.securitySchemes),
    securityRequirements: requirementsToV1(card.security),
    skills: skillsOf(card.skills, 'securityRequirements', requirementsToV1),
  });
}

/** A 0.3 proto AgentCard (ProtoJSON of GetAgentCard over REST/gRPC) → 1.0 AgentCard ProtoJSON. */
export function cardFromV03Proto(json: unknown): JsonObject {
  const card = isObject(json) ? json : {};
  return compact({
    ...commonToV1(card, interfacesOfV03Card(card)),
    // the 0.3 proto already spells schemes as oneof members and requirements as {schemes}
    securitySchemes: isObject(card.securitySchemes) ? card.securitySchemes : undefined,
    securityRequirements: asIs(card.security),
    skills: skillsOf(card.skills, 'securityRequirements', asIs),
  });
}

// --- 1.0 → 0.3 ---------------------------------------------------------------

const DEFAULT_PORT: ReadonlyMap<string, string> = new Map([
  ['http:', '80'],
  ['https:', '443'],
]);

/** "host:port" of a URL or of a bare gRPC "host:port" target; undefined when unreadable. */
function hostPort(u: string): string | undefined {
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(u) ? u : `grpc://${u}`);
    return `${url.hostname.toLowerCase()}:${url.port || DEFAULT_PORT.get(url.protocol) || ''}`;
  } catch {
    return undefined;
  }
}

function endpointList(e: V03Endpoints): Array<{ transport: V03Binding; url: string }> {
  const all: Array<[V03Binding, string | undefined]> = [
    ['JSONRPC', e.jsonrpc],
    ['HTTP+JSON', e.rest],
    ['GRPC', e.grpc],
  ];
  const list = all.filter((x): x is [V03Binding, string] => !!x[1]).map(([transport, url]) => ({ transport, url }));
  const i = list.findIndex((x) => x.transport === e.preferred);
  if (i > 0) list.unshift(...list.splice(i, 1));
  if (list.length === 0) throw new Error('a 0.3 card needs at least one endpoint');
  return list;
}

/** The embedded supportedInterfaces: the card's own entries on an endpoint's host:port, plus a 0.3 entry per endpoint. */
function embeddedInterfaces(card1: JsonObject, list: Array<{ transport: V03Binding; url: string }>): JsonObject[] {
  const hosts = new Set(list.map((x) => hostPort(x.url)).filter((h): h is string => h !== undefined));
  const own = (Array.isArray(card1.supportedInterfaces) ? card1.supportedInterfaces : [])
    .filter(isObject)
    .filter((i) => typeof i.url === 'string' && hosts.has(hostPort(i.url) ?? ''));
  const legacy = list
    .filter(
      (x) =>
        !own.some(
          (i) => i.url === x.url && i.protocolBinding === x.transport && isLegacyVersion(str(i.protocolVersion) ?? ''),
        ),
    )
    .map((x) => ({ url: x.url, protocolBinding: x.transport, protocolVersion: '0.3' }));
  return [...own, ...legacy];
}

/** A 1.0 card → the 0.3 card (JSON-RPC dialect / well-known form) naming only `endpoints`. */
export function cardToV03(card1: JsonObject, endpoints: V03Endpoints): JsonObject {
  const list = endpointList(endpoints);
  const caps = isObject(card1.capabilities) ? card1.capabilities : {};
  const provider = isObject(card1.provider) ? card1.provider : undefined;
  return compact({
    protocolVersion: '0.3.0',
    name: str(card1.name) ?? '',
    description: str(card1.description) ?? '',
    version: str(card1.version) ?? '',
    url: list[0]!.url,
    preferredTransport: list[0]!.transport,
    additionalInterfaces: list.map((x) => ({ url: x.url, transport: x.transport })),
    provider: provider ? { url: str(provider.url) ?? '', organization: str(provider.organization) ?? '' } : undefined,
    documentationUrl: nonEmpty(card1.documentationUrl),
    iconUrl: nonEmpty(card1.iconUrl),
    capabilities: compact({
      streaming: typeof caps.streaming === 'boolean' ? caps.streaming : undefined,
      pushNotifications: typeof caps.pushNotifications === 'boolean' ? caps.pushNotifications : undefined,
      extensions: nonEmptyList(
        (Array.isArray(caps.extensions) ? caps.extensions.filter(isObject) : []).map(extensionToV03),
      ),
    }),
    supportsAuthenticatedExtendedCard: typeof caps.extendedAgentCard === 'boolean' ? caps.extendedAgentCard : undefined,
    securitySchemes: securitySchemesToV03(card1.securitySchemes),
    security: requirementsToV03(card1.securityRequirements),
    defaultInputModes: strings(card1.defaultInputModes),
    defaultOutputModes: strings(card1.defaultOutputModes),
    skills: skillsOf(card1.skills, 'security', requirementsToV03),
    supportedInterfaces: embeddedInterfaces(card1, list),
  });
}

/** A 1.0 card → the 0.3 proto AgentCard ProtoJSON (GetAgentCard over REST/gRPC), no field the 0.3 proto lacks. */
export function cardToV03Proto(card1: JsonObject, endpoints: V03Endpoints): JsonObject {
  const {
    supportedInterfaces: _embedded,
    securitySchemes: _s,
    security: _r,
    skills: _k,
    ...rest
  } = cardToV03(card1, endpoints);
  // the 0.3 proto spells schemes as oneof members and requirements as {schemes}, as 1.0 does
  const proto = compact({
    ...rest,
    securitySchemes: isObject(card1.securitySchemes) ? card1.securitySchemes : undefined,
    security: asIs(card1.securityRequirements),
    skills: skillsOf(card1.skills, 'security', asIs),
  });
  // through the 0.3 schema: drops what it lacks (iconUrl, deviceCode, pkceRequired) so strict readers accept it
  const msg = fromJson(AgentCardSchemaV03, proto, { ignoreUnknownFields: true });
  return toJson(AgentCardSchemaV03, msg) as JsonObject;
}

/** The 0.3 endpoints a 1.0 card itself names (a 0.x entry per binding first, else its first entry). */
export function v03EndpointsOf(card1: JsonObject): V03Endpoints | undefined {
  const ifaces = (Array.isArray(card1.supportedInterfaces) ? card1.supportedInterfaces : []).filter(isObject);
  const pick = (b: V03Binding): string | undefined => {
    const of = ifaces.filter((i) => binding(str(i.protocolBinding) ?? '') === b && typeof i.url === 'string');
    return str((of.find((i) => isLegacyVersion(str(i.protocolVersion) ?? '')) ?? of[0])?.url);
  };
  const e = { jsonrpc: pick('JSONRPC'), rest: pick('HTTP+JSON'), grpc: pick('GRPC') };
  const first = binding(str(ifaces[0]?.protocolBinding) ?? '') as V03Binding;
  const preferred = (['JSONRPC', 'HTTP+JSON', 'GRPC'] as const).includes(first) ? first : 'JSONRPC';
  return e.jsonrpc || e.rest || e.grpc ? { ...compactEndpoints(e), preferred } : undefined;
}

function compactEndpoints(e: Partial<Record<'jsonrpc' | 'rest' | 'grpc', string>>): Omit<V03Endpoints, 'preferred'> {
  return Object.fromEntries(Object.entries(e).filter(([, v]) => v)) as Omit<V03Endpoints, 'preferred'>;
}
