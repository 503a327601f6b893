// The upstream Agent Cards (spec §8.2, §8.6): fetched for every route at
// start, kept fresh with HTTP caching (Cache-Control max-age, revalidation
// with If-None-Match), retried with backoff while an upstream is down (the
// route is not ready meanwhile; the gateway keeps serving the others), and on
// a failed refresh the last good card keeps serving with a warning. A card
// whose signature the route must verify is not trusted until it verifies, and
// one that is no AgentCard (card-source.ts) is a failed fetch, logged with why.
// A route with several endpoints has a card per endpoint (each names its own
// interfaces). With `state.redis`, every good card is also kept in Redis, so
// a gateway replica that starts while an agent is down serves the last good
// card its peers saw (issue 14). A reload keeps a route's card only while
// what decided to trust it is unchanged (source, verifyJwksFile, the TLS it
// was fetched over); the card of a route it removed or changed is no longer
// fetched, and the TLS files are read again by the next fetch.
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Agent } from '../util/undici.js';
import { agentFor } from '../tls/upstream-tls.js';
import { getWithin } from '../upstream/pulled-answer.js';
import type { RouteConfig } from '../config/types.js';
import type { JsonObject } from '../proto/json.js';
import { acceptedCard, cardObject, cardTls, keyOf, maxAgeMs, sharedCardKey, sourceOf } from './card-source.js';
import { withoutCredentials } from '../errors/addresses.js';
import { cardSourceUrl } from './upstream-card.js';
import { verifyCard } from './signing.js';
import type { Metrics } from '../ops/metrics.js';
import type { SharedState } from '../state/redis.js';
import { endpointRoutes } from '../upstream/endpoints.js';

/** How long Redis keeps a last good card nobody refreshed. */
const SHARED_CARD_TTL_SECONDS = 7 * 86_400;
const BACKOFF_MIN_MS = 1000;
const BACKOFF_MAX_MS = 60_000;

interface Entry {
  /** The file or URL the card comes from (a reload that changes it starts afresh). */
  source: string;
  card?: JsonObject;
  etag?: string;
  /** When the card's content last changed (Last-Modified of the served card). */
  changedAt: number;
  expiresAt: number;
  error?: string;
  /** The error of the last failed fetch, rethrown as is while it waits for its retry (no new Error per call). */
  failure?: Error;
  inflight?: Promise<void>;
  backoffMs: number;
  retry?: NodeJS.Timeout;
  /** Of a route a reload removed or changed: answers from what it has, never fetches again, never back in the store. */
  detached?: boolean;
}

const newEntry = (route: RouteConfig): Entry => ({
  source: sourceOf(route),
  changedAt: 0,
  expiresAt: 0,
  backoffMs: BACKOFF_MIN_MS,
});
const GONE = 'the route was removed or changed by a reload';

export class CardStore {
  private readonly entries = new Map<string, Entry>();
  /** The store's undici agents, one per TLS settings (a route's upstream's, for cards the upstream serves itself). */
  private readonly agents = new Map<string, Agent>();
  /** The keys of the routes in force since the last reload (undefined before the first: every route). */
  private live: Set<string> | undefined;
  /** The entry each route of an earlier configuration last had, for its calls still under way. */
  private readonly held = new WeakMap<RouteConfig, Entry>();
  private closed = false;

  constructor(
    private readonly log: Logger,
    private readonly metrics?: Metrics,
    private readonly shared?: SharedState,
  ) {}

  private entry(route: RouteConfig): Entry {
    const key = keyOf(route);
    let e = this.entries.get(key);
    if (!e && this.live && !this.live.has(key)) {
      // a late call of a route a reload removed or changed: what it had, never fetched again, never back in the store
      e = this.held.get(route) ?? { ...newEntry(route), detached: true, error: GONE, failure: new Error(GONE) };
    } else if (!e) {
      e = newEntry(route);
      this.entries.set(key, e);
    }
    if (this.held.get(route) !== e) this.held.set(route, e);
    return e;
  }

  /**
   * After a reload: forget routes (and endpoints) that are gone or whose card source or trust settings changed; their
   * entries are detached (no retry, no fetch). The TLS agents are dropped, so the next fetch reads the PEM files again;
   * undici closes the old ones once their fetches in flight end.
   */
  retain(routes: readonly RouteConfig[]): void {
    const keep = new Set(routes.flatMap(endpointRoutes).map(keyOf));
    this.live = keep;
    for (const [key, e] of this.entries) {
      if (keep.has(key)) {
        // a new configuration: the reload's own fetch (start) goes now, with the new settings; a retry armed by the
        // old ones would keep its backoff and its old RouteConfig
        clearTimeout(e.retry);
        e.retry = undefined;
        e.backoffMs = BACKOFF_MIN_MS;
        continue;
      }
      clearTimeout(e.retry);
      e.retry = undefined;
      e.detached = true;
      this.entries.delete(key);
    }
    for (const a of this.agents.values()) void a.close().catch(() => undefined);
    this.agents.clear();
  }

  /** Fetches every route's card now; failures retry in the background with backoff. */
  start(routes: readonly RouteConfig[]): Promise<void> {
    // A route without a card source (a gRPC agent with no card.file or card.url) fetches nothing, ever.
    const sourced = routes.flatMap(endpointRoutes).filter((r) => sourceOf(r) !== '');
    return Promise.all(sourced.map((r) => this.refresh(r).catch(() => undefined))).then(() => undefined);
  }

  /** Whether a route's card is loaded (or it needs none), and why not. */
  status(route: RouteConfig): { ready: boolean; reason?: string } {
    if (!this.hasSource(route)) return { ready: true };
    const e = this.entry(route);
    return e.card ? { ready: true } : { ready: false, reason: e.error ?? 'agent card not loaded yet' };
  }

  changedAt(route: RouteConfig): number {
    return this.entry(route).changedAt;
  }

  /** The route's card if loaded, without waiting (a stale one is revalidated in the background); null: it has none. */
  peek(route: RouteConfig): JsonObject | null | undefined {
    if (!this.hasSource(route)) return null;
    const e = this.entries.get(keyOf(route));
    // a card that failed to load (retry pending) is no card: the upstream answers for itself
    if (!e?.card) return e?.failure ? null : undefined;
    if (Date.now() >= e.expiresAt && !e.inflight) void this.refresh(route).catch(() => undefined);
    return e.card;
  }

  /** Whether the route's card comes from somewhere. */
  private hasSource(route: RouteConfig): boolean {
    return sourceOf(route) !== '';
  }

  /**
   * The route's upstream card (undefined: it has none). A stale card is
   * returned at once and revalidated in the background; with no card yet the
   * call waits for a fetch and throws if it fails.
   */
  async get(route: RouteConfig): Promise<JsonObject | undefined> {
    if (!this.hasSource(route)) return undefined;
    const e = this.entry(route);
    if (e.card) {
      if (Date.now() >= e.expiresAt && !e.inflight) void this.refresh(route).catch(() => undefined);
      return e.card;
    }
    // No card yet: wait for the fetch under way, but do not fetch per call while
    // a failed one waits for its backoff retry.
    if (e.retry && e.failure) throw e.failure;
    await this.refresh(route);
    return e.card;
  }

  private refresh(route: RouteConfig): Promise<void> {
    const e = this.entry(route);
    if (!e.inflight) {
      if (e.detached) return Promise.reject(e.failure ?? new Error(GONE));
      e.inflight = this.load(route, e).finally(() => {
        e.inflight = undefined;
      });
    }
    return e.inflight;
  }

  private async load(route: RouteConfig, e: Entry): Promise<void> {
    try {
      if (route.card.file) {
        const card = cardObject(JSON.parse(await readFile(route.card.file, 'utf8')));
        this.accept(route, e, acceptedCard(card), undefined, Infinity);
        return;
      }
      const url = cardSourceUrl(route)!;
      // the whole fetch within the route's timeout, connecting included (an agent that leaves the TLS handshake
      // unanswered holds it no longer: the calls that wait for the card to check capabilities wait as long)
      const res = await getWithin(
        this.dispatcherFor(route),
        url,
        {
          accept: 'application/json',
          // a dual-stack agent hands a caller without A2A-Version its 0.3 view (§3.6.2): ask for 1.0
          'a2a-version': '1.0',
          ...(e.etag && e.card ? { 'if-none-match': e.etag } : {}),
        },
        route.timeoutMs,
        route.maxResponseBytes,
      );
      const text = res.body.toString('utf8');
      const cc = res.headers['cache-control'];
      const fresh = maxAgeMs(Array.isArray(cc) ? cc.join(',') : cc);
      if (res.status === 304 && e.card) {
        e.expiresAt = Date.now() + fresh;
        this.metrics?.cardRefresh(route.name, 'not_modified');
        return;
      }
      if (res.status !== 200) throw new Error(`${withoutCredentials(url)} answered HTTP ${res.status}`);
      const etag = res.headers.etag;
      // a body that is no AgentCard is a failed fetch: the last good card stays (fail() logs why)
      const card = cardObject(JSON.parse(text));
      if (route.card.verifyJwksFile) await verifyCard(card, route.card.verifyJwksFile);
      this.accept(route, e, acceptedCard(card), Array.isArray(etag) ? etag[0] : etag, fresh);
    } catch (err) {
      const shared = !e.card && !e.detached && (await this.lastGood(route, e));
      this.fail(route, e, err as Error);
      if (!shared) throw err;
    }
  }

  /**
   * No card yet and the upstream cannot give one: the last good card another replica saw, from Redis — never on a
   * route that verifies its upstream's card signature (a copy in Redis is not a card this process verified).
   */
  private async lastGood(route: RouteConfig, e: Entry): Promise<boolean> {
    const s = this.shared;
    if (!s?.ready || route.card.verifyJwksFile) return false;
    try {
      const text = await s.client.get(s.key(...sharedCardKey(route)));
      if (text === null) return false;
      // held in Redis by an older replica, or written there by anyone: read as a fetched card is
      e.card = acceptedCard(cardObject(JSON.parse(text)));
      e.changedAt = Date.now();
      this.log.warn({ route: route.name }, 'agent card unavailable; serving the last good card from redis');
      return true;
    } catch {
      return false;
    }
  }

  /** The store's own agent for the card's TLS settings: the upstream's apply to its own card (not to a card.url elsewhere). */
  private dispatcherFor(route: RouteConfig): Agent {
    return agentFor(this.agents, cardTls(route));
  }

  private accept(route: RouteConfig, e: Entry, card: JsonObject, etag: string | undefined, freshMs: number): void {
    if (JSON.stringify(card) !== JSON.stringify(e.card)) e.changedAt = Date.now();
    const wasDown = e.error !== undefined;
    e.card = card;
    e.etag = etag;
    e.expiresAt = Date.now() + freshMs;
    e.error = undefined;
    e.failure = undefined;
    e.backoffMs = BACKOFF_MIN_MS;
    if (e.detached) return;
    this.metrics?.cardRefresh(route.name, 'updated');
    const s = this.shared;
    if (s?.ready)
      s.client
        .set(s.key(...sharedCardKey(route)), JSON.stringify(card), 'EX', SHARED_CARD_TTL_SECONDS)
        .catch(() => undefined);
    if (wasDown) this.log.info({ route: route.name }, 'agent card loaded');
  }

  private fail(route: RouteConfig, e: Entry, err: Error): void {
    e.error = `cannot read the upstream's agent card: ${err.message}`;
    e.failure = new Error(err.message);
    // a route a reload removed or changed: no retry (it would fetch for a route no longer there, forever)
    if (e.detached) return;
    this.metrics?.cardRefresh(route.name, 'failed');
    if (e.card) {
      // keep serving the last good card; try again after the backoff
      this.log.warn({ route: route.name, err: err.message }, 'agent card refresh failed; serving the last good card');
      e.expiresAt = Date.now() + e.backoffMs;
      e.error = undefined;
    } else if (!this.closed && !e.retry) {
      this.log.warn(
        { route: route.name, err: err.message, retryInMs: e.backoffMs },
        'agent card unavailable; route not ready',
      );
      e.retry = setTimeout(() => {
        e.retry = undefined;
        void this.refresh(route).catch(() => undefined);
      }, e.backoffMs);
      e.retry.unref();
    }
    e.backoffMs = Math.min(e.backoffMs * 2, BACKOFF_MAX_MS);
  }

  close(): void {
    this.closed = true;
    for (const e of this.entries.values()) clearTimeout(e.retry);
    for (const a of this.agents.values()) void a.close();
    this.agents.clear();
  }
}
