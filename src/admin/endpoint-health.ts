// Each route's upstream endpoints and their health, as the admin console
// shows them. A route with several endpoints or active health checks (issue
// 14) shows the endpoint directory's view (health checks, outlier ejection:
// src/upstream/endpoints.ts). A route with one unchecked endpoint is judged
// from what the gateway already knows: the card store's status (a card that
// cannot be loaded makes the route unready) and the outcome of the last
// calls that reached the upstream stage (a connection refused or dropped,
// UPSTREAM_UNAVAILABLE, makes it unhealthy; any answer from the agent makes
// it healthy again). An outcome counts only for the URL the call went to (the
// route of the generation it arrived in, which the line carries unlogged): a
// call that began before a reload gave the route another URL says nothing
// about the new one.
import type { RouteConfig } from '../config/types.js';
import { LINE_ROUTE, type AnsweredLine } from '../ops/access-log.js';
import type { EndpointReport } from '../upstream/endpoints.js';
import { maskUrl } from './config-view.js';

export type Health = 'healthy' | 'unhealthy' | 'unknown';

export interface EndpointStatus {
  /** The endpoint's configured name (routes with several endpoints). */
  name?: string;
  url: string;
  health: Health;
  /** Why, in words (the last failure, or what the judgement rests on). */
  reason: string;
  /** When the endpoint was last seen answering or failing (ISO 8601). */
  lastSeen: string | undefined;
}

/** What health rests on besides calls: the card store's view of the route. */
export type CardStatus = (route: RouteConfig) => { ready: boolean; reason?: string };

/** The endpoint directory's view of a route's endpoints (active checks, ejections). */
export type EndpointDirectory = (route: RouteConfig) => EndpointReport[];

/** The last call that reached the route's upstream, as recorded. */
interface Observed {
  outcome: string;
  error: string | undefined;
  at: number;
}

/** What the page shows of it. */
function readable(o: Observed | undefined): { ok: boolean; reason: string; at: string } | undefined {
  if (!o) return undefined;
  const ok = o.outcome !== 'UPSTREAM_UNAVAILABLE';
  const reason = ok ? `last call answered (${o.outcome})` : `last call failed: ${o.error ?? o.outcome}`;
  return { ok, reason, at: new Date(o.at).toISOString() };
}

/** Outcomes that say nothing about whether the agent can be reached. */
const NOT_ABOUT_THE_AGENT = new Set(['CANCELLED', 'SHUTTING_DOWN', 'UPSTREAM_OVERLOADED', 'UPSTREAM_TIMEOUT']);

export class EndpointHealth {
  private readonly observed = new Map<string, Observed>();
  /** Each route's endpoint URL, to forget what was seen of a URL a reload replaced. */
  private urls: Map<string, string>;

  constructor(
    private readonly cardStatus: CardStatus,
    routes: readonly RouteConfig[],
    private readonly directory?: EndpointDirectory,
  ) {
    this.urls = new Map(routes.map((r) => [r.name, r.upstream.url]));
  }

  /** A call's log line: its outcome, when it reached an upstream. */
  record(line: AnsweredLine): void {
    if (!line.route || !line.upstream || NOT_ABOUT_THE_AGENT.has(line.outcome)) return;
    const url = line[LINE_ROUTE]?.upstream.url;
    if (url !== undefined && url !== this.urls.get(line.route)) return;
    // kept raw: this runs on every call, the page formats it when it is read
    this.observed.set(line.route, { outcome: line.outcome, error: line.error, at: Date.now() });
  }

  /** The route's endpoints with their health. */
  endpoints(route: RouteConfig): EndpointStatus[] {
    // the same rule as readiness and placement: the directory decides for routes with several endpoints
    if (this.directory && route.upstream.endpoints.length > 1) {
      const urls = new Map(route.upstream.endpoints.map((e) => [e.name, e.url]));
      return this.directory(route).map((e) => ({
        name: e.name,
        url: maskUrl(urls.get(e.name) ?? ''),
        health: e.status === 'healthy' ? 'healthy' : 'unhealthy',
        reason:
          e.status === 'healthy'
            ? `${e.activeRequests} calls in flight`
            : `${e.status}${e.reason ? `: ${e.reason}` : ''}`,
        lastSeen: undefined,
      }));
    }
    const url = maskUrl(route.upstream.url);
    const seen = readable(this.observed.get(route.name));
    const card = this.cardStatus(route);
    if (seen && !seen.ok) return [{ url, health: 'unhealthy', reason: seen.reason, lastSeen: seen.at }];
    if (!card.ready)
      return [{ url, health: 'unhealthy', reason: card.reason ?? 'agent card not loaded', lastSeen: seen?.at }];
    if (seen) return [{ url, health: 'healthy', reason: seen.reason, lastSeen: seen.at }];
    return [{ url, health: 'unknown', reason: 'no call yet', lastSeen: undefined }];
  }

  /** After a reload: what was seen of routes that are gone, or now call another URL, is forgotten. */
  retain(routes: readonly RouteConfig[]): void {
    const next = new Map(routes.map((r) => [r.name, r.upstream.url]));
    for (const name of this.observed.keys()) if (next.get(name) !== this.urls.get(name)) this.observed.delete(name);
    this.urls = next;
  }
}
