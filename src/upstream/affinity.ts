// Task affinity (issue 14): the endpoint that created a task answers its
// follow-up calls (GetTask, CancelTask, SubscribeToTask, SendMessage with its
// taskId, the push-config calls), and a new task in a known context goes
// where the context lives. The task→endpoint and context→endpoint maps are
// learned from answers (the Task in a result, the ids of the first stream
// event that names them), kept for `upstream.affinityTtlSeconds` after their
// last use, in a process-local table and, with `state.redis`, in Redis, so
// every gateway replica knows them. Redis away: lookups answer from the local
// table, what is learned meanwhile is written to Redis when it comes back.
import type { Logger } from 'pino';
import type { Envelope } from '../core/envelope.js';
import type { AnyResponse } from '../core/methods.js';
import type { Message, StreamResponse, Task } from '../gen/a2a_pb.js';
import type { SharedState } from '../state/redis.js';

export type AffinityKind = 'task' | 'context';

/** The ids a request or an answer names ("" = none). */
export interface TaskIds {
  task: string;
  context: string;
}

const NONE: TaskIds = { task: '', context: '' };
const DONE: Promise<void> = Promise.resolve();

/** The task (or, for a new task, the context) a request is about. */
export function requestIds(env: Envelope): TaskIds {
  const r = env.request;
  switch (r.case) {
    case 'sendMessage':
      return { task: r.value.message?.taskId ?? '', context: r.value.message?.contextId ?? '' };
    case 'getTask':
    case 'cancelTask':
    case 'subscribeToTask':
      return { task: r.value.id, context: '' };
    case 'createTaskPushNotificationConfig':
    case 'getTaskPushNotificationConfig':
    case 'listTaskPushNotificationConfigs':
    case 'deleteTaskPushNotificationConfig':
      return { task: r.value.taskId, context: '' };
    case 'listTasks':
      return { task: '', context: r.value.contextId };
    default:
      return NONE;
  }
}

const ofTask = (t: Task): TaskIds => ({ task: t.id, context: t.contextId });
const ofMessage = (m: Pick<Message, 'taskId' | 'contextId'>): TaskIds => ({ task: m.taskId, context: m.contextId });

/** The ids an answer (unary result or stream event) names. */
export function answerIds(response: AnyResponse | StreamResponse): TaskIds {
  switch (response.$typeName) {
    case 'lf.a2a.v1.Task':
      return ofTask(response);
    case 'lf.a2a.v1.SendMessageResponse':
    case 'lf.a2a.v1.StreamResponse': {
      const p = response.payload;
      if (p.case === 'task') return ofTask(p.value);
      if (p.case === 'message') return ofMessage(p.value);
      if (p.case === 'statusUpdate' || p.case === 'artifactUpdate') return ofMessage(p.value);
      return NONE;
    }
    default:
      return NONE;
  }
}

interface LocalEntry {
  endpoint: string;
  expires: number;
  /** When it was last written to Redis (0 = not yet). */
  synced: number;
}

/** Entries kept in the process-local table at most (the oldest go first). */
const LOCAL_MAX = 100_000;

export class Affinity {
  private readonly local = new Map<string, LocalEntry>();
  private warned = false;

  constructor(
    private readonly shared: SharedState | undefined,
    private readonly log: Logger,
  ) {
    shared?.onReconnect(() => this.resync());
  }

  private static key(route: string, kind: AffinityKind, id: string): string {
    return `${route}\u0000${kind}\u0000${id}`;
  }

  private remember(key: string, endpoint: string, ttlMs: number, synced: number): void {
    this.local.delete(key);
    this.local.set(key, { endpoint, expires: Date.now() + ttlMs, synced });
    if (this.local.size > LOCAL_MAX) this.local.delete(this.local.keys().next().value!);
  }

  /** The endpoint (its URL) that holds the task or context, if known here or in Redis. */
  async owner(route: string, kind: AffinityKind, id: string, ttlSeconds: number): Promise<string | undefined> {
    const key = Affinity.key(route, kind, id);
    const hit = this.local.get(key);
    if (hit && hit.expires > Date.now()) return hit.endpoint;
    if (hit) this.local.delete(key);
    const shared = this.shared;
    if (!shared?.ready) return undefined;
    try {
      const endpoint = await shared.client.get(shared.key('affinity', route, kind, id));
      if (endpoint === null) return undefined;
      this.remember(key, endpoint, ttlSeconds * 1000, Date.now());
      return endpoint;
    } catch (e) {
      this.warnOnce(e);
      return undefined;
    }
  }

  /**
   * Records (or refreshes) where a task or context lives; resolves once Redis
   * has it (or has failed), so another replica asked next finds it.
   */
  learn(route: string, kind: AffinityKind, id: string, endpoint: string, ttlSeconds: number): Promise<void> {
    if (id === '') return DONE;
    const key = Affinity.key(route, kind, id);
    const now = Date.now();
    const had = this.local.get(key);
    // a refresh within a tenth of the TTL needs no new write to Redis
    const fresh = had?.endpoint === endpoint && had.synced > 0 && now - had.synced < ttlSeconds * 100;
    this.remember(key, endpoint, ttlSeconds * 1000, fresh ? had.synced : 0);
    return fresh ? DONE : this.write(route, kind, id, endpoint, ttlSeconds);
  }

  private write(route: string, kind: AffinityKind, id: string, endpoint: string, ttlSeconds: number): Promise<void> {
    const shared = this.shared;
    if (!shared?.ready) return DONE;
    const key = Affinity.key(route, kind, id);
    return shared.client.set(shared.key('affinity', route, kind, id), endpoint, 'EX', ttlSeconds).then(
      () => {
        const e = this.local.get(key);
        if (e?.endpoint === endpoint) e.synced = Date.now();
      },
      (e: unknown) => this.warnOnce(e),
    );
  }

  /** Redis is back: what was learned while it was away goes there now. */
  private resync(): void {
    this.warned = false;
    const now = Date.now();
    for (const [key, e] of this.local) {
      if (e.synced > 0 || e.expires <= now) continue;
      const [route, kind, id] = key.split('\u0000') as [string, AffinityKind, string];
      void this.write(route, kind, id, e.endpoint, Math.max(1, Math.ceil((e.expires - now) / 1000)));
    }
  }

  private warnOnce(e: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.log.warn({ err: (e as Error).message }, 'task affinity: redis failed; using the process-local table');
  }

  /** Entries in the process-local table (for the bench and tests). */
  get size(): number {
    return this.local.size;
  }
}
