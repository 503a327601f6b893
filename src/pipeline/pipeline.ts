// The request pipeline: one ordered chain of named stages that every call
// runs — translated or pass-through, unary or streaming, from any inbound
// binding — so no route policy can be reached around it:
//
//   observe → route → authenticate → rateLimit → decode → streamSlot →
//   validate → capabilities → upstreamPolicy → rewriteAnswer →
//   placeEndpoint → selectUpstream → send
//
// `observe` and `route` come first for every call; the rest is composed once
// per route and config generation (stage.ts), leaving out what the route does
// not configure. An inbound binding builds the Call from what it read of the
// request head, runs it here, and writes the Answer or the A2AError back in
// its own binding. Spec: §3 (operations, errors), §7.4, §8.3, §13.
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { Authenticator } from '../auth/authenticator.js';
import type { CardService } from '../card/card-service.js';
import type { RouteConfig } from '../config/types.js';
import { Limits } from '../core/limits.js';
import type { A2AError } from '../errors/a2a-error.js';
import type { RequestView, Wire } from '../http/request.js';
import type { AccessLine, AccessLog } from '../ops/access-log.js';
import type { Metrics } from '../ops/metrics.js';
import type { Tracing } from '../ops/tracing.js';
import type { Answer, Call } from './call.js';
import { authenticateStage, rateLimitStage, streamSlotStage } from './stages/admission.js';
import { capabilitiesStage, validateStage } from './stages/checks.js';
import { decodeStage } from './stages/decode.js';
import { placeEndpointStage } from './stages/place-endpoint.js';
import type { SharedState } from '../state/redis.js';
import { Affinity } from '../upstream/affinity.js';
import { Endpoints } from '../upstream/endpoints.js';
import { observe } from './stages/observe.js';
import { selectRoute } from './stages/route.js';
import { rewriteAnswerStage, selectUpstreamStage } from './stages/select-upstream.js';
import { send } from './stages/send.js';
import { checkLoop, upstreamPolicyStage } from './stages/upstream-policy.js';
import { compose, ended, type Handler, type Stage } from './stage.js';

export interface PipelineDeps {
  cards: CardService;
  log: Logger;
  /** Where the one line per call goes (with the admin console's tap). */
  access: AccessLog;
  metrics: Metrics;
  tracer: Tracing | undefined;
  /** The routes' endpoints (a one-process directory when not given). */
  endpoints?: Endpoints;
  /** Task affinity (process-local when not given). */
  affinity?: Affinity;
  /** Redis, when the gateway shares state with its replicas (rate limits). */
  shared?: SharedState;
}

/** The stage names in order (docs and the architecture diagram use these). */
export const STAGE_NAMES = [
  'observe',
  'route',
  'authenticate',
  'rateLimit',
  'decode',
  'streamSlot',
  'validate',
  'capabilities',
  'upstreamPolicy',
  'rewriteAnswer',
  'placeEndpoint',
  'selectUpstream',
  'send',
] as const;

export class Pipeline {
  private readonly drain = new AbortController();
  private readonly limits: Limits;
  private readonly stages: Stage[];
  private readonly terminal: Handler;
  private readonly chains = new WeakMap<RouteConfig, Handler>();
  private readonly entry: Handler;
  /** The stages in the order a call runs them (a test holds this to STAGE_NAMES, which the docs use). */
  readonly stageNames: readonly string[];
  private openStreams = 0;
  private inFlight = 0;
  private idle: Array<() => void> = [];
  /** This gateway's name in the Via header of its upstream calls (a call that carries it has looped). */
  readonly hop = `a2a-gateway-${randomBytes(6).toString('hex')}`;

  constructor(private readonly deps: PipelineDeps) {
    const { cards, log, metrics } = deps;
    // every open stream listens for the drain: thousands at once are expected, not a leak
    setMaxListeners(0, this.drain.signal);
    this.limits = new Limits(deps.shared, log);
    const endpoints = deps.endpoints ?? new Endpoints(log);
    const affinity = deps.affinity ?? new Affinity(undefined, log);
    this.stages = [
      authenticateStage(new Authenticator()),
      rateLimitStage(this.limits),
      decodeStage,
      streamSlotStage(this.limits),
      validateStage,
      capabilitiesStage(cards),
      upstreamPolicyStage(this.hop),
      rewriteAnswerStage(cards),
      placeEndpointStage(endpoints, affinity, log),
      selectUpstreamStage(cards, log),
    ];
    this.terminal = send(metrics, this.drain.signal);
    this.stageNames = ['observe', 'route', ...this.stages.map((s) => s.name), 'send'];
    const routed: Handler = (call) => {
      selectRoute(call);
      // the HTTP edge's CORS headers come from the routes that served the request (http/cors.ts); gRPC has none
      if (call.inbound !== 'GRPC') (call.wire.routes ??= []).push(call.route!);
      checkLoop(call, this.hop);
      return this.chain(call.route!)(call);
    };
    this.entry = observe({ ...deps, shutdown: this.drain.signal }, routed);
  }

  /** The route's chain, composed on its first call (a reload brings new RouteConfig objects, so new chains). */
  private chain(route: RouteConfig): Handler {
    let c = this.chains.get(route);
    if (!c) {
      c = compose(this.stages, route, this.terminal);
      this.chains.set(route, c);
    }
    return c;
  }

  /**
   * Runs a call; throws the A2AError to answer (already logged, counted and redacted). A translated answer comes back
   * as the call's writer wrote it (`written`, `writtenStream`: W) when it has one.
   */
  async run<W>(call: Call<W>): Promise<Answer<W>> {
    this.inFlight++;
    ended(call, () => {
      if (--this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
    });
    if (call.method.streaming) {
      this.openStreams++;
      ended(call, () => this.openStreams--);
    }
    // the observer writes answers only with the call's own writer: what it wrote is a W
    return this.entry(call) as Promise<Answer<W>>;
  }

  /** Streams still open (for the drain). */
  get activeStreams(): number {
    return this.openStreams;
  }

  /** Calls in flight, unary and streaming. */
  get activeCalls(): number {
    return this.inFlight;
  }

  /** Resolves when no call is in flight (at once when none is). */
  whenIdle(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }

  /** The end of a drain's grace period: every open stream ends with SHUTTING_DOWN. */
  endStreams(): void {
    this.drain.abort();
  }

  /** A request that failed before it could be a call (no method, unparseable, no route) is still logged and counted. */
  rejected(
    info: {
      inbound: Call['inbound'];
      requestId: string;
      started: bigint;
      wire?: Wire;
      view?: RequestView;
      size?: number;
    },
    err: A2AError,
  ): void {
    const seconds = Number(process.hrtime.bigint() - info.started) / 1e9;
    this.deps.metrics.call('-', 'unknown', info.inbound, '-', err.errorName, seconds);
    if (!this.deps.access.wanted) return;
    const line: AccessLine = {
      requestId: info.requestId,
      client: info.view?.remoteAddress ?? null,
      method: null,
      route: null,
      inbound: info.inbound,
      upstream: null,
      outcome: err.errorName,
      error: err.message,
      durationMs: Math.round(seconds * 1e6) / 1000,
      bytesIn: info.size ?? 0,
      ...(err.internal !== undefined ? { errorDetail: err.internal } : {}),
    };
    this.deps.access.write(line, info.wire);
  }
}
