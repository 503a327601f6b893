// TLS towards upstream agents (§7.1, §7.2): `https://` and `grpcs://` URLs or
// a route's `upstream.tls` block give a custom CA, a client certificate for
// mTLS to the agent, and a servername (SNI and the name checked in the
// agent's certificate). The PEM files are read when the upstream client is
// made (again after a reload); one that cannot be read then (removed or
// unreadable since the config was loaded) fails the call as
// UPSTREAM_UNAVAILABLE, the file and the reason logged, not answered.
// Certificates are always verified: a failure is UPSTREAM_UNAVAILABLE with
// the TLS reason in the log line, never skipped.
import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import type { UpstreamTls } from '../config/types.js';
import { A2AError } from '../errors/a2a-error.js';
import { Agent } from '../util/undici.js';
import { readFailure } from './pem.js';

/** The bytes of one of the upstream's TLS files (undefined when not set); UPSTREAM_UNAVAILABLE when unreadable. */
function readUpstreamFile(tls: UpstreamTls, field: 'ca' | 'cert' | 'key'): Buffer | undefined {
  const file = tls[field];
  if (!file) return undefined;
  try {
    return readFileSync(file);
  } catch (e) {
    throw A2AError.of('UPSTREAM_UNAVAILABLE', `upstream TLS failure: upstream.tls.${field} cannot be read`, {
      internal: `upstream.tls.${field}: ${readFailure(file, e)}`,
    });
  }
}

/** undici `connect` options (tls.connect) for an https upstream. */
export function undiciConnect(
  tls: UpstreamTls | undefined,
): { ca?: Buffer; cert?: Buffer; key?: Buffer; servername?: string; rejectUnauthorized: true } | undefined {
  if (!tls) return undefined;
  const [ca, cert, key] = [readUpstreamFile(tls, 'ca'), readUpstreamFile(tls, 'cert'), readUpstreamFile(tls, 'key')];
  return {
    ...(ca ? { ca } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(tls.servername ? { servername: tls.servername } : {}),
    rejectUnauthorized: true,
  };
}

/**
 * The undici Agent in `agents` for these TLS settings (made on first use, plain ones included): a component's own
 * agents, never undici's global dispatcher, which may be another undici's (Node's own fetch sets it when it runs
 * first) and not take this undici's handlers.
 */
export function agentFor(agents: Map<string, Agent>, tls: UpstreamTls | undefined): Agent {
  const key = tlsKey(tls);
  let a = agents.get(key);
  if (!a) {
    const connect = undiciConnect(tls);
    a = new Agent(connect ? { connect } : {});
    agents.set(key, a);
  }
  return a;
}

/** Channel credentials and options for a gRPC upstream (plain when `tls` is undefined). */
export function grpcChannel(tls: UpstreamTls | undefined): {
  credentials: grpc.ChannelCredentials;
  options: grpc.ChannelOptions;
} {
  if (!tls) return { credentials: grpc.credentials.createInsecure(), options: {} };
  const read = (field: 'ca' | 'cert' | 'key'): Buffer | null => readUpstreamFile(tls, field) ?? null;
  return {
    credentials: grpc.credentials.createSsl(read('ca'), read('key'), read('cert')),
    options: tls.servername
      ? { 'grpc.ssl_target_name_override': tls.servername, 'grpc.default_authority': tls.servername }
      : {},
  };
}

/** A stable key of the TLS settings, for sharing one client between routes. */
export function tlsKey(tls: UpstreamTls | undefined): string {
  return tls ? JSON.stringify([tls.ca, tls.cert, tls.key, tls.servername]) : 'plain';
}

// (ERR_OSSL: OpenSSL could not use a certificate or key, e.g. ERR_OSSL_UNSUPPORTED for a key file that is no key)
const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO|HOSTNAME|ALTNAME|ERR_TLS|ERR_SSL|ERR_OSSL|DEPTH_ZERO|handshake/i;

/** Whether an error (code or message) is a TLS/certificate failure. */
export function isTlsFailure(codeOrMessage: string): boolean {
  return TLS_CODES.test(codeOrMessage);
}
