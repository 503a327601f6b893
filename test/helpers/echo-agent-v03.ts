// An A2A 0.3 agent built on the official SDK at 0.3.14 (alias a2a-sdk-03):
// the real 0.3 peer of the bridge tests (issue 13), with the behaviours of
// the 1.3.0 echo agent (examples/demo-agent/echo-agent.ts) by the first text
// part: "message" → a Message; "input" → a Task left input-required
// (cancelable); "stream" → task, working, three artifact chunks
// (append/lastChunk), completed; "hold" → task and working, then nothing
// until canceled or closed; anything else → a completed Task with an
// "echo: …" artifact. Push notifications (stored; the sender only records, so
// nothing leaves 127.0.0.1) and the authenticated extended card are on by
// default. Each binding listens on port 0 on 127.0.0.1; the 0.3 card names
// them (url + preferredTransport + additionalInterfaces, protocolVersion 0.3.0).
// The agent records what it saw of the last call: headers (HTTP) or metadata
// (gRPC), the A2A-Version sent ("" when none) and the extensions requested —
// each call's own, carried to its execution by the SDK's ServerCallContext (its
// user, made per request by the user builder), so a card fetch or another call
// in between does not change them.
import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import express from 'express';
import type { AgentCard, Message, Task, TaskState } from 'a2a-sdk-03';
import {
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  UnauthenticatedUser,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from 'a2a-sdk-03/server';
import { agentCardHandler, jsonRpcHandler, restHandler } from 'a2a-sdk-03/server/express';
import { A2AService, grpcService } from 'a2a-sdk-03/server/grpc';

export type V03Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

export interface SeenV03Call {
  text: string;
  /** The binding the call came in on. */
  binding: V03Binding;
  /** The A2A-Version header or metadata the call carried ("" when none). */
  version: string;
  /** Extensions the call requested (X-A2A-Extensions), as the SDK read them. */
  extensions: string[];
  headers: Record<string, string>;
}

export interface V03AgentOptions {
  /** The bindings to serve; the first is the card's preferredTransport. */
  bindings: V03Binding[];
  pushNotifications?: boolean;
  extendedAgentCard?: boolean;
  /** false: the card declares an extended card but none is configured (AuthenticatedExtendedCardNotConfigured). */
  extendedCardConfigured?: boolean;
  streaming?: boolean;
  /** Extension URIs the card declares (the SDK passes only declared ones to the executor). */
  extensions?: string[];
  name?: string;
}

export interface RunningV03Agent {
  card: AgentCard;
  httpUrl: string;
  /** Where the card is served (/.well-known/agent-card.json on the HTTP server). */
  cardUrl: string;
  urlFor(binding: V03Binding): string;
  lastCall(): SeenV03Call | undefined;
  /** Tasks the push sender was asked to notify about (ids), in order. */
  pushed(): string[];
  close(): Promise<void>;
}

const now = (): string => new Date().toISOString();

/** One call's caller as the SDK hands it to the executor (ServerCallContext.user): unauthenticated, as before. */
class Caller extends UnauthenticatedUser {
  constructor(
    readonly binding: V03Binding,
    readonly headers: Record<string, string>,
  ) {
    super();
  }
}

class EchoV03 implements AgentExecutor {
  seen: SeenV03Call | undefined;
  private readonly holds = new Map<string, () => void>();

  releaseAll(): void {
    for (const release of [...this.holds.values()]) release();
  }

  private status(bus: ExecutionEventBus, taskId: string, contextId: string, state: TaskState, final: boolean): void {
    bus.publish({ kind: 'status-update', taskId, contextId, status: { state, timestamp: now() }, final });
  }

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const first = ctx.userMessage.parts.find((p) => p.kind === 'text');
    const text = first?.kind === 'text' ? first.text : '';
    const caller = ctx.context?.user;
    if (!(caller instanceof Caller)) throw new Error('a call without its Caller: every handler builds one');
    this.seen = {
      text,
      binding: caller.binding,
      version: caller.headers['a2a-version'] ?? '',
      extensions: [...(ctx.context?.requestedExtensions ?? [])],
      headers: caller.headers,
    };
    const { taskId, contextId } = ctx;
    const agentMessage = (body: string): Message => ({
      kind: 'message',
      role: 'agent',
      messageId: randomUUID(),
      parts: [{ kind: 'text', text: body }],
      taskId,
      contextId,
    });
    const task = (state: TaskState, extra: Partial<Task> = {}): Task => ({
      kind: 'task',
      id: taskId,
      contextId,
      status: { state, timestamp: now() },
      history: [ctx.userMessage],
      ...extra,
    });
    if (text === 'message') {
      bus.publish({ ...agentMessage('a message, not a task'), taskId: undefined });
      bus.finished();
      return;
    }
    if (text === 'stream' || text === 'hold') {
      bus.publish(task('submitted'));
      bus.publish({
        kind: 'status-update',
        taskId,
        contextId,
        status: { state: 'working', timestamp: now(), message: agentMessage('working on it') },
        final: false,
      });
      if (text === 'hold') {
        return new Promise<void>((resolve) => {
          this.holds.set(taskId, () => {
            this.holds.delete(taskId);
            this.status(bus, taskId, contextId, 'canceled', true);
            bus.finished();
            resolve();
          });
        });
      }
      const chunks = ['chunk one, ', 'chunk two, ', 'chunk three'];
      chunks.forEach((chunk, i) =>
        bus.publish({
          kind: 'artifact-update',
          taskId,
          contextId,
          artifact: { artifactId: 'streamed', name: 'streamed', parts: [{ kind: 'text', text: chunk }] },
          append: i > 0,
          lastChunk: i === chunks.length - 1,
          metadata: { chunk: i },
        }),
      );
      this.status(bus, taskId, contextId, 'completed', true);
      bus.finished();
      return;
    }
    if (text === 'input') {
      bus.publish(task('input-required', { status: { state: 'input-required', message: agentMessage('more input') } }));
    } else {
      const artifact = {
        artifactId: randomUUID(),
        name: 'echo',
        parts: [{ kind: 'text' as const, text: `echo: ${text}` }],
      };
      bus.publish(task('completed', { artifacts: [artifact], metadata: { echoed: true } }));
    }
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const held = this.holds.get(taskId);
    if (held) return held();
    this.status(bus, taskId, '', 'canceled', true);
    bus.finished();
  }
}

function recordHeaders(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (typeof v === 'string') out[k.toLowerCase()] = v;
  return out;
}

export async function startEchoAgentV03(opts: V03AgentOptions): Promise<RunningV03Agent> {
  const host = '127.0.0.1';
  const executor = new EchoV03();
  const pushed: string[] = [];
  const card: AgentCard = {
    protocolVersion: '0.3.0',
    name: opts.name ?? 'Echo Agent 0.3',
    description: 'Echoes the text it is sent; an A2A 0.3 agent on @a2a-js/sdk 0.3.14.',
    version: '0.3.14',
    url: '',
    provider: { organization: 'a2a-gateway', url: 'https://example.com/a2a-gateway' },
    capabilities: {
      streaming: opts.streaming ?? true,
      pushNotifications: opts.pushNotifications ?? true,
      extensions: (opts.extensions ?? []).map((uri) => ({ uri, required: false })),
    },
    supportsAuthenticatedExtendedCard: opts.extendedAgentCard ?? true,
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Repeats your text.', tags: ['demo'] }],
  };
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    executor,
    undefined,
    new InMemoryPushNotificationStore(),
    { send: async (task) => void pushed.push(task.id) },
    opts.extendedCardConfigured === false ? undefined : async () => ({ ...card, name: `${card.name} (extended)` }),
  );

  // each request's caller, with its binding and headers, made by the SDK's user builder and carried with the call
  const httpCaller = (binding: V03Binding) => (req: express.Request) =>
    Promise.resolve(new Caller(binding, recordHeaders(req.headers)));
  const app = express();
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  if (opts.bindings.includes('JSONRPC'))
    app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: httpCaller('JSONRPC') }));
  if (opts.bindings.includes('HTTP+JSON'))
    app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: httpCaller('HTTP+JSON') }));
  const httpServer = await new Promise<HttpServer>((resolve) => {
    const s = app.listen(0, host, () => resolve(s));
  });
  const addr = httpServer.address();
  const httpUrl = `http://${host}:${typeof addr === 'object' && addr ? addr.port : 0}`;

  let grpcServer: grpc.Server | undefined;
  let grpcAddress = '';
  if (opts.bindings.includes('GRPC')) {
    grpcServer = new grpc.Server();
    const userBuilder = (call: { metadata: grpc.Metadata }) =>
      Promise.resolve(new Caller('GRPC', recordHeaders(call.metadata.getMap())));
    grpcServer.addService(A2AService, grpcService({ requestHandler: handler, userBuilder }));
    const port = await new Promise<number>((resolve, reject) =>
      grpcServer!.bindAsync(`${host}:0`, grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    grpcAddress = `${host}:${port}`;
  }

  const urls: Record<V03Binding, string> = {
    JSONRPC: `${httpUrl}/a2a/jsonrpc`,
    'HTTP+JSON': `${httpUrl}/a2a/rest`,
    GRPC: grpcAddress,
  };
  card.url = urls[opts.bindings[0]!];
  card.preferredTransport = opts.bindings[0]!;
  card.additionalInterfaces = opts.bindings.map((b) => ({ url: urls[b], transport: b }));
  return {
    card,
    httpUrl,
    cardUrl: `${httpUrl}/.well-known/agent-card.json`,
    urlFor: (b) => urls[b],
    lastCall: () => executor.seen,
    pushed: () => pushed,
    async close() {
      executor.releaseAll();
      await Promise.all([
        new Promise<void>((resolve) => {
          httpServer.closeAllConnections();
          httpServer.close(() => resolve());
        }),
        grpcServer ? new Promise<void>((resolve) => grpcServer!.tryShutdown(() => resolve())) : undefined,
      ]);
    },
  };
}
