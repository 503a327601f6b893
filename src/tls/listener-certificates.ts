// TLS on the gateway's own listeners (§7.1: HTTPS for the HTTP bindings, TLS
// for gRPC): the certificate, key and optional client CA are read from their
// PEM files at start and again on reload (SIGHUP), and handed to both the
// HTTPS/h2 server (setSecureContext) and the gRPC server (a grpc-js
// CertificateProvider whose listeners are told of the new files). A reload
// whose files cannot be read keeps the previous certificates and says so.
import { readFileSync } from 'node:fs';
import type { SecureContextOptions } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { ListenerTls } from '../config/types.js';

type CaListener = grpc.experimental.CaCertificateUpdateListener;
type IdentityListener = grpc.experimental.IdentityCertificateUpdateListener;

interface Pem {
  cert: Buffer;
  key: Buffer;
  ca: Buffer | undefined;
}

function readPem(tls: ListenerTls): Pem {
  return {
    cert: readFileSync(tls.cert),
    key: readFileSync(tls.key),
    ca: tls.clientCa ? readFileSync(tls.clientCa) : undefined,
  };
}

export class ListenerCertificates implements grpc.experimental.CertificateProvider {
  private pem: Pem;
  private readonly caListeners = new Set<CaListener>();
  private readonly identityListeners = new Set<IdentityListener>();
  private readonly secureServers = new Set<{ setSecureContext(o: SecureContextOptions): void }>();

  /** Throws when the files cannot be read (the gateway does not start). */
  constructor(
    private tls: ListenerTls,
    private readonly log: Logger,
  ) {
    this.pem = readPem(tls);
  }

  /** Options for node:https / node:http2 createSecureServer (h2 with HTTP/1.1 fallback). */
  httpsOptions(): {
    key: Buffer;
    cert: Buffer;
    ca?: Buffer;
    requestCert: boolean;
    rejectUnauthorized: boolean;
    allowHTTP1: true;
    minVersion: 'TLSv1.2';
  } {
    return {
      key: this.pem.key,
      cert: this.pem.cert,
      ...(this.pem.ca ? { ca: this.pem.ca } : {}),
      requestCert: this.pem.ca !== undefined,
      rejectUnauthorized: this.pem.ca !== undefined && this.tls.requireClientCert,
      allowHTTP1: true,
      minVersion: 'TLSv1.2',
    };
  }

  /** Follows reloads on `server` (an HTTPS or h2 secure server). */
  track(server: { setSecureContext(o: SecureContextOptions): void }): void {
    this.secureServers.add(server);
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

  /** Re-reads the files (the same or a newly configured set); on failure keeps the old ones. Returns whether it changed. */
  reload(next: ListenerTls): boolean {
    let pem: Pem;
    try {
      pem = readPem(next);
    } catch (e) {
      this.log.error(
        { err: (e as Error).message },
        'TLS reload failed; the listeners keep their previous certificates',
      );
      return false;
    }
    this.tls = next;
    this.pem = pem;
    for (const s of this.secureServers)
      s.setSecureContext({ key: pem.key, cert: pem.cert, ...(pem.ca ? { ca: pem.ca } : {}) });
    for (const l of this.identityListeners) l({ certificate: pem.cert, privateKey: pem.key });
    for (const l of this.caListeners) l(pem.ca ? { caCertificate: pem.ca } : null);
    this.log.info({ cert: next.cert }, 'TLS certificates reloaded');
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
