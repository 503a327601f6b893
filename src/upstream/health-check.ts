// Active health checks of a route's endpoints (issue 14; Envoy's
// health_check): every `upstream.healthCheck.intervalMs`, each endpoint of a
// route with a check configured (the default when it has several) is probed
// — HTTP endpoints by fetching their agent card (spec §8.2: the well-known
// URI under the endpoint; any answer below 500 means the agent is up), gRPC
// endpoints by grpc.health.v1.Health/Check (SERVING, or UNIMPLEMENTED from an
// agent without the health service, means up; NOT_SERVING, an error or no
// answer in `timeoutMs` means down). The verdicts go to the Endpoints
// directory, which applies the thresholds.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Agent } from '../util/undici.js';
import { getWithin } from './pulled-answer.js';
import { wellKnownCardUrl } from '../card/upstream-card.js';
import type { RouteConfig } from '../config/types.js';
import { agentFor, grpcChannel, tlsKey } from '../tls/upstream-tls.js';
import type { EndpointSet, Endpoints, Member } from './endpoints.js';
import { grpcAddress } from './grpc-session.js';

const HEALTH_CHECK = '/grpc.health.v1.Health/Check';
/** HealthCheckResponse{status: SERVING} and an empty one (status UNKNOWN, taken as not serving). */
const NOT_SERVING = 2;

/** The card URL probed for an HTTP endpoint (the card store's own rule, whatever card.url says). */
const probeUrl = (route: RouteConfig): string => wellKnownCardUrl(route.upstream.url, route.upstream.binding);
const grpcAddressOf = (m: Member): string => grpcAddress(m.route.upstream.url);
const grpcKey = (m: Member): string => `${grpcAddressOf(m)} ${tlsKey(m.route.upstream.tls)}`;

export class HealthChecker {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly channels = new Map<string, grpc.Client>();
  private readonly agents = new Map<string, Agent>();

  constructor(
    private readonly endpoints: Endpoints,
    private readonly log: Logger,
  ) {}

  /** Checks the routes in force (after start and after each reload): one timer per route with checks. */
  watch(routes: readonly RouteConfig[]): void {
    this.stop();
    this.prune(routes);
    for (const route of routes) {
      const hc = route.upstream.healthCheck;
      if (!hc) continue;
      const set = this.endpoints.of(route);
      const round = (): void => void this.round(set);
      round();
      const timer = setInterval(round, hc.intervalMs);
      timer.unref();
      this.timers.set(route.name, timer);
    }
  }

  /** Probes every endpoint of the set once (the tests and the first round at start use this). */
  async round(set: EndpointSet): Promise<void> {
    const hc = set.route.upstream.healthCheck;
    if (!hc) return;
    await Promise.all(
      set.members.map(async (m) => {
        const why = await this.probe(m, hc.timeoutMs).catch((e: unknown) => (e as Error).message);
        this.endpoints.checked(m, hc, why === undefined, why);
      }),
    );
  }

  /** undefined when the endpoint is up, else why not. */
  private probe(m: Member, timeoutMs: number): Promise<string | undefined> {
    return m.route.upstream.binding === 'GRPC' ? this.probeGrpc(m, timeoutMs) : this.probeHttp(m, timeoutMs);
  }

  private async probeHttp(m: Member, timeoutMs: number): Promise<string | undefined> {
    const dispatcher = agentFor(this.agents, m.route.upstream.tls);
    // the whole check within its timeout, connecting included (an endpoint that leaves a TLS handshake unanswered
    // fails its check at the timeout, not at undici's 10 s connect timeout)
    const res = await getWithin(
      dispatcher,
      probeUrl(m.route),
      { accept: 'application/json', 'a2a-version': '1.0' },
      timeoutMs,
      m.route.maxResponseBytes,
    );
    return res.status < 500 ? undefined : `health check answered HTTP ${res.status}`;
  }

  /** The probes' clients no route in force uses any more (a reload removed their endpoints) are closed. */
  private prune(routes: readonly RouteConfig[]): void {
    const members = routes.filter((r) => r.upstream.healthCheck).flatMap((r) => this.endpoints.of(r).members);
    const channels = new Set(members.map(grpcKey));
    const agents = new Set(members.map((m) => tlsKey(m.route.upstream.tls)));
    for (const [k, c] of this.channels) {
      if (channels.has(k)) continue;
      c.close();
      this.channels.delete(k);
    }
    for (const [k, a] of this.agents) {
      if (agents.has(k)) continue;
      void a.close();
      this.agents.delete(k);
    }
  }

  private probeGrpc(m: Member, timeoutMs: number): Promise<string | undefined> {
    const tls = m.route.upstream.tls;
    const address = grpcAddressOf(m);
    const key = grpcKey(m);
    let client = this.channels.get(key);
    if (!client) {
      const { credentials, options } = grpcChannel(tls);
      client = new grpc.Client(address, credentials, { ...options, 'grpc.use_local_subchannel_pool': 1 });
      this.channels.set(key, client);
    }
    return new Promise((resolve) => {
      client.makeUnaryRequest(
        HEALTH_CHECK,
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.alloc(0),
        { deadline: Date.now() + timeoutMs },
        (err, res) => {
          if (err) resolve(err.code === grpc.status.UNIMPLEMENTED ? undefined : `health check: ${err.details}`);
          // HealthCheckResponse: field 1 (status), a varint
          else resolve(res?.[0] === 0x08 && res[1] !== NOT_SERVING ? undefined : 'health check: NOT_SERVING');
        },
      );
    });
  }

  stop(): void {
    for (const t of this.timers.values()) clearInterval(t);
    this.timers.clear();
  }

  close(): void {
    this.stop();
    for (const c of this.channels.values()) c.close();
    this.channels.clear();
    for (const a of this.agents.values()) void a.close();
    this.agents.clear();
    this.log.debug('health checks stopped');
  }
}
