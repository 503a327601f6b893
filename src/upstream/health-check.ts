// Active health checks of a route's endpoints (issue 14; Envoy's
// health_check): every `upstream.healthCheck.intervalMs`, each endpoint of a
// route with a check configured (the default when it has several) is probed
// — HTTP endpoints by fetching their agent card (spec §8.2: the well-known
// URI under the endpoint; any answer below 500 means the agent is up), gRPC
// endpoints by grpc.health.v1.Health/Check (SERVING, or UNIMPLEMENTED from an
// agent without the health service, means up; NOT_SERVING, an error or no
// answer in `timeoutMs` means down). The verdicts go to the Endpoints
// directory, which applies the thresholds. Each configuration (start, every
// reload) gets its own checks: new probe clients, so TLS files renewed at the
// same paths are read again, and a verdict of earlier checks that comes in
// late is dropped (their configuration may have turned checks off).
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

/** The checks of one configuration: their timers and their probes' clients (made on first use). */
class Checks {
  readonly timers: NodeJS.Timeout[] = [];
  readonly channels = new Map<string, grpc.Client>();
  readonly agents = new Map<string, Agent>();
  /** Replaced by a reload's checks, or the gateway is closing: this one's verdicts no longer count. */
  closed = false;

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    // (a probe under way may end early with its client: its verdict no longer counts anyway)
    for (const c of this.channels.values()) c.close();
    for (const a of this.agents.values()) void a.close();
    this.channels.clear();
    this.agents.clear();
  }
}

export class HealthChecker {
  private checks = new Checks();

  constructor(
    private readonly endpoints: Endpoints,
    private readonly log: Logger,
  ) {}

  /**
   * Checks the routes in force (after start and after each reload): one timer per route with checks. The previous
   * configuration's checks end here, their clients with them, so the next probe reads the TLS files again.
   */
  watch(routes: readonly RouteConfig[]): void {
    this.stop();
    const checks = new Checks();
    this.checks = checks;
    for (const route of routes) {
      const hc = route.upstream.healthCheck;
      if (!hc) continue;
      const set = this.endpoints.of(route);
      const round = (): void =>
        void this.round(set, checks).catch((e: unknown) =>
          this.log.error({ route: route.name, err: (e as Error).message }, 'a health check round failed'),
        );
      round();
      const timer = setInterval(round, hc.intervalMs);
      timer.unref();
      checks.timers.push(timer);
    }
  }

  /** Probes every endpoint of the set once; a verdict is applied only while `checks` are the ones in force. */
  private async round(set: EndpointSet, checks: Checks): Promise<void> {
    const hc = set.route.upstream.healthCheck;
    if (!hc) return;
    await Promise.all(
      set.members.map(async (m) => {
        const why = await this.probe(m, hc.timeoutMs, checks).catch((e: unknown) => (e as Error).message);
        if (!checks.closed) return this.endpoints.checked(m, hc, why === undefined, why);
        this.log.debug(
          { route: set.route.name, endpoint: m.endpoint.name },
          'a health check outlived its checks (a reload or a stop); its verdict is not applied',
        );
      }),
    );
  }

  /**
   * undefined when the endpoint is up, else why not. Async, so that what throws while the probe's client is made
   * (grpc-js reads the TLS files then: an unreadable or mismatched key after a half-done renewal) fails this check
   * instead of escaping its round as an unhandled rejection, which ends the process.
   */
  private async probe(m: Member, timeoutMs: number, checks: Checks): Promise<string | undefined> {
    return m.route.upstream.binding === 'GRPC'
      ? await this.probeGrpc(m, timeoutMs, checks)
      : await this.probeHttp(m, timeoutMs, checks);
  }

  private async probeHttp(m: Member, timeoutMs: number, checks: Checks): Promise<string | undefined> {
    const dispatcher = agentFor(checks.agents, m.route.upstream.tls);
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

  private probeGrpc(m: Member, timeoutMs: number, checks: Checks): Promise<string | undefined> {
    const tls = m.route.upstream.tls;
    const address = grpcAddressOf(m);
    const key = grpcKey(m);
    let client = checks.channels.get(key);
    if (!client) {
      const { credentials, options } = grpcChannel(tls);
      client = new grpc.Client(address, credentials, { ...options, 'grpc.use_local_subchannel_pool': 1 });
      checks.channels.set(key, client);
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

  /** No checks from now on; a probe under way is not applied. */
  stop(): void {
    this.checks.close();
  }

  close(): void {
    this.stop();
    this.log.debug('health checks stopped');
  }
}
