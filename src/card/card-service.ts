// Cards for the rest of the gateway: the upstream's card (CardStore), the
// interfaces an `auto` route may call, the card served for a route to a given
// request (rewritten, re-signed — served as the normal form that was signed,
// §8.4.1 — or with signatures dropped, with a strong ETag and Last-Modified
// for §8.6 caching; a card naming a request host the operator did not vouch
// for is never signed, but refused), the extended card rewritten the same way,
// and each route's readiness. Served cards are kept across a reload: one whose
// unsigned content, signing header and key come out the same is served as it
// was (same bytes, ETag, Last-Modified; not signed again); one that changed
// gets the generation's start as Last-Modified unless the upstream's card
// changed later. Signing keys are read once per configuration generation.
import { createHash } from 'node:crypto';
import type { BlockList } from 'node:net';
import type { Logger } from 'pino';
import type { RouteConfig } from '../config/types.js';
import { A2AError } from '../errors/a2a-error.js';
import { withoutAddresses } from '../errors/addresses.js';
import { AgentCardSchema, type AgentCard } from '../gen/a2a_pb.js';
import type { RequestView } from '../http/request.js';
import { readJson, writeJson, type JsonObject } from '../proto/json.js';
import type { CardStore } from './card-store.js';
import { cardVaries, publicAddresses, type GatewayAddresses, type PublicAddresses } from './public-address.js';
import { selfCheck } from './self-address.js';
import { cardToV03 } from '../compat/v0_3/card.js';
import { bindingOrder, rewriteCard, wantsV03Card } from './served-card.js';
import { normalizedCard, protectedHeader, signCard, SigningKeys, type LoadedKey } from './signing.js';
import { chooseInterfaces, minimalCard, type ResolvedUpstream } from './upstream-card.js';
import { endpointRoutes } from '../upstream/endpoints.js';

export interface ServedCard {
  body: string;
  etag: string;
  lastModified: Date;
  maxAgeSeconds: number;
}

/** A card that cannot be read: its URL and the socket error go to the log, not to the caller. */
function cardUnavailable(e: unknown): A2AError {
  const text = (e as Error).message;
  return A2AError.of('UPSTREAM_UNAVAILABLE', `cannot read the upstream's agent card: ${withoutAddresses(text)}`, {
    internal: text,
  });
}

/**
 * Served cards kept at most: the key holds the caller's Host (the card names it), so without a bound any caller could
 * grow the cache with Host values; past it the oldest entry goes (Map order is insertion order).
 */
export const SERVED_CARDS_KEPT = 256;

/** A served card as kept: what it was built from and for (generation), and what it is made of (fingerprint). */
interface Kept {
  route: RouteConfig;
  source: JsonObject;
  generation: number;
  fingerprint: string;
  card: ServedCard;
}

export class CardService {
  private readonly served = new Map<string, Kept>();
  private readonly warned = new Set<string>();
  private readonly keys = new SigningKeys();
  /** The card served for a route without a card source: one per route object (configuration generation). */
  private readonly minimal = new WeakMap<RouteConfig, JsonObject>();
  private generation = 0;
  private generationStart = Date.now();

  constructor(
    readonly store: CardStore,
    private readonly addresses: () => GatewayAddresses,
    private readonly trusted: BlockList,
    private readonly log: Logger,
  ) {}

  /**
   * After a reload: served cards are rebuilt from the new route settings (the ones kept are compared with, not
   * served), and signing keys are read again.
   */
  reset(): void {
    this.generation++;
    this.generationStart = Date.now();
    this.keys.clear();
  }

  /** How many served cards are kept now (at most SERVED_CARDS_KEPT). */
  get servedKept(): number {
    return this.served.size;
  }

  upstreamCard(route: RouteConfig): Promise<JsonObject | undefined> {
    return this.store.get(this.primary(route));
  }

  /** The upstream's card if it is loaded (no wait): null when the route has none, undefined when not loaded yet. */
  cachedUpstreamCard(route: RouteConfig): JsonObject | null | undefined {
    return this.store.peek(this.primary(route));
  }

  /**
   * Whose card stands for a route with several endpoints (replicas of one
   * agent): the first endpoint whose card is loaded, else the first one.
   */
  private primary(route: RouteConfig): RouteConfig {
    const list = endpointRoutes(route);
    if (list.length === 1) return route;
    return list.find((r) => this.store.status(r).ready) ?? list[0]!;
  }

  private warnOnce(key: string, msg: string, extra: Record<string, unknown>): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.log.warn(extra, msg);
  }

  /** An `auto` route's usable interfaces, in the card's order. */
  async interfaces(route: RouteConfig): Promise<ResolvedUpstream[]> {
    let card: JsonObject | undefined;
    try {
      card = await this.store.get(route);
    } catch (e) {
      throw cardUnavailable(e);
    }
    const choice = chooseInterfaces(card ?? {}, route, selfCheck(this.addresses(), route));
    if (choice.skipped.length > 0)
      this.warnOnce(`skip ${route.name}`, 'upstream card interfaces passed over', {
        route: route.name,
        skipped: choice.skipped,
      });
    if (choice.usable.length === 0) {
      // the interfaces' URLs are logged, not answered
      const why = choice.skipped.join('; ') || 'none listed';
      throw A2AError.of(
        'UPSTREAM_UNAVAILABLE',
        `the upstream card lists no interface this gateway may use: ${withoutAddresses(why)}`,
        { internal: why },
      );
    }
    return choice.usable;
  }

  /** Ready when the card is loaded (or not needed) and an `auto` route has a usable interface. */
  async status(route: RouteConfig): Promise<{ ready: boolean; reason?: string }> {
    const list = endpointRoutes(route);
    if (list.length > 1) {
      const all = await Promise.all(list.map((r) => this.status(r)));
      return all.find((s) => s.ready) ?? all[0]!;
    }
    const s = this.store.status(route);
    if (!s.ready || route.upstream.binding !== 'auto') return s;
    try {
      await this.interfaces(route);
      return { ready: true };
    } catch (e) {
      return { ready: false, reason: (e as Error).message };
    }
  }

  /**
   * The rewritten card before any signature, and the key to sign it with when the route re-signs it (`sign`: the
   * caller gets the 1.0 shape): then the card is the normal form that is signed and served.
   */
  private async unsigned(
    card: JsonObject,
    route: RouteConfig,
    upstream: JsonObject,
    at: PublicAddresses,
    sign = true,
  ): Promise<{ card: JsonObject; key?: LoadedKey }> {
    if (route.card.signatures === 'resign' && route.card.signingKey) {
      if (!sign) return { card };
      this.refuseUnvouched(card, route, at);
      return { card: normalizedCard(card), key: await this.keys.get(route.card.signingKey) };
    }
    if (Array.isArray(upstream.signatures) && upstream.signatures.length > 0) {
      this.warnOnce(
        `sig ${route.name}`,
        "the upstream card's signatures do not cover the rewritten card and are dropped (card.signatures: resign signs it anew)",
        { route: route.name },
      );
    }
    return { card };
  }

  /**
   * A signed card names only addresses the operator configured or vouched for:
   * one whose interfaces would carry a host the caller chose is refused (400),
   * not signed and not served unsigned either.
   */
  private refuseUnvouched(card: JsonObject, route: RouteConfig, at: PublicAddresses): void {
    const unvouched = at.unvouched ?? [];
    const named = (Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [])
      .map((i) => (i && typeof i === 'object' && !Array.isArray(i) ? i.url : undefined))
      .filter((u) => typeof u === 'string' && unvouched.includes(u));
    if (named.length === 0) return;
    const internal = `unvouched card address ${String(named[0])} on route ${route.name}`;
    this.warnOnce(
      `unvouched ${route.name}`,
      'a signed card was asked for with a host the configuration does not name: refused (configure public.httpUrl / card.publicHttpUrl, or match.hosts)',
      { route: route.name, address: named[0] },
    );
    throw A2AError.of(
      'INVALID_REQUEST',
      "this route's card is signed and names only the gateway's configured addresses: the request's host is not one of them",
      { internal },
    );
  }

  /**
   * The card for `GET {route}/.well-known/agent-card.json`, cached per source
   * card, address and shape: a caller that sends no A2A-Version (or 0.3) gets
   * the 0.3 shape with the 1.0 `supportedInterfaces` embedded (bridge §2; the
   * 1.x SDK reads only `supportedInterfaces` of it), a 1.x caller the 1.0 card.
   */
  async servedCard(route: RouteConfig, view: RequestView): Promise<ServedCard> {
    let source: JsonObject;
    // one endpoint's card and its Last-Modified (another may become ready while this awaits)
    const primary = this.primary(route);
    // (before any wait: a reload meanwhile must not tag this route's card as the new configuration's)
    const generation = this.generation;
    try {
      source = (await this.store.get(primary)) ?? this.minimalFor(route);
    } catch (e) {
      throw cardUnavailable(e);
    }
    const at = publicAddresses(this.addresses(), this.trusted, route, view);
    // the version as the caller gives it for any call: the header, else the query parameter (§3.6.1)
    const v03 = wantsV03Card(route, view);
    const key = `${route.name} ${at.http} ${at.grpc} ${v03 ? '0.3' : '1.0'}`;
    const hit = this.served.get(key);
    // built for this very route configuration (a card for the old one, finished after a reload, is not served)
    if (hit && hit.source === source && hit.generation === generation && hit.route === route) return hit.card;
    const since = Math.max(this.store.changedAt(primary), this.generationStart);
    // 0.3 callers verify no 1.0 signature: a re-signed card is served signed in its 1.0 shape only
    const unsigned = await this.unsigned(rewriteCard(source, route, at), route, source, at, !v03);
    const signing = unsigned.key;
    let card = unsigned.card;
    if (v03) {
      const order = bindingOrder(source, route);
      card = cardToV03(card, {
        ...(order.includes('JSONRPC') ? { jsonrpc: at.http } : {}),
        ...(order.includes('HTTP+JSON') ? { rest: at.http } : {}),
        ...(order.includes('GRPC') && (route.hosts.length > 0 || route.pathPrefix === '') ? { grpc: at.grpc } : {}),
        preferred: order[0] ?? 'JSONRPC',
      });
      delete card.signatures;
    }
    const k = signing && route.card.signingKey;
    const fingerprint = createHash('sha256')
      .update(JSON.stringify(card))
      .update(k ? `\n${JSON.stringify(protectedHeader(k))}\n${signing.id}` : '')
      .digest('base64url');
    let served: ServedCard;
    if (hit && hit.fingerprint === fingerprint) {
      // the same content, header and key: the same bytes (a new signature would only change the ETag)
      served = hit.card;
    } else {
      const body = JSON.stringify(k ? await signCard(card, k, signing) : card);
      served = {
        body,
        etag: `"${createHash('sha256').update(body).digest('base64url')}"`,
        lastModified: new Date(Math.floor(since / 1000) * 1000),
        maxAgeSeconds: route.card.maxAgeSeconds,
      };
    }
    if (route.card.maxAgeSeconds !== served.maxAgeSeconds)
      served = { ...served, maxAgeSeconds: route.card.maxAgeSeconds };
    this.served.delete(key);
    if (this.served.size >= SERVED_CARDS_KEPT) this.served.delete(this.served.keys().next().value!);
    this.served.set(key, { route, source, generation, fingerprint, card: served });
    return served;
  }

  /** The minimal card of a route without a card source, the same object for the route's generation (cached as any). */
  private minimalFor(route: RouteConfig): JsonObject {
    let card = this.minimal.get(route);
    if (!card) this.minimal.set(route, (card = minimalCard(route)));
    return card;
  }

  /** The request headers the route's served card depends on (for `Vary`). */
  varies(route: RouteConfig): string[] {
    return cardVaries(this.addresses(), this.trusted, route);
  }

  /** GetExtendedAgentCard's answer with the gateway's interfaces, like the public card. */
  async rewriteExtended(response: AgentCard, route: RouteConfig, view: RequestView): Promise<AgentCard> {
    const upstream = writeJson(AgentCardSchema, response) as JsonObject;
    const at = publicAddresses(this.addresses(), this.trusted, route, view);
    const { card, key } = await this.unsigned(rewriteCard(upstream, route, at), route, upstream, at);
    const k = key && route.card.signingKey;
    return readJson(AgentCardSchema, k ? await signCard(card, k, key) : card);
  }
}
