// undici's dispatchers and request API without the rest of the package (issue
// 11, idle RSS ≤ 80 MiB): `import … from 'undici'` loads all 110 of its
// modules — fetch, WebSocket, EventSource, the HTTP cache, mock agents — of
// which the gateway uses none; measured on Node 20, +8.7 MiB of RSS at rest
// against the ~30 modules of Pool, Agent and the request API. The package has
// no entry points for its parts, so they are required by their paths in
// undici (its version pinned exactly in package.json: an upgrade that moves
// them fails every upstream test at once), and the request API is put on the
// dispatchers' prototype as undici's own index does. Types are undici's.
import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher, Pool as UndiciPool } from 'undici';

const load = createRequire(import.meta.url);

const DispatcherClass = load('undici/lib/dispatcher/dispatcher.js') as { prototype: object };
const api = load('undici/lib/api/index.js') as Record<string, unknown> & {
  request(this: Dispatcher, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
};
if (!('request' in DispatcherClass.prototype)) Object.assign(DispatcherClass.prototype, api);

export const Pool = load('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
export type Pool = UndiciPool;
export const Agent = load('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
export type Agent = UndiciAgent;
const { getGlobalDispatcher } = load('undici/lib/global.js') as { getGlobalDispatcher(): Dispatcher };

export type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
  method?: Dispatcher.HttpMethod;
  /** Where the request goes; undici's global dispatcher when not given. */
  dispatcher?: Dispatcher;
};

/**
 * undici's `request(url, options)`: the URL's origin and path through `dispatcher` (called with the request API as
 * undici's does: a dispatcher given to setGlobalDispatcher need only have dispatch()); GET, or PUT with a body.
 */
export function request(url: string, opts: RequestOptions = {}): Promise<Dispatcher.ResponseData> {
  const u = new URL(url);
  const { dispatcher, ...rest } = opts;
  return api.request.call(dispatcher ?? getGlobalDispatcher(), {
    ...rest,
    method: rest.method ?? (rest.body != null ? 'PUT' : 'GET'),
    origin: u.origin,
    path: `${u.pathname}${u.search}`,
  });
}
