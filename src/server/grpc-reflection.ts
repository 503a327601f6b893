// gRPC server reflection on the gateway's gRPC port (grpc.reflection.v1 and
// v1alpha, what grpcurl and Postman ask) with @grpc/reflection, for the
// services the port serves: lf.a2a.v1.A2AService and grpc.health.v1.Health.
// The two services are registered at start from their paths only; the
// library, and the descriptors it answers from (a2a.proto parsed by the proto
// loader, ≈ 12 MiB of resident memory that a gateway nobody reflects on would
// keep for its whole life), are loaded and built on the first reflection
// call, then kept (src/util/lazy-grpc-service.ts).
import { createRequire } from 'node:module';
import { status, type Server, type UntypedHandleCall } from '@grpc/grpc-js';
import type * as GrpcReflection from '@grpc/reflection';
import type * as ProtoLoader from '@grpc/proto-loader';
import type * as GrpcHealthCheck from 'grpc-health-check';
import type { Logger } from 'pino';
import { PROTO_DIR } from '../proto/dir.js';
import { addLazyService, captureServices, type CapturedMethods, type ServiceShape } from '../util/lazy-grpc-service.js';

/** The two reflection services as @grpc/reflection registers them (a unit test holds them equal). */
export const REFLECTION_SERVICES: ServiceShape[] = ['v1', 'v1alpha'].map((version) => ({
  ServerReflectionInfo: {
    path: `/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`,
    requestStream: true,
    responseStream: true,
  },
}));

/** Ends a call the library cannot serve, in the shape grpc-js gives that method (stream or callback). */
function refuse(streaming: boolean, call: NodeJS.EventEmitter, callback: unknown, code: status, details: string): void {
  // grpc-js turns a response stream's 'error' into its status; a unary answer goes through the callback
  if (streaming) call.emit('error', { code, details });
  else (callback as (e: { code: status; details: string }) => void)({ code, details });
}

/**
 * Registers reflection on `server`. `protoDir`: where a2a.proto is (the
 * package's proto/ folder; a test names another). Loading the library and
 * building the descriptors takes ≈ 0.2 s on the event loop, once; if the
 * descriptors cannot be built, the failure is logged once and every
 * reflection call ends with INTERNAL (no rebuild per call, no file path in
 * the answer).
 */
export function addReflection(server: Server, log: Logger, protoDir = PROTO_DIR): void {
  let loaded: CapturedMethods | undefined;
  const load = (): CapturedMethods => {
    if (loaded) return loaded;
    const require = createRequire(import.meta.url);
    const { ReflectionService } = require('@grpc/reflection') as typeof GrpcReflection;
    try {
      const protoLoader = require('@grpc/proto-loader') as typeof ProtoLoader;
      const { protoPath: healthProto } = require('grpc-health-check') as typeof GrpcHealthCheck;
      const files = ['a2a.proto', healthProto];
      const described = new ReflectionService(protoLoader.loadSync(files, { includeDirs: [protoDir], keepCase: true }));
      loaded = captureServices((s) => described.addToServer(s));
    } catch (e) {
      log.error({ err: e }, 'gRPC reflection unavailable: its descriptors cannot be built');
      // an empty reflection service still decodes the requests (its own small protos); every call is refused
      loaded = captureServices((s) => new ReflectionService({}).addToServer(s));
      for (const [path, method] of loaded) {
        const { responseStream } = method.definition;
        const handler = ((call: NodeJS.EventEmitter, callback: unknown) =>
          refuse(
            responseStream,
            call,
            callback,
            status.INTERNAL,
            'gRPC reflection is unavailable',
          )) as UntypedHandleCall;
        loaded.set(path, { ...method, handler });
      }
    }
    return loaded;
  };
  for (const shape of REFLECTION_SERVICES) addLazyService(server, shape, load);
}
