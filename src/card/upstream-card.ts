// Where a route's upstream Agent Card comes from (spec §8.2): a configured
// file or URL, the agent's well-known URI for HTTP upstreams and `auto`, or a
// minimal card for a gRPC upstream that publishes none. Fetched once and
// cached; `auto` routes pick their binding from it (§8.3.2).
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import type { Binding, RouteConfig } from '../config/types.js';
import { BINDINGS } from '../config/types.js';
import type { JsonObject } from '../proto/protojson.js';

export const WELL_KNOWN_CARD = '/.well-known/agent-card.json';

export interface ResolvedUpstream {
  binding: Binding;
  url: string;
  /** Tenant named by the chosen card interface ("" when none). */
  tenant: string;
}

function cardUrlOf(route: RouteConfig): string | undefined {
  if (route.card?.url) return route.card.url;
  const { url, binding } = route.upstream;
  if (binding === 'GRPC') return undefined;
  if (url.endsWith('.json')) return url;
  return binding === 'auto' ? `${url.replace(/\/+$/, '')}${WELL_KNOWN_CARD}` : `${new URL(url).origin}${WELL_KNOWN_CARD}`;
}

/** The card served for an upstream that publishes none (a gRPC agent without `card:`). */
export function minimalCard(route: RouteConfig): JsonObject {
  return {
    name: route.name,
    description: `A2A agent served through a2a-gateway route "${route.name}"`,
    version: '1.0.0',
    supportedInterfaces: [],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

/** The upstream's own card, or undefined when it has no source to read it from. */
export async function fetchUpstreamCard(route: RouteConfig): Promise<JsonObject | undefined> {
  if (route.card?.file) return JSON.parse(readFileSync(route.card.file, 'utf8')) as JsonObject;
  const url = cardUrlOf(route);
  if (!url) return undefined;
  const res = await request(url, { headers: { accept: 'application/json' }, headersTimeout: route.timeoutMs, bodyTimeout: route.timeoutMs });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`agent card at ${url} answered HTTP ${res.statusCode}`);
  return JSON.parse(text) as JsonObject;
}

/** §8.3.2: the first interface whose binding and major version the gateway speaks. */
export function chooseInterface(card: JsonObject): ResolvedUpstream | undefined {
  const list = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [];
  for (const i of list) {
    if (!i || typeof i !== 'object' || Array.isArray(i)) continue;
    const binding = i.protocolBinding as Binding;
    const version = String(i.protocolVersion ?? '');
    if (BINDINGS.includes(binding) && /^1(\.|$)/.test(version) && typeof i.url === 'string') {
      return { binding, url: i.url, tenant: typeof i.tenant === 'string' ? i.tenant : '' };
    }
  }
  return undefined;
}
