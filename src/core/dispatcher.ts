// The binding-independent core: takes an envelope that an inbound binding
// decoded and the route it matched, applies the route's tenant policy, sends
// it to the route's upstream client (chosen by the upstream's binding, never
// by the caller's), and returns a Reply — or, for the streaming methods
// (§3.1.2, §3.1.6), an AsyncIterable of StreamResponse events ended by the
// caller's AbortSignal, the upstream, or the route's idle timeout. Logs one
// line per call.
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { Authenticator } from '../auth/authenticator.js';
import { withUpstreamCredentials } from '../auth/upstream-credentials.js';
import { tlsKey } from '../tls/upstream-tls.js';
import type { Binding, RouteConfig } from '../config/types.js';
import { A2AError } from '../errors/a2a-error.js';
import type { CardService } from '../card/card-service.js';
import type { RequestView } from '../card/public-address.js';
import type { ResolvedUpstream } from '../card/upstream-card.js';
import { UPSTREAM_VERSION } from './service-params.js';
import { methodInfo } from './methods.js';
import { redactError, secretsOf } from './secrets.js';
import { ssrfViolations } from './ssrf-guard.js';
import { stringLengthViolations } from './string-limit.js';
import { Limits } from './limits.js';
import { traceIdOf } from './trace-context.js';
import type { Metrics } from '../ops/metrics.js';
import type { OtlpTracer, Span } from '../ops/otlp.js';
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
  /** The caller's request as the edge saw it (for URLs in rewritten cards). */
  view: RequestView;
}

type Upstream = { resolved: ResolvedUpstream; client: UpstreamClient };
type LogContext = Pick<CallContext, 'inbound' | 'requestId'> & { route?: RouteConfig | undefined };

const PUSH_CONFIG_METHODS = new Set<string>([
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
]);

/** §3.3.1: calls that may be sent again when a kept-alive connection was reset under them (once). */
const IDEMPOTENT = new Set<string>([
  'GetTask',
  'ListTasks',
  'CancelTask',
  'GetExtendedAgentCard',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
]);

/** A connection refused: the request cannot have reached the agent, so another interface may be tried. */
function refused(e: unknown): boolean {
  return e instanceof A2AError && e.connectionRefused;
}

export class Dispatcher {
  /** One client per upstream binding + URL, shared by the routes that use it. */
  private readonly clients = new Map<string, UpstreamClient>();
  /** Aborted when the drain's grace period ends: open streams end with SHUTTING_DOWN (one listener per open stream). */
  private readonly shutdown = (() => {
    const ac = new AbortController();
    setMaxListeners(0, ac.signal);
    return ac;
  })();
  private openStreams = 0;

  constructor(
    private readonly makeClient: UpstreamFactory,
    readonly cards: CardService,
    private readonly log: Logger,
    private readonly metrics: Metrics,
    private readonly tracer?: OtlpTracer,
  ) {}

  private readonly limits = new Limits();
  private readonly auth = new Authenticator();

  /** The caller's identity for per-caller limits when the route does not authenticate: its credentials (hashed), else its address. */
  private callerKey(ctx: CallContext): string {
    const auth = ctx.view.header('authorization');
    return auth ? createHash('sha256').update(auth).digest('base64url').slice(0, 16) : (ctx.view.remoteAddress ?? '-');
  }

  /**
   * What every call passes before anything is sent upstream, translated or
   * passed through: the route's authentication (§7.4), then its rate limit
   * for the caller. Returns the caller's identity ("jwt:alice") or undefined.
   */
  async admit(ctx: CallContext): Promise<string | undefined> {
    const principal = await this.auth.authenticate(ctx.route, ctx.view);
    const caller = principal ? `${principal.scheme}:${principal.id}` : undefined;
    // the caller key (a hash of the credential) only when a per-caller limit needs it
    if (ctx.route.rateLimit)
      await this.limits.admit(ctx.route, ctx.route.rateLimit.perCaller ? (caller ?? this.callerKey(ctx)) : '');
    return caller;
  }

  /** With OTLP export on: the call's span, and the envelope that carries it upstream as the parent. */
  private traced(env: Envelope): { env: Envelope; span?: Span } {
    if (!this.tracer) return { env };
    const { span, headers } = this.tracer.start(env.serviceParameters.forwardedHeaders);
    return { env: { ...env, serviceParameters: { ...env.serviceParameters, forwardedHeaders: headers } }, span };
  }

  private endSpan(
    span: Span | undefined,
    method: string,
    ctx: CallContext,
    upstream: Binding | undefined,
    reply: Reply,
  ): void {
    if (!span || !this.tracer) return;
    const attrs = {
      'a2a.method': method,
      'a2a.route': ctx.route.name,
      'a2a.inbound': ctx.inbound,
      'a2a.upstream': upstream ?? '-',
      'a2a.outcome': reply.ok ? 'OK' : reply.error.errorName,
    };
    this.tracer.end(span, method, attrs, reply.ok ? undefined : reply.error.message);
  }

  private client(route: RouteConfig, r: ResolvedUpstream): UpstreamClient {
    const key = `${r.binding} ${r.url} ${route.timeoutMs} ${route.maxSseEventBytes} ${tlsKey(route.upstream.tls)}`;
    let c = this.clients.get(key);
    if (!c) {
      c = this.makeClient(r.binding, {
        url: r.url,
        timeoutMs: route.timeoutMs,
        maxSseEventBytes: route.maxSseEventBytes,
        tls: route.upstream.tls,
      });
      this.clients.set(key, c);
    }
    return c;
  }

  /** The interfaces to call, in order: the configured one, or (auto) the card's usable ones. */
  private async upstreams(route: RouteConfig): Promise<Upstream[]> {
    const { binding, url } = route.upstream;
    const list: ResolvedUpstream[] =
      binding !== 'auto'
        ? [{ binding, url, tenant: '', version: UPSTREAM_VERSION }]
        : await this.cards.interfaces(route);
    return list.map((resolved) => ({ resolved, client: this.client(route, resolved) }));
  }

  /** The envelope as this upstream interface gets it: tenant policy, its A2A version, the route's credential policy. */
  private forUpstream(ctx: CallContext, env: Envelope, resolved: ResolvedUpstream): Envelope {
    const policy = ctx.route.upstream.tenant;
    const tenant = policy.mode === 'set' ? policy.value : policy.mode === 'clear' ? '' : env.tenant || resolved.tenant;
    const forwardedHeaders = withUpstreamCredentials(
      ctx.route,
      env.serviceParameters.forwardedHeaders,
      ctx.view.header,
    );
    return {
      ...env,
      request: { ...env.request, tenant },
      serviceParameters: { ...env.serviceParameters, version: resolved.version, forwardedHeaders },
    };
  }

  /** Input limits and the SSRF guard (§13), then the §3.3.4 checks the gateway makes from the upstream's card before calling it. */
  private async preflight(route: RouteConfig, env: Envelope): Promise<void> {
    const tooLong = stringLengthViolations(env.request, route.maxStringLength);
    if (tooLong.length > 0)
      throw A2AError.invalidParams(tooLong, "a string in the request exceeds the route's maxStringLength");
    if (route.ssrfGuard) {
      const violations = ssrfViolations(methodInfo(env.method).requestType, env.request);
      if (violations.length > 0)
        throw A2AError.invalidParams(violations, 'a file part URL was refused by the SSRF guard');
    }
    const card = await this.cards.upstreamCard(route).catch(() => undefined);
    if (!card) return;
    const caps = (card.capabilities ?? {}) as JsonObject;
    if (PUSH_CONFIG_METHODS.has(env.method) && caps.pushNotifications !== true) {
      throw A2AError.of(
        'PUSH_NOTIFICATION_NOT_SUPPORTED',
        "Push Notification is not supported (the agent's card does not declare pushNotifications)",
      );
    }
    if (env.method === 'GetExtendedAgentCard' && caps.extendedAgentCard !== true) {
      throw A2AError.of('UNSUPPORTED_OPERATION', "the agent's card does not declare an extended agent card");
    }
    if ((env.method === 'SendStreamingMessage' || env.method === 'SubscribeToTask') && caps.streaming !== true) {
      throw A2AError.of(
        'UNSUPPORTED_OPERATION',
        "streaming is not supported by this agent (its card's capabilities.streaming is not true)",
      );
    }
    const requested = new Set(env.serviceParameters.extensions);
    for (const ext of Array.isArray(caps.extensions) ? caps.extensions : []) {
      const e = ext as JsonObject;
      if (e.required === true && typeof e.uri === 'string' && !requested.has(e.uri)) {
        throw A2AError.of(
          'EXTENSION_SUPPORT_REQUIRED',
          `the agent requires the extension ${e.uri}; list it in A2A-Extensions`,
          { metadata: { extension: e.uri } },
        );
      }
    }
  }

  /** One unary call; never throws: failures come back as error replies. */
  async unary(original: Envelope, ctx: CallContext): Promise<Reply> {
    const started = process.hrtime.bigint();
    const { env, span } = this.traced(original);
    let upstreamBinding: Binding | undefined;
    let reply: Reply;
    let caller: string | undefined;
    try {
      caller = await this.admit(ctx);
      await this.preflight(ctx.route, env);
      const candidates = await this.upstreams(ctx.route);
      let response: ProtoObject | undefined;
      for (const [i, { resolved, client }] of candidates.entries()) {
        upstreamBinding = resolved.binding;
        try {
          const t0 = process.hrtime.bigint();
          const upstreamEnv = this.forUpstream(ctx, env, resolved);
          response = await client.unary(upstreamEnv, ctx.signal).catch((e: unknown) => {
            if (!(e instanceof A2AError && e.connectionReset && IDEMPOTENT.has(env.method))) throw e;
            this.log.warn(
              { requestId: ctx.requestId, route: ctx.route.name, err: e.message },
              'upstream connection reset under an idempotent call; sending it once more',
            );
            return client.unary(upstreamEnv, ctx.signal);
          });
          this.metrics.upstreamTime(
            ctx.route.name,
            env.method,
            resolved.binding,
            Number(process.hrtime.bigint() - t0) / 1e9,
          );
          break;
        } catch (e) {
          if (!refused(e) || i === candidates.length - 1) throw e;
          this.log.warn(
            { requestId: ctx.requestId, route: ctx.route.name, url: resolved.url, err: (e as Error).message },
            'upstream interface refused the connection; trying the next one',
          );
        }
      }
      if (env.method === 'GetExtendedAgentCard' && response)
        response = await this.cards.rewriteExtended(response, ctx.route, ctx.view);
      reply = { ok: true, response: response ?? {} };
    } catch (e) {
      reply = { ok: false, error: redactError(asA2AError(e), secretsOf(env, ctx.route, ctx.view)) };
    }
    this.logCall(env.method, ctx, upstreamBinding, reply, started, {
      traceId: traceIdOf(env.serviceParameters.forwardedHeaders),
      ...(caller ? { caller } : {}),
    });
    this.endSpan(span, env.method, ctx, upstreamBinding, reply);
    return reply;
  }

  /**
   * A streaming call. Errors before the first event and after it are both
   * thrown from the iteration; the inbound binding tells them apart by
   * whether it has written an event yet. Ending the iteration early (or the
   * caller's signal) aborts the upstream call.
   */
  async *stream(original: Envelope, ctx: CallContext): AsyncGenerator<ProtoObject> {
    const started = process.hrtime.bigint();
    const { env, span } = this.traced(original);
    const abort = new AbortController();
    const onCallerGone = (): void => abort.abort();
    ctx.signal.addEventListener('abort', onCallerGone, { once: true });
    this.shutdown.signal.addEventListener('abort', onCallerGone, { once: true });
    this.openStreams++;
    let upstreamBinding: Binding | undefined;
    let outcome: Reply = { ok: true, response: {} };
    let events = 0;
    let release: (() => void) | undefined;
    let caller: string | undefined;
    this.metrics.streamOpened(ctx.route.name, ctx.inbound);
    try {
      caller = await this.admit(ctx);
      release = this.limits.openStream(ctx.route);
      await this.preflight(ctx.route, env);
      const first = (await this.upstreams(ctx.route))[0];
      if (!first) throw A2AError.of('UPSTREAM_UNAVAILABLE', 'no usable upstream interface');
      const { resolved, client } = first;
      upstreamBinding = resolved.binding;
      const upstream = client.stream(this.forUpstream(ctx, env, resolved), abort.signal);
      for await (const event of withIdleTimeout(upstream, ctx.route.streamIdleTimeoutMs, abort)) {
        events++;
        this.metrics.streamEvent(ctx.route.name, ctx.inbound);
        yield event;
      }
    } catch (e) {
      const err = this.shutdown.signal.aborted
        ? A2AError.of('SHUTTING_DOWN', 'the gateway is shutting down; retry on another replica')
        : ctx.signal.aborted
          ? A2AError.of('CANCELLED', 'the caller went away')
          : redactError(asA2AError(e), secretsOf(env, ctx.route, ctx.view));
      outcome = { ok: false, error: err };
      throw err;
    } finally {
      ctx.signal.removeEventListener('abort', onCallerGone);
      this.shutdown.signal.removeEventListener('abort', onCallerGone);
      this.openStreams--;
      release?.();
      abort.abort();
      this.metrics.streamClosed(ctx.route.name, ctx.inbound);
      this.logCall(env.method, ctx, upstreamBinding, outcome, started, {
        events,
        traceId: traceIdOf(env.serviceParameters.forwardedHeaders),
        ...(caller ? { caller } : {}),
      });
      this.endSpan(span, env.method, ctx, upstreamBinding, outcome);
    }
  }

  logCall(
    method: string,
    ctx: LogContext,
    upstream: Binding | undefined,
    reply: Reply,
    started: bigint,
    extra: Record<string, unknown> = {},
  ): void {
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    const outcome = reply.ok ? 'OK' : reply.error.errorName;
    this.metrics.call(
      { route: ctx.route?.name ?? '-', method, inbound: ctx.inbound, upstream: upstream ?? '-' },
      outcome,
      durationMs / 1000,
    );
    this.log.info(
      {
        requestId: ctx.requestId,
        route: ctx.route?.name ?? null,
        method,
        inbound: ctx.inbound,
        upstream: upstream ?? null,
        outcome,
        ...(reply.ok ? {} : { error: reply.error.message }),
        durationMs: Math.round(durationMs * 1000) / 1000,
        ...extra,
      },
      'call',
    );
  }

  get activeStreams(): number {
    return this.openStreams;
  }

  /** Ends every open stream with SHUTTING_DOWN (the end of a drain's grace period). */
  endStreams(): void {
    this.shutdown.abort();
  }

  async close(): Promise<void> {
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(clients.map((c) => c.close()));
  }
}

export function asA2AError(e: unknown): A2AError {
  if (e instanceof A2AError) return e;
  return A2AError.of('INTERNAL_ERROR', `gateway error: ${(e as Error)?.message ?? String(e)}`);
}
