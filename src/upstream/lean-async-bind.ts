// AsyncResource#bind (node:async_hooks) without Node 20's deprecated
// `asyncResource` accessor (DEP0172). Node 20 gives every bound function that
// accessor, made by util.deprecate, which calls Object.setPrototypeOf on two
// new functions per bind; ClientHttp2Session#request binds one per request,
// so every upstream gRPC call (translated, pass-through, health check) paid
// it: about 25 µs of CPU and 4.4 KB of garbage per call in the benchmarks.
// The bound function behaves as Node's: `fn` runs in the resource's async
// scope, with `thisArg` or else the bound function's own `this`, and has
// fn's length. Installed once per process, when the gRPC client loads, and
// only on a Node whose own bind adds the accessor (later Node lines dropped it).
import { AsyncResource } from 'node:async_hooks';

type AnyFunction = (...args: unknown[]) => unknown;

const nodeBind = AsyncResource.prototype.bind;

function leanBind(resource: AsyncResource, fn: AnyFunction, thisArg: unknown): AnyFunction {
  // anything not a function gets Node's own refusal (ERR_INVALID_ARG_TYPE)
  if (typeof fn !== 'function') return Reflect.apply(nodeBind, resource, [fn, thisArg]) as AnyFunction;
  const bound =
    thisArg === undefined
      ? function (this: unknown, ...args: unknown[]): unknown {
          return resource.runInAsyncScope(fn, this, ...args);
        }
      : (...args: unknown[]): unknown => resource.runInAsyncScope(fn, thisArg, ...args);
  Object.defineProperty(bound, 'length', { configurable: true, enumerable: false, writable: false, value: fn.length });
  return bound;
}

function bind(this: AsyncResource, fn: AnyFunction, thisArg?: unknown): AnyFunction {
  return leanBind(this, fn, thisArg);
}

/** Whether this Node's own bind gives the bound function the deprecated accessor (the cost the lean one saves). */
export const nodeBindAddsAccessor: boolean = Object.getOwnPropertyNames(
  Reflect.apply(nodeBind, new AsyncResource('a2a-gateway-probe'), [() => undefined]) as object,
).includes('asyncResource');

/** Replaces AsyncResource#bind with the lean one where Node's adds the accessor (once; later calls do nothing). */
export function useLeanAsyncBind(): void {
  if (nodeBindAddsAccessor && AsyncResource.prototype.bind === nodeBind)
    AsyncResource.prototype.bind = bind as unknown as typeof AsyncResource.prototype.bind;
}
