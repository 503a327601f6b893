// Loads the proto files once at start (a2a.proto, google/api, google/rpc and
// the gateway envelope) into one protobufjs Root and hands out the types.
// Spec: a2a.proto (package lf.a2a.v1), specification.md §10.3.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { bindWellKnownNames } from './well-known.js';

const require = createRequire(import.meta.url);
const PROTOBUFJS_DIR = dirname(require.resolve('protobufjs/package.json'));
/** The project's proto/ folder (two levels up from src/proto or dist/proto). */
export const PROTO_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'proto');

export const A2A_PACKAGE = 'lf.a2a.v1';
export const A2A_SERVICE = `${A2A_PACKAGE}.A2AService`;

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin: string, target: string): string =>
    target.startsWith('google/protobuf/') ? join(PROTOBUFJS_DIR, target) : join(PROTO_DIR, target);
  root.loadSync(['a2a/gateway/v1/envelope.proto', 'google/rpc/error_details.proto', 'google/rpc/code.proto'], {
    keepCase: false,
  });
  root.resolveAll();
  return root;
}

export const root: protobuf.Root = loadRoot();
bindWellKnownNames(root);

const typeCache = new Map<string, protobuf.Type>();
/** A message type by full name ("lf.a2a.v1.Task"); cached. */
export function messageType(fullName: string): protobuf.Type {
  let t = typeCache.get(fullName);
  if (!t) {
    t = root.lookupType(fullName);
    typeCache.set(fullName, t);
  }
  return t;
}

export const a2aService: protobuf.Service = root.lookupService(A2A_SERVICE);
export const EnvelopeType = messageType('a2a.gateway.v1.Envelope');
export const ReplyType = messageType('a2a.gateway.v1.Reply');
export const StatusType = messageType('google.rpc.Status');
export const MethodEnum = root.lookupEnum('a2a.gateway.v1.Method');
