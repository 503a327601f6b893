// A listener that could not start: which one (the HTTP, gRPC or admin
// listener), the address it was to listen on and why (node:net's and
// grpc-js's errors alike). The listeners reject with it so that the CLI says
// any failure to listen in one line naming the address, the reason and the
// setting to change, and exits 2 (not a stack trace).

export type ListenerName = 'http' | 'grpc' | 'admin';

/** What sets each listener's port and host, as the CLI and the config file name them. */
const SETTINGS: Record<ListenerName, { port: string; host: string }> = {
  http: { port: '--http-port / listen.httpPort', host: '--host / listen.host' },
  grpc: { port: '--grpc-port / listen.grpcPort', host: '--host / listen.host' },
  admin: { port: 'admin.port', host: 'admin.host' },
};

/** Why, as a reader of the line wants it, and whether the port or the host is the one to change. */
function reason(cause: unknown): { why: string; change: 'port' | 'host' | undefined } {
  const err = cause as NodeJS.ErrnoException | undefined;
  const text = `${err?.code ?? ''} ${err?.message ?? String(cause)}`;
  if (/EADDRINUSE|address already in use/i.test(text)) return { why: 'address already in use', change: 'port' };
  if (/EACCES|permission denied/i.test(text)) return { why: 'permission denied', change: 'port' };
  if (/EADDRNOTAVAIL|address not available/i.test(text))
    return { why: 'address not available on this machine', change: 'host' };
  if (/ENOTFOUND|EAI_AGAIN|Name resolution failed|No address added out of total 0 resolved/i.test(text))
    return { why: 'the host name does not resolve', change: 'host' };
  // anything else: the error's own first line (grpc-js's carry a stack of causes after it)
  return { why: (err?.message ?? String(cause)).split('\n')[0]!.trim() || 'unknown error', change: undefined };
}

export class ListenError extends Error {
  constructor(
    readonly listener: ListenerName,
    readonly address: string,
    override readonly cause: unknown,
  ) {
    const { why, change } = reason(cause);
    super(`cannot listen on ${address}: ${why}${change ? ` (change ${SETTINGS[listener][change]})` : ''}`);
  }
}

/** host:port, an IPv6 address in brackets. */
export function listenAddress(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
