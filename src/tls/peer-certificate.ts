// The caller's verified client certificate (mTLS, §7.4), read the same way for
// HTTPS/1.1, h2 and gRPC: only a certificate the listener's client CA
// verified (`authorized`) counts; its subject CN (else first DNS SAN) is the
// caller's identity.
import { TLSSocket, type PeerCertificate as NodePeerCertificate } from 'node:tls';
import type { PeerCertificate } from '../http/request.js';

export function fromNodeCertificate(cert: NodePeerCertificate | undefined): PeerCertificate | undefined {
  if (!cert || !cert.raw) return undefined;
  const cn = cert.subject?.CN;
  const san = /DNS:([^,\s]+)/.exec(cert.subjectaltname ?? '')?.[1];
  const subject = (Array.isArray(cn) ? cn[0] : cn) ?? san;
  return subject ? { subject, fingerprint: cert.fingerprint256 } : undefined;
}

/** The verified certificate of a TLS socket (HTTP/1.1 socket or an h2 session's socket). */
export function verifiedPeer(socket: unknown): PeerCertificate | undefined {
  if (!(socket instanceof TLSSocket) || !socket.authorized) return undefined;
  return fromNodeCertificate(socket.getPeerCertificate());
}
