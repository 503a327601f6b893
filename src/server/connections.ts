// Closing the HTTP listener's connections on drain and close, for both kinds
// of server: node:http has closeIdleConnections/closeAllConnections; the
// HTTPS listener (node:http2 secure server with HTTP/1.1 fallback) has not,
// so its h2 sessions and TLS sockets are tracked here.
import type { Server as HttpServer } from 'node:http';
import type { Http2Session } from 'node:http2';
import type { Socket } from 'node:net';

export interface Connections {
  /** Idle HTTP/1.1 connections closed; h2 sessions told to take no new streams (GOAWAY). */
  closeIdle(): void;
  /** Every connection destroyed. */
  closeAll(): void;
}

export function trackConnections(server: HttpServer | import('node:http2').Http2SecureServer): Connections {
  if ('closeAllConnections' in server && typeof server.closeAllConnections === 'function') {
    const http = server as HttpServer;
    return { closeIdle: () => http.closeIdleConnections(), closeAll: () => http.closeAllConnections() };
  }
  const sockets = new Set<Socket>();
  const sessions = new Set<Http2Session>();
  // every TCP connection, from its accept: one that never finishes its TLS handshake would hold close() for
  // Node's handshake timeout (120 s)
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  server.on('session', (s: Http2Session) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
  });
  return {
    closeIdle: () => {
      for (const s of sessions) s.close();
    },
    closeAll: () => {
      for (const s of sessions) s.destroy();
      for (const s of sockets) s.destroy();
    },
  };
}
