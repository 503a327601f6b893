// A small A2A agent built on the official SDK (@a2a-js/sdk): the demo agent
// behind the embedded default config (gRPC only) and the real peer the
// tests drive the gateway against (any set of bindings).
// Behaviour by the first text part: "message" → a Message reply; "input" →
// a Task left in TASK_STATE_INPUT_REQUIRED (cancelable); "stream" → task,
// working, three artifact chunks (append/lastChunk), completed; "hold" →
// task and working, then nothing until canceled or closed (a long-running
// stream); anything else → a completed Task with an "echo: …" artifact.
import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import express from 'express';
import { AGENT_CARD_PATH, Role, StreamResponse, TaskState, type AgentCard, type Message, type Part } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import { LegacyA2AService, legacyGrpcService } from '@a2a-js/sdk/compat/v0_3/server/grpc';

export type AgentBinding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

const JSON_TYPES = ['application/json', 'application/a2a+json'];

/** What the agent saw of the last call (tests check service parameters here). */
export interface SeenCall {
  text: string;
  version: string;
  extensions: string[];
  tenant: string | undefined;
  /** Lower-case headers (HTTP) or metadata (gRPC) of the last request. */
  headers: Record<string, string>;
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function now(): string {
  return new Date().toISOString();
}

class EchoExecutor implements AgentExecutor {
  seen: SeenCall | undefined;
  lastHeaders: Record<string, string> = {};
  /** Long-running ("hold") executions by task id, released by cancel or close. */
  private readonly holds = new Map<string, () => void>();

  releaseAll(): void {
    for (const release of [...this.holds.values()]) release();
  }

  private streamed(ctx: RequestContext, bus: ExecutionEventBus, text: string, working: Message): Promise<void> | void {
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    bus.publish(
      AgentEvent.task({
        id: ctx.taskId,
        contextId: ctx.contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: now(), message: undefined },
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        ...ids,
        status: { state: TaskState.TASK_STATE_WORKING, timestamp: now(), message: working },
        metadata: undefined,
      }),
    );
    if (text === 'hold') {
      return new Promise<void>((resolve) => {
        const release = (): void => {
          this.holds.delete(ctx.taskId);
          bus.publish(
            AgentEvent.statusUpdate({
              ...ids,
              status: { state: TaskState.TASK_STATE_CANCELED, timestamp: now(), message: undefined },
              metadata: undefined,
            }),
          );
          bus.finished();
          resolve();
        };
        this.holds.set(ctx.taskId, release);
      });
    }
    const chunks = ['chunk one, ', 'chunk two, ', 'chunk three'];
    chunks.forEach((chunk, i) => {
      bus.publish(
        AgentEvent.artifactUpdate({
          ...ids,
          artifact: {
            artifactId: 'streamed',
            name: 'streamed',
            description: '',
            parts: [textPart(chunk)],
            metadata: undefined,
            extensions: [],
          },
          append: i > 0,
          lastChunk: i === chunks.length - 1,
          metadata: { chunk: i },
        }),
      );
    });
    bus.publish(
      AgentEvent.statusUpdate({
        ...ids,
        status: { state: TaskState.TASK_STATE_COMPLETED, timestamp: now(), message: undefined },
        metadata: undefined,
      }),
    );
    bus.finished();
  }

  /** StreamResponse JSON of every event the last execution published. */
  published: unknown[] = [];

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    this.published = [];
    const publish = bus.publish.bind(bus);
    bus.publish = (ev) => {
      this.published.push(StreamResponse.toJSON({ payload: { $case: ev.kind, value: ev.data } } as StreamResponse));
      publish(ev);
    };
    const first = ctx.userMessage.parts.find((p) => p.content?.$case === 'text');
    const text = first?.content?.$case === 'text' ? first.content.value : '';
    this.seen = {
      text,
      version: ctx.context.requestedVersion,
      extensions: [...(ctx.context.requestedExtensions ?? [])].map(String),
      tenant: ctx.context.tenant,
      headers: this.lastHeaders,
    };
    const agentMessage = (body: string): Message => ({
      role: Role.ROLE_AGENT,
      messageId: randomUUID(),
      parts: [textPart(body)],
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      extensions: [],
      metadata: undefined,
      referenceTaskIds: [],
    });
    if (text === 'stream' || text === 'hold') return this.streamed(ctx, bus, text, agentMessage('working on it'));
    if (text === 'message') {
      bus.publish(AgentEvent.message({ ...agentMessage('a message, not a task'), taskId: '' }));
      bus.finished();
      return;
    }
    const state = text === 'input' ? TaskState.TASK_STATE_INPUT_REQUIRED : TaskState.TASK_STATE_COMPLETED;
    bus.publish(
      AgentEvent.task({
        id: ctx.taskId,
        contextId: ctx.contextId,
        status: {
          state,
          timestamp: new Date().toISOString(),
          message: text === 'input' ? agentMessage('more input, please') : undefined,
        },
        artifacts:
          text === 'input'
            ? []
            : [
                {
                  artifactId: randomUUID(),
                  name: 'echo',
                  description: '',
                  parts: [textPart(`echo: ${text}`)],
                  metadata: undefined,
                  extensions: [],
                },
              ],
        history: [ctx.userMessage],
        metadata: { echoed: true },
      }),
    );
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const held = this.holds.get(taskId);
    if (held) {
      held();
      return;
    }
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: { state: TaskState.TASK_STATE_CANCELED, timestamp: new Date().toISOString(), message: undefined },
        metadata: undefined,
      }),
    );
    bus.finished();
  }
}

export interface EchoAgentOptions {
  bindings: AgentBinding[];
  pushNotifications?: boolean;
  extendedAgentCard?: boolean;
  /** false: the card declares an extended card but none is configured. */
  extendedCardConfigured?: boolean;
  /** Extensions the card declares (required ones must be requested by callers). */
  extensions?: Array<{ uri: string; required: boolean }>;
  streaming?: boolean;
  host?: string;
  httpPort?: number;
  grpcPort?: number;
  name?: string;
  /** The SDK's own A2A 0.3 compatibility layer on every binding (the bridge tests' reference). */
  legacyCompat?: boolean;
  /** Largest request body or gRPC message taken and answer sent (default: the SDK's 100 kB JSON, grpc-js's 4 MiB). */
  maxMessageBytes?: number;
}

export interface RunningAgent {
  card: AgentCard;
  /** Base URL of the HTTP server (card at /.well-known/agent-card.json). */
  httpUrl: string;
  jsonRpcUrl: string;
  restUrl: string;
  grpcAddress: string;
  /** The upstream URL for a binding, as the gateway config wants it. */
  urlFor(binding: AgentBinding): string;
  lastCall(): SeenCall | undefined;
  /** StreamResponse JSON of the events the last execution published, in order. */
  published(): unknown[];
  /** Requests (HTTP) and calls (gRPC, unary and streaming) the agent has open now. */
  openCalls(): number;
  /** When the agent last saw a call end (ms since epoch). */
  lastClosedAt(): number;
  close(): Promise<void>;
}

export function echoAgentCard(
  name: string,
  opts: Pick<EchoAgentOptions, 'pushNotifications' | 'extendedAgentCard' | 'streaming' | 'extensions'>,
): AgentCard {
  return {
    name,
    description: 'Echoes the text it is sent; a demo A2A agent for a2a-gateway.',
    supportedInterfaces: [],
    provider: { organization: 'a2a-gateway', url: 'https://example.com/a2a-gateway' },
    version: '1.0.0',
    capabilities: {
      streaming: opts.streaming ?? true,
      pushNotifications: opts.pushNotifications ?? true,
      extensions: (opts.extensions ?? []).map((e) => ({ ...e, description: '', params: undefined })),
      extendedAgentCard: opts.extendedAgentCard ?? false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Repeats your text.',
        tags: ['demo'],
        examples: ['hello'],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    documentationUrl: undefined,
    signatures: [],
    iconUrl: undefined,
  };
}

function recordHeaders(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (typeof v === 'string') out[k.toLowerCase()] = v;
  return out;
}

export async function startEchoAgent(opts: EchoAgentOptions): Promise<RunningAgent> {
  const host = opts.host ?? '127.0.0.1';
  const executor = new EchoExecutor();
  const card = echoAgentCard(opts.name ?? 'Echo Agent', opts);
  const extended =
    opts.extendedAgentCard && opts.extendedCardConfigured !== false
      ? async (): Promise<AgentCard> => ({ ...card, name: `${card.name} (extended)` })
      : undefined;
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    executor,
    undefined,
    opts.pushNotifications === false ? undefined : new InMemoryPushNotificationStore(),
    undefined,
    extended,
  );
  let httpServer: HttpServer | undefined;
  let open = 0;
  let closedAt = 0;
  let grpcServer: grpc.Server | undefined;
  let httpUrl = '';
  let grpcAddress = '';
  const wantsHttp = opts.bindings.some((b) => b !== 'GRPC');
  if (wantsHttp) {
    const app = express();
    app.use((req, res, next) => {
      executor.lastHeaders = recordHeaders(req.headers);
      open++;
      res.once('close', () => {
        open--;
        closedAt = Date.now();
      });
      next();
    });
    // the SDK's handlers parse JSON themselves unless a parser has already run (express.json, 100 kB by default)
    if (opts.maxMessageBytes) app.use(express.json({ limit: opts.maxMessageBytes, type: JSON_TYPES, strict: false }));
    const legacyCompat = opts.legacyCompat ? { legacyCompat: { enabled: true } } : {};
    const rpc = { requestHandler: handler, userBuilder: UserBuilder.noAuthentication, ...legacyCompat };
    app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler, ...legacyCompat }));
    if (opts.bindings.includes('JSONRPC')) app.use('/a2a/jsonrpc', jsonRpcHandler(rpc));
    if (opts.bindings.includes('HTTP+JSON')) app.use('/a2a/rest', restHandler(rpc));
    httpServer = await new Promise<HttpServer>((resolve) => {
      const s = app.listen(opts.httpPort ?? 0, host, () => resolve(s));
    });
    const addr = httpServer.address();
    httpUrl = `http://${host}:${typeof addr === 'object' && addr ? addr.port : 0}`;
  }
  if (opts.bindings.includes('GRPC')) {
    grpcServer = new grpc.Server(
      opts.maxMessageBytes
        ? {
            'grpc.max_receive_message_length': opts.maxMessageBytes,
            'grpc.max_send_message_length': opts.maxMessageBytes,
          }
        : {},
    );
    const impl = grpcService({
      requestHandler: handler,
      userBuilder: UserBuilder.noAuthentication,
    }) as unknown as Record<string, (call: { metadata: grpc.Metadata }, cb?: unknown) => unknown>;
    const wrapped: Record<string, unknown> = {};
    for (const [name, fn] of Object.entries(impl)) {
      wrapped[name] = (call: { metadata: grpc.Metadata; once?: (e: string, l: () => void) => void }, cb?: unknown) => {
        executor.lastHeaders = recordHeaders(call.metadata.getMap());
        if (!call.once) return fn(call, cb);
        // a call is open until it is answered (a stream finished, a unary call's callback) or cancelled
        open++;
        let ended = false;
        const end = (): void => {
          if (ended) return;
          ended = true;
          open--;
          closedAt = Date.now();
        };
        call.once('cancelled', end);
        if (cb === undefined) {
          call.once('finish', end);
          return fn(call, cb);
        }
        const answer = cb as (...args: unknown[]) => void;
        return fn(call, (...args: unknown[]) => {
          end();
          answer(...args);
        });
      };
    }
    grpcServer.addService(A2AService, wrapped as grpc.UntypedServiceImplementation);
    if (opts.legacyCompat) {
      const legacy = legacyGrpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication });
      grpcServer.addService(LegacyA2AService, legacy);
    }
    const port = await new Promise<number>((resolve, reject) => {
      grpcServer!.bindAsync(`${host}:${opts.grpcPort ?? 0}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      );
    });
    grpcAddress = `${host}:${port}`;
  }
  const jsonRpcUrl = `${httpUrl}/a2a/jsonrpc`;
  const restUrl = `${httpUrl}/a2a/rest`;
  const iface = { JSONRPC: jsonRpcUrl, 'HTTP+JSON': restUrl, GRPC: grpcAddress } as const;
  // with the 0.3 layer on, the same endpoints are listed again at 0.3 (the SDK serves 0.3 callers only then)
  card.supportedInterfaces = (opts.legacyCompat ? ['1.0', '0.3'] : ['1.0']).flatMap((protocolVersion) =>
    opts.bindings.map((b) => ({ url: iface[b], protocolBinding: b, tenant: '', protocolVersion })),
  );
  return {
    card,
    httpUrl,
    jsonRpcUrl,
    restUrl,
    grpcAddress,
    urlFor: (b) => iface[b],
    lastCall: () => executor.seen,
    published: () => executor.published,
    openCalls: () => open,
    lastClosedAt: () => closedAt,
    async close() {
      executor.releaseAll();
      await Promise.all([
        httpServer
          ? new Promise<void>((resolve) => {
              httpServer!.closeAllConnections();
              httpServer!.close(() => resolve());
            })
          : undefined,
        grpcServer ? new Promise<void>((resolve) => grpcServer!.tryShutdown(() => resolve())) : undefined,
      ]);
    },
  };
}
