// The spec-examples tests' rig (test/integration/spec-examples*.test.ts): one echo agent per upstream binding
// behind a gateway route each, a webhook receiver on 127.0.0.1, the examples of test/fixtures/spec-examples.ts
// sent as raw HTTP exactly as written (placeholders filled), and the shape check of an answer against the
// response the spec shows.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { pino } from 'pino';
import type { Test } from 'tap';
import { request } from 'undici';
import type { Binding } from '../../src/config/types.js';
import type { JsonObject } from '../../src/proto/json.js';
import { startEchoAgent, type RunningAgent } from '../../examples/demo-agent/echo-agent.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import type { SpecExample } from '../fixtures/spec-examples.js';
import { BINDINGS, gatewayConfig, slug } from './harness.js';
import { TestSseParser } from './sse.js';
import { waitFor } from './wait.js';

export type Vars = Record<string, string>;

export interface Route {
  binding: Binding;
  prefix: string;
  agent: RunningAgent;
}

export interface Notification {
  headers: IncomingHttpHeaders;
  body: JsonObject;
}

export interface SpecRig {
  gw: RunningGateway;
  routes: Route[];
  webhookUrl: string;
  /** Every POST the webhook received, in order. */
  notifications: Notification[];
  close(): Promise<void>;
}

/** A route "/via-<binding>" per upstream binding, each to an agent of its own (its tasks its own). */
export async function startSpecRig(): Promise<SpecRig> {
  const agents = await Promise.all(
    BINDINGS.map((b) =>
      // a gRPC agent's card is read from its HTTP side, as the harness does
      startEchoAgent({ bindings: b === 'GRPC' ? ['GRPC', 'HTTP+JSON'] : [b], extendedAgentCard: true }),
    ),
  );
  const notifications: Notification[] = [];
  const hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      notifications.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString()) as never });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const routes = BINDINGS.map((binding, i) => ({ binding, prefix: `/via-${slug(binding)}`, agent: agents[i]! }));
  const gw = await startGateway(
    gatewayConfig(
      routes.flatMap((r) => {
        const route = {
          upstream: { url: r.agent.urlFor(r.binding), binding: r.binding, tenant: 'clear' as const },
          // §6.6's webhook is the test's receiver on 127.0.0.1, which the SSRF guard refuses (src/core/validate.ts)
          ssrfGuard: false,
          ...(r.binding === 'GRPC' ? { card: { url: `${r.agent.httpUrl}/.well-known/agent-card.json` } } : {}),
        };
        // gRPC callers have no path: they reach the agent as tenant "spec-<binding>"
        return [
          { name: `via-${slug(r.binding)}`, match: { pathPrefix: r.prefix }, ...route },
          { name: `spec-${slug(r.binding)}`, match: { tenant: `spec-${slug(r.binding)}` }, ...route },
        ];
      }),
    ),
    pino({ level: 'silent' }),
  );
  return {
    gw,
    routes,
    webhookUrl: `http://127.0.0.1:${(hook.address() as { port: number }).port}/webhook/a2a-notifications`,
    notifications,
    async close() {
      await gw.close();
      await Promise.all(agents.map((a) => a.close()));
      hook.closeAllConnections();
      await new Promise<void>((r) => hook.close(() => r()));
    },
  };
}

/** The value with every "{{name}}" replaced by vars[name]. */
export function fill<T>(value: T, vars: Vars): T {
  const text = JSON.stringify(value).replace(/\{\{(\w+)\}\}/g, (m, name: string) => {
    if (vars[name] === undefined) throw new Error(`no value for ${m}`);
    return vars[name];
  });
  return JSON.parse(text) as T;
}

export interface Answer {
  status: number;
  contentType: string;
  body?: JsonObject;
  /** SSE: each event's data, parsed. */
  events: JsonObject[];
}

/**
 * Sends an example as written, under the route's prefix. An SSE answer is read to its end; `onEvent` runs after
 * each event (the test cancels a task there), and `take` hangs up after that many events.
 */
export async function send(
  gw: RunningGateway,
  prefix: string,
  ex: SpecExample,
  vars: Vars,
  opts: { take?: number; onEvent?: (n: number) => Promise<void> } = {},
): Promise<Answer> {
  const ac = new AbortController();
  const path = fill(ex.path, vars);
  const res = await request(`${gw.httpUrl}${prefix}${path === '/' ? '' : path}`, {
    method: ex.verb,
    headers: fill(ex.headers, vars),
    signal: ac.signal,
    ...(ex.body === undefined ? {} : { body: JSON.stringify(fill(ex.body, vars)) }),
  });
  const contentType = String(res.headers['content-type'] ?? '');
  const out: Answer = { status: res.statusCode, contentType, events: [] };
  if (!contentType.startsWith('text/event-stream')) {
    const text = await res.body.text();
    out.body = text ? (JSON.parse(text) as JsonObject) : undefined;
    return out;
  }
  const parser = new TestSseParser();
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      for (const ev of parser.push(chunk)) {
        out.events.push(JSON.parse(ev.data) as JsonObject);
        await opts.onEvent?.(out.events.length);
        if (out.events.length === opts.take) {
          ac.abort();
          return out;
        }
      }
    }
  } catch (e) {
    if (out.events.length !== opts.take) throw e;
  }
  return out;
}

/** String values the agent makes up (ids, texts, times): compared by type only. */
const FREE = new Set([
  'id',
  'taskId',
  'contextId',
  'messageId',
  'artifactId',
  'timestamp',
  'text',
  'name',
  'message',
  'nextPageToken',
]);

/**
 * Where `actual` differs from the shape the spec shows: every field shown is present; enum strings, numbers (codes,
 * the JSON-RPC id, sizes), @type, reason, domain and every other value are equal, except FREE strings (a string
 * too); "{{x}}" is vars.x,
 * equal; an array shown with items has each item matched by one of the actual items. A `kind` anywhere is a
 * 0.3 form (§A.2.1).
 */
export function mismatches(actual: unknown, expected: unknown, vars: Vars, at = '', key = ''): string[] {
  if (typeof expected === 'string' && /^\{\{\w+\}\}$/.test(expected)) expected = fill(expected, vars);
  // (the JSON-RPC id, and a top-level id a placeholder names, is echoed: equal)
  else if (FREE.has(key) && typeof expected === 'string' && at !== '.id') {
    return typeof actual === typeof expected ? [] : [`${at}: ${typeof actual}, expected a ${typeof expected}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${at}: not an array`];
    return expected.flatMap((item, i) =>
      actual.some((a) => mismatches(a, item, vars, at, key).length === 0)
        ? []
        : [`${at}[${i}]: no item matches (${mismatches(actual[0], item, vars, `${at}[0]`, key).join('; ')})`],
    );
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${at}: not an object`];
    const a = actual as Record<string, unknown>;
    return Object.entries(expected).flatMap(([k, v]) =>
      k in a ? mismatches(a[k], v, vars, `${at}.${k}`, k) : [`${at}.${k}: missing`],
    );
  }
  return actual === expected ? [] : [`${at}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`];
}

/** Paths of every `kind` member (0.3's discriminator, gone in 1.0: §A.2.1). */
export function kinds(v: unknown, at = ''): string[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => kinds(x, `${at}[${i}]`));
  if (v === null || typeof v !== 'object') return [];
  return Object.entries(v).flatMap(([k, x]) => (k === 'kind' ? [`${at}.kind`] : kinds(x, `${at}.${k}`)));
}

/** Where the events differ from those shown: each shown event matched, in order, by a later one. */
export function eventMismatches(events: unknown[], shown: unknown[], vars: Vars): string[] {
  let from = 0;
  for (const [i, ev] of shown.entries()) {
    const found = events.findIndex((e, j) => j >= from && mismatches(e, ev, vars).length === 0);
    if (found === -1) return [`event ${i} shown: none matches after event ${from} (${JSON.stringify(ev)})`];
    from = found + 1;
  }
  return [];
}

/** Waits for the webhook's notification that passes `pred`. */
export function notification(rig: SpecRig, pred: (n: Notification) => boolean): Promise<Notification> {
  return waitFor(() => rig.notifications.find(pred), 'the push notification');
}

/** The answer is the one the example shows: status, content type, the shape of its body or events, no `kind`. */
export function check(tt: Test, ex: SpecExample, ans: Answer, vars: Vars, label: string): void {
  const what = `${label} ${ex.section} ${ex.name}`;
  tt.equal(ans.status, ex.status, `${what}: HTTP ${ex.status}`);
  tt.ok(ans.contentType.startsWith(ex.contentType), `${what}: ${ex.contentType} (got ${ans.contentType})`);
  if (ex.response !== undefined) tt.same(mismatches(ans.body, ex.response, vars), [], `${what}: the response shown`);
  if (ex.events !== undefined) tt.same(eventMismatches(ans.events, ex.events, vars), [], `${what}: the events shown`);
  tt.same(kinds(ans.body ?? ans.events), [], `${what}: 1.0 forms, no kind`);
}
