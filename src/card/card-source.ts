// Where a route's upstream card comes from and how it is keyed (card-store.ts
// keeps the cards): the file or URL, the TLS it is fetched over, the entry key
// that holds what decides to trust a fetched card (so a reload that changes it
// starts afresh), how long an answer stays fresh (Cache-Control, §8.6), and
// what is accepted as the upstream's card: a JSON object that reads as an
// AgentCard (§8.2; a 0.3 card read as a 1.0 one first, bridge §1–2).
import { createHash } from 'node:crypto';
import { cardFromV03, interfacesOfV03Card, isV03Card } from '../compat/v0_3/card.js';
import type { RouteConfig, UpstreamTls } from '../config/types.js';
import { AgentCardSchema } from '../gen/a2a_pb.js';
import { isObject, readJson, type JsonObject } from '../proto/json.js';
import { tlsKey } from '../tls/upstream-tls.js';
import { cardSourceUrl } from './upstream-card.js';

const DEFAULT_FRESH_MS = 300_000;

export function maxAgeMs(cacheControl: string | undefined): number {
  const cc = (cacheControl ?? '').toLowerCase();
  if (/no-cache|no-store/.test(cc)) return 0;
  const m = /max-age=(\d+)/.exec(cc);
  return m ? Number(m[1]) * 1000 : DEFAULT_FRESH_MS;
}

/**
 * A 0.3 card (no `supportedInterfaces`; `url`, `preferredTransport`,
 * `additionalInterfaces`) read as a 1.0 one whose interfaces say 0.3 (bridge
 * §1–2); a card that lists `supportedInterfaces` is already one.
 */
export function asV1Card(card: JsonObject): JsonObject {
  if (!isV03Card(card)) return card;
  return { ...cardFromV03(card), supportedInterfaces: interfacesOfV03Card(card) };
}

/** The upstream's card as it came, when it is a JSON object (its signatures are verified on this form); else throws. */
export function cardObject(json: unknown): JsonObject {
  if (isObject(json)) return json;
  const kind = json === null ? 'null' : Array.isArray(json) ? 'an array' : `a ${typeof json}`;
  throw new Error(`the agent card is ${kind}, not a JSON object`);
}

/**
 * The card the store accepts: the upstream's as a 1.0 card (asV1Card) that reads as an AgentCard, every field of its
 * type (readJson; unknown fields are kept and ignored, §5.7), top-level nulls (ProtoJSON: absent) left out; throws
 * naming the first field that does not.
 */
export function acceptedCard(card: JsonObject): JsonObject {
  const v1 = asV1Card(card);
  try {
    readJson(AgentCardSchema, v1, '(card)');
  } catch (e) {
    throw new Error(`the agent card is no AgentCard: ${(e as Error).message}`, { cause: e });
  }
  const nulls = Object.keys(v1).filter((k) => v1[k] === null);
  if (nulls.length === 0) return v1;
  const out = { ...v1 };
  for (const k of nulls) delete out[k];
  return out;
}

interface Source {
  /** The file or URL ("" when the route has none). */
  source: string;
  /**
   * The entry's key: endpoints of a route with one card source (a configured file or URL) share one entry. It holds
   * what decides to trust a fetched card (verifyJwksFile, the TLS): a reload that changes those starts afresh.
   */
  key: string;
}

/** The TLS a card is fetched over: the upstream's for a card it serves itself (not for a card.url elsewhere). */
export const cardTls = (route: RouteConfig): UpstreamTls | undefined =>
  route.card.url ? undefined : route.upstream.tls;

/** Computed once per route configuration (a config generation's routes never change), not per call. */
const sources = new WeakMap<RouteConfig, Source>();

function sourceInfo(route: RouteConfig): Source {
  let s = sources.get(route);
  if (!s) {
    const source = route.card.file ?? cardSourceUrl(route) ?? '';
    const trust = route.card.file ? '' : JSON.stringify([route.card.verifyJwksFile ?? null, tlsKey(cardTls(route))]);
    s = { source, key: `${route.name}\u0000${source}\u0000${trust}` };
    sources.set(route, s);
  }
  return s;
}

export const sourceOf = (route: RouteConfig): string => sourceInfo(route).source;

/**
 * The parts of a route's last good card's key in Redis (state.redis): its name and source, and when the card is
 * fetched over TLS settings of the route's own, a digest of them — a card fetched over other TLS settings (a reload
 * that changed them, a replica configured otherwise) is not this route's last good card.
 */
export function sharedCardKey(route: RouteConfig): string[] {
  const tls = cardTls(route);
  const parts = ['card', route.name, sourceOf(route)];
  if (tls) parts.push(createHash('sha256').update(tlsKey(tls)).digest('base64url').slice(0, 16));
  return parts;
}
export const keyOf = (route: RouteConfig): string => sourceInfo(route).key;
