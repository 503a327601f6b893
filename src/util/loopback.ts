// The address a process on this machine uses to reach a listener bound to
// `host`: a wildcard bind (0.0.0.0, ::, or none) is reached on the loopback
// of its own family; any other address as it is. Used by the admin console's
// try-it calls and the image's healthcheck (which must stay a light import).

/** The host to connect to (no brackets: an IPv6 address comes back bare). */
export function loopbackHost(host: string | undefined): string {
  if (host === undefined || host === '' || host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '::1';
  return host.replace(/^\[(.*)\]$/, '$1');
}
