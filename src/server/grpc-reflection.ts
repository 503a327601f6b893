// gRPC server reflection on the gateway's gRPC port (grpc.reflection.v1 and
// v1alpha, what grpcurl and Postman ask) with @grpc/reflection, for the
// services the port serves: lf.a2a.v1.A2AService and grpc.health.v1.Health.
// The services are registered at start, but the descriptors they answer from
// (a2a.proto parsed by the proto loader, ≈ 12 MiB of resident memory that a
// gateway nobody reflects on would keep for its whole life) are built on the
// first reflection call, then kept.
import {
  status,
  type ServiceDefinition,
  type Server,
  type UntypedHandleCall,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { ReflectionService } from '@grpc/reflection';
import type { Logger } from 'pino';
import { protoPath as healthProto } from 'grpc-health-check';
import { PROTO_DIR } from '../proto/dir.js';

type Handlers = Map<string, UntypedServiceImplementation>;

/** What `service.addToServer` registers, captured instead of registered: service path → its handlers. */
function captured(service: ReflectionService, onService?: (definition: ServiceDefinition) => void): Handlers {
  const handlers: Handlers = new Map();
  const recorder = {
    addService(definition: ServiceDefinition, implementation: UntypedServiceImplementation) {
      handlers.set(serviceName(definition), implementation);
      onService?.(definition);
    },
  };
  service.addToServer(recorder as unknown as Server);
  return handlers;
}

function serviceName(definition: ServiceDefinition): string {
  const method = Object.values(definition)[0];
  return method?.path.split('/')[1] ?? '';
}

/** Ends a call the delegate cannot serve, in the shape grpc-js gives that method (stream or callback). */
function refuse(streaming: boolean, call: NodeJS.EventEmitter, callback: unknown, code: status, details: string): void {
  // grpc-js turns a response stream's 'error' into its status; a unary answer goes through the callback
  if (streaming) call.emit('error', { code, details });
  else (callback as (e: { code: status; details: string }) => void)({ code, details });
}

/**
 * Registers reflection on `server`. `protoDir`: where a2a.proto is (the
 * package's proto/ folder; a test names another). Building the descriptors
 * takes ≈ 0.2 s on the event loop, once; if it fails, the failure is logged
 * once and every reflection call ends with INTERNAL (no rebuild per call,
 * no file path in the answer).
 */
export async function addReflection(server: Server, log: Logger, protoDir = PROTO_DIR): Promise<void> {
  const [{ ReflectionService }, protoLoader] = await Promise.all([
    import('@grpc/reflection'),
    import('@grpc/proto-loader'),
  ]);
  let full: Handlers | undefined;
  let failed = false;
  const described = (): Handlers | undefined => {
    if (!full && !failed) {
      try {
        const files = ['a2a.proto', healthProto];
        full = captured(
          new ReflectionService(protoLoader.loadSync(files, { includeDirs: [protoDir], keepCase: true })),
        );
      } catch (e) {
        failed = true;
        log.error({ err: e }, 'gRPC reflection unavailable: its descriptors cannot be built');
      }
    }
    return full;
  };
  // An empty reflection service gives the two service definitions (their own small protos) to register now.
  captured(new ReflectionService({}), (definition) => {
    const name = serviceName(definition);
    const delegate: UntypedServiceImplementation = {};
    for (const [method, shape] of Object.entries(definition)) {
      delegate[method] = ((call: NodeJS.EventEmitter, callback: unknown) => {
        const handler = described()?.get(name)?.[method] as ((call: unknown, callback: unknown) => void) | undefined;
        if (handler) handler(call, callback);
        else refuse(shape.responseStream, call, callback, status.INTERNAL, 'gRPC reflection is unavailable');
      }) as UntypedHandleCall;
    }
    server.addService(definition, delegate);
  });
}
