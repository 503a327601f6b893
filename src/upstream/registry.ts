// The upstream connections of one configuration generation (the model of
// Envoy's cluster manager): undici Pools per HTTP origin and TLS settings —
// one for unary calls, one for streams, so that long-lived streams never
// hold the connections unary calls need — one node:http2 session per gRPC
// address and TLS settings (grpc-session.ts) for translated calls and the
// pass-through relay alike, and one client per upstream interface and route
// settings on top of them. Each origin has two budgets (Envoy's circuit breakers:
// limits.upstreamConnections unary calls and limits.upstreamStreams streams in
// flight); a call over its budget is UPSTREAM_OVERLOADED at once, never queued.
// The budgets' counts outlive generations (UpstreamBudgets, one per gateway):
// a call or stream still running on a retired generation holds the agent as
// much as a new one, so a reload never grants a second budget.
// TLS files are read when a pool or session is made, so a reload (a new
// generation) re-reads renewed certificates. After a reload the previous
// generation is retired: it closes everything once its last call has ended.
import { Pool } from '../util/undici.js';
import type { Binding, GatewayLimits, ProtocolVersion, UpstreamTls } from '../config/types.js';
import { RETRY_INFO_TYPE } from '../core/limits.js';
import type { UpstreamClient, UpstreamTarget } from '../core/upstream.js';
import { A2AError } from '../errors/a2a-error.js';
import { tlsKey, undiciConnect } from '../tls/upstream-tls.js';
import { GrpcSession } from './grpc-session.js';

/** Unary calls and streams have budgets (and, over HTTP/1.1, connections) of their own. */
export type CallKind = 'unary' | 'stream';

/** Idle upstream connections are kept below Node's 5 s server default, so a socket the agent is closing is seldom reused. */
export const KEEP_ALIVE_MS = 4_000;

/** How an upstream binding's client is made from a target and this generation's shared pools and sessions. */
export type ClientFactory = (target: UpstreamTarget, upstreams: UpstreamRegistry) => UpstreamClient;
/** A client factory per upstream binding and A2A version. */
export type ClientFactories = Record<Binding, Record<ProtocolVersion, ClientFactory>>;

/** The calls in flight per upstream origin and kind, counted across every generation of one gateway. */
export class UpstreamBudgets {
  private readonly inUse = new Map<string, number>();

  /** Takes one unit of `key`'s budget of `cap`: the release (safe to call more than once), or undefined when full. */
  take(key: string, cap: number): (() => void) | undefined {
    const n = this.inUse.get(key) ?? 0;
    if (n >= cap) return undefined;
    this.inUse.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inUse.get(key) ?? 1) - 1;
      if (left === 0) this.inUse.delete(key);
      else this.inUse.set(key, left);
    };
  }
}

export class UpstreamRegistry {
  private readonly pools = new Map<string, Pool>();
  private readonly sessions = new Map<string, GrpcSession>();
  private readonly clients = new Map<string, UpstreamClient>();
  private inFlight = 0;
  private retired = false;
  private closed: Promise<void> | undefined;
  private onClosed: (() => void) | undefined;

  constructor(
    private readonly factories: ClientFactories,
    /** The budgets per upstream origin (limits.upstreamConnections, limits.upstreamStreams). */
    private readonly limits: Pick<GatewayLimits, 'upstreamConnections' | 'upstreamStreams'>,
    /** Shared with the gateway's other generations (a registry of its own when alone, as in unit tests). */
    private readonly budgets = new UpstreamBudgets(),
  ) {}

  private cap(kind: CallKind): number {
    return kind === 'stream' ? this.limits.upstreamStreams : this.limits.upstreamConnections;
  }

  /**
   * One call of `kind` to `origin` ("http://host:port", "grpc://host:port")
   * takes a unit of its budget: the release is returned (safe to call more
   * than once); over the budget it is UPSTREAM_OVERLOADED at once.
   */
  admit(origin: string, kind: CallKind): () => void {
    const cap = this.cap(kind);
    const release = this.budgets.take(`${kind} ${origin}`, cap);
    if (release) return release;
    throw A2AError.of(
      'UPSTREAM_OVERLOADED',
      `the agent already has ${cap} ${kind === 'stream' ? 'streams' : 'calls'} in flight through this gateway (limits.${kind === 'stream' ? 'upstreamStreams' : 'upstreamConnections'}); retry later`,
      { details: [{ '@type': RETRY_INFO_TYPE, retryDelay: '1s' }], internal: `upstream ${origin}` },
    );
  }

  /** The keep-alive pool for an HTTP(S) origin and kind of call (as many connections as the kind's budget). */
  httpPool(origin: string, tls: UpstreamTls | undefined, kind: CallKind = 'unary'): Pool {
    const key = `${origin} ${tlsKey(tls)} ${kind}`;
    let p = this.pools.get(key);
    if (!p) {
      const connect = undiciConnect(tls);
      p = new Pool(origin, {
        connections: this.cap(kind),
        pipelining: 1,
        keepAliveTimeout: KEEP_ALIVE_MS,
        ...(connect ? { connect } : {}),
      });
      this.pools.set(key, p);
    }
    return p;
  }

  /** The HTTP/2 session(s) to a gRPC address ("host:port"): translated calls and the pass-through relay. */
  grpcSession(address: string, tls: UpstreamTls | undefined): GrpcSession {
    const key = `${address} ${tlsKey(tls)}`;
    let s = this.sessions.get(key);
    if (!s) {
      s = new GrpcSession(address, tls);
      this.sessions.set(key, s);
    }
    return s;
  }

  /** The client for an upstream interface with a route's settings. */
  client(binding: Binding, target: UpstreamTarget): UpstreamClient {
    const key = `${binding} ${target.version} ${target.url} ${target.timeoutMs} ${target.maxSseEventBytes} ${target.maxResponseBytes} ${tlsKey(target.tls)}`;
    let c = this.clients.get(key);
    if (!c) {
      c = this.factories[binding][target.version](target, this);
      this.clients.set(key, c);
    }
    return c;
  }

  /** A call starts on this generation. */
  acquire(): void {
    this.inFlight++;
  }

  /** A call on this generation ended. */
  release(): void {
    this.inFlight--;
    if (this.retired && this.inFlight === 0) void this.close();
  }

  get activeCalls(): number {
    return this.inFlight;
  }

  /** No new calls come: close once the last one ends (at once when none is open); resolves when closed. */
  retire(): Promise<void> {
    this.retired = true;
    if (this.inFlight === 0) return this.close();
    return new Promise((resolve) => (this.onClosed = resolve));
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      const pools = [...this.pools.values()];
      this.pools.clear();
      this.clients.clear();
      for (const s of this.sessions.values()) s.close();
      this.sessions.clear();
      await Promise.all(pools.map((p) => p.close().catch(() => p.destroy())));
      this.onClosed?.();
    })();
    return this.closed;
  }
}
