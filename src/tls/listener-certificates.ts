// TLS on the gateway's own listeners (§7.1: HTTPS for the HTTP bindings, TLS
// for gRPC): the certificate, key and optional client CA are read from their
// PEM files at start and again on reload (SIGHUP), checked to make a usable
// TLS context, and handed to both the HTTPS/h2 server and the gRPC server (a
// grpc-js CertificateProvider whose listeners are told of the new files, and
// grpc-js's own HTTP/2 servers where bindGrpc reaches them). A reload also
// applies the client-certificate settings (clientCa, requireClientCert) to
// new connections: Node reads requestCert/rejectUnauthorized from the server
// object per connection. Without clientCa no certificate is asked for, so
// client certificates are never checked against the system CAs. A reload
// whose files cannot be read or used keeps the previous certificates and
// client-certificate settings and says so; a gRPC listener grpc-js keeps out
// of reach keeps its client-certificate mode until a restart, with a warning.
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { ListenerTls } from '../config/types.js';
import { certificateProblem, readTlsFile } from './pem.js';

type CaListener = grpc.experimental.CaCertificateUpdateListener;
type IdentityListener = grpc.experimental.IdentityCertificateUpdateListener;

interface Pem {
  cert: Buffer;
  key: Buffer;
  ca: Buffer | undefined;
}

/** How a listener treats client certificates (node:tls server fields, read for each new connection). */
interface ClientCertMode {
  requestCert: boolean;
  rejectUnauthorized: boolean;
}

/** A TLS server whose context and client-certificate mode follow reloads. */
export interface SecureListener {
  setSecureContext(o: SecureContextOptions): void;
}

/** Reads the files and checks that they make a TLS context; throws naming the file and the reason. */
function readPem(tls: ListenerTls): Pem {
  const pem = {
    cert: readTlsFile(tls.cert, 'listen.tls.cert'),
    key: readTlsFile(tls.key, 'listen.tls.key'),
    ca: tls.clientCa ? readTlsFile(tls.clientCa, 'listen.tls.clientCa') : undefined,
  };
  const noCa = pem.ca && certificateProblem(pem.ca);
  if (noCa) throw new Error(`listen.tls.clientCa: ${tls.clientCa} ${noCa}`);
  try {
    createSecureContext(contextOptions(pem));
  } catch (e) {
    throw new Error(
      `listen.tls.cert and listen.tls.key (${tls.cert}, ${tls.key}) cannot be used together: ${(e as Error).message}`,
      { cause: e },
    );
  }
  return pem;
}

function contextOptions(pem: Pem): SecureContextOptions {
  return { key: pem.key, cert: pem.cert, ...(pem.ca ? { ca: pem.ca } : {}), minVersion: 'TLSv1.2' };
}

/** Client certificates are asked for only with a client CA: without one nothing would verify them but the system's CAs. */
function modeOf(tls: ListenerTls, pem: Pem): ClientCertMode {
  return { requestCert: pem.ca !== undefined, rejectUnauthorized: pem.ca !== undefined && tls.requireClientCert };
}

const described = (m: ClientCertMode): string =>
  !m.requestCert ? 'off' : m.rejectUnauthorized ? 'required' : 'optional';

export class ListenerCertificates implements grpc.experimental.CertificateProvider {
  private pem: Pem;
  private readonly caListeners = new Set<CaListener>();
  private readonly identityListeners = new Set<IdentityListener>();
  /** The servers that follow reloads, and which listener each belongs to. */
  private readonly servers = new Map<SecureListener, 'http' | 'grpc'>();
  /** The gRPC listener's client-certificate mode (its start one while grpc-js's servers are out of reach). */
  private grpcMode: ClientCertMode;

  /** Throws when the files cannot be read or used (the gateway does not start). */
  constructor(
    private tls: ListenerTls,
    private readonly log: Logger,
  ) {
    this.pem = readPem(tls);
    this.grpcMode = modeOf(tls, this.pem);
  }

  /** Options for node:https / node:http2 createSecureServer (h2 with HTTP/1.1 fallback). */
  httpsOptions(): SecureContextOptions & ClientCertMode & { allowHTTP1: true } {
    return { ...contextOptions(this.pem), ...modeOf(this.tls, this.pem), allowHTTP1: true };
  }

  /** Follows reloads on `server`: the HTTPS/h2 server, or one of grpc-js's HTTP/2 servers (bindGrpc). */
  track(server: SecureListener, listener: 'http' | 'grpc' = 'http'): void {
    this.servers.set(server, listener);
  }

  grpcCredentials(): grpc.ServerCredentials {
    // grpc-js names its parameters (ca, identity) but stores them the other way round;
    // passing this provider in both places makes the order irrelevant.
    return grpc.experimental.createCertificateProviderServerCredentials(
      this,
      this.pem.ca ? this : null,
      this.pem.ca !== undefined && this.tls.requireClientCert,
    );
  }

  /**
   * Re-reads the files (the same or a newly configured set) and applies them with the client-certificate settings
   * to new connections; on failure keeps the old ones. Never throws. Returns whether it changed.
   */
  reload(next: ListenerTls): boolean {
    let pem: Pem;
    try {
      pem = readPem(next);
    } catch (e) {
      this.log.error(
        { err: (e as Error).message },
        'TLS reload failed; the listeners keep their previous certificates and client-certificate settings',
      );
      return false;
    }
    const mode = modeOf(next, pem);
    this.tls = next;
    this.pem = pem;
    // grpc-js takes no CA update of null (it would drop every connection): without a client CA it keeps its last
    // one, unused once requestCert is off
    for (const l of this.identityListeners) l({ certificate: pem.cert, privateKey: pem.key });
    if (pem.ca) for (const l of this.caListeners) l({ caCertificate: pem.ca });
    // (after grpc-js's own update, so the last context set is the whole one)
    for (const s of this.servers.keys()) {
      Object.assign(s, mode);
      s.setSecureContext(contextOptions(pem));
    }
    const clientCertificates = described(mode);
    if ([...this.servers.values()].includes('grpc')) this.grpcMode = mode;
    else if (clientCertificates !== described(this.grpcMode))
      this.log.warn(
        { clientCertificates, grpcClientCertificates: described(this.grpcMode) },
        'listen.tls client-certificate settings changed: the HTTPS listener applies them, the gRPC listener keeps its current mode until a restart (grpc-js internals out of reach)',
      );
    this.log.info({ cert: next.cert, clientCertificates }, 'TLS certificates reloaded');
    return true;
  }

  // grpc-js registers these listeners before its own watcher: the first update
  // is delivered after the current call returns (as its file watcher does).
  addCaCertificateListener(l: CaListener): void {
    this.caListeners.add(l);
    queueMicrotask(() => l(this.pem.ca ? { caCertificate: this.pem.ca } : null));
  }

  removeCaCertificateListener(l: CaListener): void {
    this.caListeners.delete(l);
  }

  addIdentityCertificateListener(l: IdentityListener): void {
    this.identityListeners.add(l);
    queueMicrotask(() => l({ certificate: this.pem.cert, privateKey: this.pem.key }));
  }

  removeIdentityCertificateListener(l: IdentityListener): void {
    this.identityListeners.delete(l);
  }
}
