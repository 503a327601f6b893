// One call as it goes through the request pipeline (pipeline.ts): what the
// inbound edge knew when the call arrived (binding, caller view, the method
// and tenant it addressed, the routes its host and path matched, and how to
// decode or forward its request), what each stage adds (the final route, the
// caller's identity, the envelope, the upstream interface), and the answer
// that comes back. Translated and pass-through calls, unary and streaming,
// are the same Call; only the terminal differs. Spec: §3.1, §3.2.6, §3.3.
import type { Readable } from 'node:stream';
import type { ResolvedUpstream } from '../card/upstream-card.js';
import type { Binding, ProtocolVersion, RouteConfig } from '../config/types.js';
import type { Envelope } from '../core/envelope.js';
import type { A2AError } from '../errors/a2a-error.js';
import type { AnyRequest, AnyResponse, MethodInfo } from '../core/methods.js';
import type { StreamResponse } from '../gen/a2a_pb.js';
import type { RequestView, Wire } from '../http/request.js';
import type { SseEventCount } from '../sse/event-count.js';
import type { Generation } from '../routing/generation.js';
import type { Member } from '../upstream/endpoints.js';
import type { CallSignal } from '../util/call-signal.js';

/**
 * What comes back from the pipeline: the typed answer — written in the caller's form when its Call has a `writer` —
 * or (pass-through) the upstream's as it came. A stream's `quietMs`: its first event may be long in coming (a 0.3
 * agent's resubscribe to a quiet task sends nothing until the task changes), so an HTTP edge opens its answer
 * (status, headers, keep-alives) after this long without it instead of holding the caller without a response head.
 */
export type Answer<W = unknown> =
  | { kind: 'unary'; response: AnyResponse }
  | { kind: 'stream'; events: AsyncIterable<StreamResponse>; quietMs?: number }
  /** A translated answer as the Call's writer wrote it (stage `observe`). */
  | { kind: 'written'; value: W }
  | { kind: 'writtenStream'; events: AsyncIterable<W>; quietMs?: number }
  /** gRPC pass-through: the upstream's message bytes (unary) or messages (stream). */
  | { kind: 'relayUnary'; bytes: Buffer }
  | { kind: 'relayStream'; messages: AsyncIterable<Buffer> }
  /**
   * HTTP pass-through: the upstream's status, the headers passed back, and the body (whole when small, else to pipe);
   * `error`: what a successful HTTP answer carries in its binding's form (a JSON-RPC error object), for log and metrics.
   */
  | {
      kind: 'relayHttp';
      status: number;
      headers: Record<string, string>;
      body: Readable | Buffer;
      error?: A2AError;
      /** A streaming method's piped answer: its SSE events, counted as they pass. */
      sse?: SseEventCount;
    };

/** Where a pass-through sends the caller's request: the route's upstream, its pools, and the headers to send. */
export interface RelayTarget {
  route: RouteConfig;
  url: string;
  /** Service parameters and credentials as the upstream gets them (lower-case names). */
  headers: Record<string, string>;
  signal: CallSignal;
  generation: Generation;
  /** A streaming method: the relay takes the upstream's stream budget, not its unary one. */
  streaming: boolean;
}

/** What an inbound binding hands the pipeline besides the head: how to read, or forward, its request. */
export interface InboundRequest {
  /** Bytes of the request body or message (checked against the final route's maxBodyBytes). */
  readonly size: number;
  /** The typed request (translated calls), read only after authentication; A2AError on bad input. */
  decode(version: string): AnyRequest;
  /** Sends the request as it came to an upstream of the same binding (pass-through routes). */
  relay?(target: RelayTarget): Promise<Answer>;
  /**
   * A pass-through's tenants named besides the head the route was chosen by (a REST query's or JSON body's
   * `tenant`, JSON-RPC `params.tenant`), each as the request has it, read without decoding the request.
   */
  namedTenants?(): unknown[];
}

/**
 * How an inbound binding writes a translated answer in its caller's form (gRPC bytes, a JSON body), run by stage
 * `observe` inside the pipeline: an agent's answer the caller's binding or version cannot carry (a part with no 0.3
 * form) is the call's failure, INVALID_AGENT_RESPONSE (§3.3.2), logged and counted as the caller gets it. A writer is
 * one object per binding and dialect, not one per call.
 */
export interface AnswerWriter<W> {
  unary(response: AnyResponse, method: MethodInfo): W;
  event(event: StreamResponse, method: MethodInfo): W;
}

export interface Call<W = unknown> {
  readonly inbound: Binding;
  readonly requestId: string;
  /** Aborted when the caller goes away. */
  readonly signal: CallSignal;
  readonly view: RequestView;
  /** What the edge wrote back (status, bytes), for the access log line. */
  readonly wire: Wire;
  /** process.hrtime.bigint() when the call arrived. */
  readonly started: bigint;
  /** The routes and upstreams in force when the call arrived (a reload does not move it). */
  readonly generation: Generation;
  /** The routes the host and path matched, most specific first (gRPC: every route). */
  readonly candidates: readonly RouteConfig[];
  readonly method: MethodInfo;
  /** The A2A version of the caller's wire form (its method names, paths or gRPC service; 0.3 through the bridge). */
  readonly dialect: ProtocolVersion;
  /** The tenant the caller addressed ("" when none). */
  readonly tenant: string;
  readonly request: InboundRequest;
  /** Writes the translated answer in the caller's form (none: the edge gets it typed, `unary` or `stream`). */
  readonly writer?: AnswerWriter<W>;
  /** Stage `route`: the route that serves the call. */
  route?: RouteConfig;
  /** Stage `authenticate`: who the caller is ("jwt:alice"), when the route authenticates. */
  caller?: string;
  /** The A2A version the caller speaks (Major.Minor). */
  version?: string;
  /** Stage `decode`: the envelope (translated calls). */
  envelope?: Envelope;
  /** Stage `placeEndpoint`: the endpoint (agent replica) the call went to, on routes with several. */
  endpoint?: Member;
  /** Stage `selectUpstream`: the interface the call went to. */
  upstream?: ResolvedUpstream;
  /**
   * Stages `selectUpstream` and `placeEndpoint`: the call was sent once more after a failure that may have reached
   * the agent (a reset connection, a timeout). One such resend per call, wherever it happens (as Envoy's default
   * retry policy): a reset then a failover would otherwise send an idempotent call up to four times. A refused
   * connection never reached the agent and does not count.
   */
  resent?: true;
  /** Stage `decode`: the headers forwarded upstream (allow-list, trace context) before the credential policy. */
  forwarded?: Record<string, string>;
  /** Stage `decode`: A2A-Extensions the caller asked for. */
  extensions?: string[];
  /** Stage `upstreamPolicy`: the headers a pass-through sends upstream. */
  relayHeaders?: Record<string, string>;
  /** Stage `observe`: the traceparent sent upstream (the caller's, a new trace, or the gateway's span). */
  traceparent?: string;
  /** Stage `observe`, with tracing: the tracestate sent upstream. */
  tracestate?: string;
}

/**
 * Whether the call is forwarded as it came (a pass-through route reached over
 * its upstream's own binding and version). Never the extended card: it names
 * the agent's own endpoints, and only the translated path rewrites them to the gateway's.
 */
export function isRelay(call: Call): boolean {
  const r = call.route;
  return (
    r !== undefined &&
    r.passThrough &&
    call.method.name !== 'GetExtendedAgentCard' &&
    r.upstream.binding === call.inbound &&
    r.upstream.version === call.dialect &&
    call.request.relay !== undefined
  );
}
