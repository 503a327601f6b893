// The binding-independent core: takes an envelope that an inbound binding
// decoded and the route it matched, applies the route's tenant policy, sends
// it to the route's upstream client (chosen by the upstream's binding, never
// by the caller's), and returns a Reply. Logs one line per call.
import type { Logger } from 'pino';
import type { Binding, RouteConfig } from '../config/types.js';
import { A2AError } from '../errors/a2a-error.js';
import { chooseInterface, fetchUpstreamCard, type ResolvedUpstream } from '../card/upstream-card.js';
import type { JsonObject } from '../proto/protojson.js';
import type { Envelope, Reply } from './envelope.js';
import type { UpstreamClient, UpstreamTarget } from './upstream.js';

export type UpstreamFactory = (binding: Binding, target: UpstreamTarget) => UpstreamClient;

export interface CallContext {
  route: RouteConfig;
  inbound: Binding;
  requestId: string;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
}

interface RouteState {
  card?: Promise<JsonObject>;
  upstream?: Promise<{ resolved: ResolvedUpstream; client: UpstreamClient }>;
}

export class Dispatcher {
  private readonly state = new Map<string, RouteState>();

  constructor(
    private readonly makeClient: UpstreamFactory,
    private readonly log: Logger,
  ) {}

  private routeState(route: RouteConfig): RouteState {
    let s = this.state.get(route.name);
    if (!s) {
      s = {};
      this.state.set(route.name, s);
    }
    return s;
  }

  /** The upstream's Agent Card, fetched once (a failed fetch is retried next time). */
  card(route: RouteConfig): Promise<JsonObject> {
    const s = this.routeState(route);
    if (!s.card) {
      s.card = fetchUpstreamCard(route);
      s.card.catch(() => {
        s.card = undefined;
      });
    }
    return s.card;
  }

  private async resolve(route: RouteConfig): Promise<ResolvedUpstream> {
    const { binding, url } = route.upstream;
    if (binding !== 'auto') return { binding, url, tenant: '' };
    let card: JsonObject;
    try {
      card = await this.card(route);
    } catch (e) {
      throw A2AError.of('UPSTREAM_UNAVAILABLE', `cannot read the upstream's agent card: ${(e as Error).message}`);
    }
    const chosen = chooseInterface(card);
    if (!chosen) throw A2AError.of('UPSTREAM_UNAVAILABLE', 'the upstream card lists no interface this gateway speaks (A2A 1.x)');
    return chosen;
  }

  private upstream(route: RouteConfig): Promise<{ resolved: ResolvedUpstream; client: UpstreamClient }> {
    const s = this.routeState(route);
    if (!s.upstream) {
      s.upstream = this.resolve(route).then((resolved) => ({
        resolved,
        client: this.makeClient(resolved.binding, { url: resolved.url, timeoutMs: route.timeoutMs }),
      }));
      s.upstream.catch(() => {
        s.upstream = undefined;
      });
    }
    return s.upstream;
  }

  private upstreamTenant(route: RouteConfig, env: Envelope, resolved: ResolvedUpstream): string {
    const policy = route.upstream.tenant;
    if (policy.mode === 'set') return policy.value;
    if (policy.mode === 'clear') return '';
    return env.tenant || resolved.tenant;
  }

  /** One unary call; never throws: failures come back as error replies. */
  async unary(env: Envelope, ctx: CallContext): Promise<Reply> {
    const started = process.hrtime.bigint();
    let upstreamBinding: Binding | undefined;
    let reply: Reply;
    try {
      const { resolved, client } = await this.upstream(ctx.route);
      upstreamBinding = resolved.binding;
      const tenant = this.upstreamTenant(ctx.route, env, resolved);
      const request = { ...env.request, tenant };
      reply = { ok: true, response: await client.unary({ ...env, request }, ctx.signal) };
    } catch (e) {
      reply = { ok: false, error: asA2AError(e) };
    }
    this.logCall(env.method, ctx, upstreamBinding, reply, started);
    return reply;
  }

  logCall(method: string, ctx: Pick<CallContext, 'inbound' | 'requestId'> & { route?: RouteConfig }, upstream: Binding | undefined, reply: Reply, started: bigint): void {
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    this.log.info({
      requestId: ctx.requestId,
      route: ctx.route?.name ?? null,
      method,
      inbound: ctx.inbound,
      upstream: upstream ?? null,
      outcome: reply.ok ? 'OK' : reply.error.errorName,
      durationMs: Math.round(durationMs * 1000) / 1000,
    }, 'call');
  }

  async close(): Promise<void> {
    const clients = [...this.state.values()].map((s) => s.upstream?.then((u) => u.client.close(), () => undefined));
    this.state.clear();
    await Promise.all(clients);
  }
}

export function asA2AError(e: unknown): A2AError {
  if (e instanceof A2AError) return e;
  return A2AError.of('INTERNAL_ERROR', `gateway error: ${(e as Error)?.message ?? String(e)}`);
}
