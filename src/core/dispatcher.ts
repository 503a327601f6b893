// The binding-independent core: takes an envelope that an inbound binding
// decoded and the route it matched, applies the route's tenant policy, sends
// it to the route's upstream client (chosen by the upstream's binding, never
// by the caller's), and returns a Reply — or, for the streaming methods
// (§3.1.2, §3.1.6), an AsyncIterable of StreamResponse events ended by the
// caller's AbortSignal, the upstream, or the route's idle timeout. Logs one
// line per call.
import type { Logger } from 'pino';
import type { Binding, RouteConfig } from '../config/types.js';
import { A2AError } from '../errors/a2a-error.js';
import { chooseInterface, fetchUpstreamCard, type ResolvedUpstream } from '../card/upstream-card.js';
import type { JsonObject, ProtoObject } from '../proto/protojson.js';
import type { Envelope, Reply } from './envelope.js';
import { withIdleTimeout } from './idle-timeout.js';
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
  card?: Promise<JsonObject | undefined>;
  upstream?: Promise<{ resolved: ResolvedUpstream; client: UpstreamClient }>;
}

type LogContext = Pick<CallContext, 'inbound' | 'requestId'> & { route?: RouteConfig | undefined };

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

  /** The upstream's own Agent Card (undefined: it has none), fetched once; a failed fetch is retried next time. */
  card(route: RouteConfig): Promise<JsonObject | undefined> {
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
    let card: JsonObject | undefined;
    try {
      card = await this.card(route);
    } catch (e) {
      throw A2AError.of('UPSTREAM_UNAVAILABLE', `cannot read the upstream's agent card: ${(e as Error).message}`);
    }
    const chosen = card ? chooseInterface(card) : undefined;
    if (!chosen) throw A2AError.of('UPSTREAM_UNAVAILABLE', 'the upstream card lists no interface this gateway speaks (A2A 1.x)');
    return chosen;
  }

  private upstream(route: RouteConfig): Promise<{ resolved: ResolvedUpstream; client: UpstreamClient }> {
    const s = this.routeState(route);
    if (!s.upstream) {
      s.upstream = this.resolve(route).then((resolved) => ({
        resolved,
        client: this.makeClient(resolved.binding, { url: resolved.url, timeoutMs: route.timeoutMs, maxSseEventBytes: route.maxSseEventBytes }),
      }));
      s.upstream.catch(() => {
        s.upstream = undefined;
      });
    }
    return s.upstream;
  }

  private withTenant(route: RouteConfig, env: Envelope, resolved: ResolvedUpstream): Envelope {
    const policy = route.upstream.tenant;
    const tenant = policy.mode === 'set' ? policy.value : policy.mode === 'clear' ? '' : env.tenant || resolved.tenant;
    return { ...env, request: { ...env.request, tenant } };
  }

  /** One unary call; never throws: failures come back as error replies. */
  async unary(env: Envelope, ctx: CallContext): Promise<Reply> {
    const started = process.hrtime.bigint();
    let upstreamBinding: Binding | undefined;
    let reply: Reply;
    try {
      const { resolved, client } = await this.upstream(ctx.route);
      upstreamBinding = resolved.binding;
      reply = { ok: true, response: await client.unary(this.withTenant(ctx.route, env, resolved), ctx.signal) };
    } catch (e) {
      reply = { ok: false, error: asA2AError(e) };
    }
    this.logCall(env.method, ctx, upstreamBinding, reply, started);
    return reply;
  }

  /** §3.3.4: an upstream whose card does not declare streaming gets no streaming call. */
  private async checkStreaming(route: RouteConfig): Promise<void> {
    const card = await this.card(route).catch(() => undefined);
    const caps = card?.capabilities as JsonObject | undefined;
    if (card && caps?.streaming !== true) {
      throw A2AError.of('UNSUPPORTED_OPERATION', "streaming is not supported by this agent (its card's capabilities.streaming is not true)");
    }
  }

  /**
   * A streaming call. Errors before the first event and after it are both
   * thrown from the iteration; the inbound binding tells them apart by
   * whether it has written an event yet. Ending the iteration early (or the
   * caller's signal) aborts the upstream call.
   */
  async *stream(env: Envelope, ctx: CallContext): AsyncGenerator<ProtoObject> {
    const started = process.hrtime.bigint();
    const abort = new AbortController();
    const onCallerGone = (): void => abort.abort();
    ctx.signal.addEventListener('abort', onCallerGone, { once: true });
    let upstreamBinding: Binding | undefined;
    let outcome: Reply = { ok: true, response: {} };
    let events = 0;
    try {
      const { resolved, client } = await this.upstream(ctx.route);
      upstreamBinding = resolved.binding;
      await this.checkStreaming(ctx.route);
      const upstream = client.stream(this.withTenant(ctx.route, env, resolved), abort.signal);
      for await (const event of withIdleTimeout(upstream, ctx.route.streamIdleTimeoutMs, abort)) {
        events++;
        yield event;
      }
    } catch (e) {
      const err = ctx.signal.aborted ? A2AError.of('CANCELLED', 'the caller went away') : asA2AError(e);
      outcome = { ok: false, error: err };
      throw err;
    } finally {
      ctx.signal.removeEventListener('abort', onCallerGone);
      abort.abort();
      this.logCall(env.method, ctx, upstreamBinding, outcome, started, { events });
    }
  }

  logCall(method: string, ctx: LogContext, upstream: Binding | undefined, reply: Reply, started: bigint, extra: Record<string, unknown> = {}): void {
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    this.log.info({
      requestId: ctx.requestId,
      route: ctx.route?.name ?? null,
      method,
      inbound: ctx.inbound,
      upstream: upstream ?? null,
      outcome: reply.ok ? 'OK' : reply.error.errorName,
      durationMs: Math.round(durationMs * 1000) / 1000,
      ...extra,
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
