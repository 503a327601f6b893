// The gateway configuration the benchmark runs (`npm run bench`, `npm run
// bench:payload`): one translated route per upstream binding (path prefix and
// tenant `to-<binding>`) and one pass-through route per binding, and the
// endpoint a caller of any binding uses to reach a translated route.
import type { Binding } from '../../src/config/types.js';
import type { Endpoint } from './calls.js';
import type { GatewayProc, Upstreams } from './procs.js';

export const BINDINGS: Binding[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
export const slug = (b: Binding) => ({ JSONRPC: 'jsonrpc', 'HTTP+JSON': 'rest', GRPC: 'grpc' })[b];

export function upstreamUrl(urls: Upstreams['urls'], b: Binding): string {
  return b === 'JSONRPC' ? urls.jsonrpc : b === 'HTTP+JSON' ? urls.rest : urls.grpc;
}

export function benchConfig(urls: Upstreams['urls']) {
  return {
    listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
    log: { level: 'info' },
    // the idle-streams figure holds 10,000 streams to one upstream: above the default budget of 1,024 per origin
    limits: { upstreamStreams: 20_000 },
    routes: [
      ...BINDINGS.map((b) => ({
        name: `to-${slug(b)}`,
        match: { pathPrefix: `/to-${slug(b)}`, tenant: `to-${slug(b)}` },
        upstream: { url: upstreamUrl(urls, b), binding: b, tenant: 'clear' },
        maxBodyBytes: 32 * 2 ** 20,
      })),
      ...BINDINGS.map((b) => ({
        name: `pt-${slug(b)}`,
        match: b === 'GRPC' ? { hosts: ['pt-grpc'] } : { pathPrefix: `/pt-${slug(b)}` },
        upstream: { url: upstreamUrl(urls, b), binding: b },
        passThrough: true,
      })),
    ],
  };
}

/** The translated route to an upstream of binding `b`, through gateway `gw`. */
export function via(gw: GatewayProc, b: Binding): Endpoint {
  return { http: `http://${gw.http}`, grpc: gw.grpc, prefix: `/to-${slug(b)}`, tenant: `to-${slug(b)}` };
}
