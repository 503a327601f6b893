// The shape of the request pipeline (the model of undici's interceptors and
// grpc-js's filter stack): a Handler answers a Call; a Stage wraps the next
// handler, doing its part on the way in and, when it awaits the answer, on
// the way back. A route's chain is composed once (per route and config
// generation), leaving out the stages the route does not need, so a call pays
// only for what its route asks for. What a stage must do when a call ends —
// unary answer, stream end, failure or abandonment — it registers with
// `ended`, and the observer runs it once, last registered first.
import type { RouteConfig } from '../config/types.js';
import type { Answer, Call } from './call.js';

export type Handler = (call: Call) => Promise<Answer>;

/** What every stage may see of the gateway (built once in pipeline.ts). */
export interface Stage {
  /** The stage's name, as the pipeline lists it (docs/architecture.svg shows the same names). */
  readonly name: string;
  /** The handler for calls on `route` that runs this stage then `next`, or `next` itself when the stage has nothing to do there. */
  wrap(next: Handler, route: RouteConfig): Handler;
}

/** Composes `stages` (first = outermost) around `terminal` for one route. */
export function compose(stages: readonly Stage[], route: RouteConfig, terminal: Handler): Handler {
  let handler = terminal;
  for (let i = stages.length - 1; i >= 0; i--) handler = stages[i]!.wrap(handler, route);
  return handler;
}

/** Something to do when a call ends: its error (undefined = it succeeded) and the events it relayed. */
export type EndHook = (error: unknown, events: number) => void;

const hooks = new WeakMap<Call, EndHook[]>();

/** Registers `hook` to run when `call` ends (the observer runs the hooks, last registered first). */
export function ended(call: Call, hook: EndHook): void {
  const list = hooks.get(call);
  if (list) list.push(hook);
  else hooks.set(call, [hook]);
}

/** Runs and forgets the call's end hooks. */
export function runEndHooks(call: Call, error: unknown, events: number): void {
  const list = hooks.get(call);
  if (!list) return;
  hooks.delete(call);
  for (let i = list.length - 1; i >= 0; i--) list[i]!(error, events);
}
