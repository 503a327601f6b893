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

/** `protoDir`: where a2a.proto is (the package's proto/ folder; a test names another). */
export async function addReflection(server: Server, protoDir = PROTO_DIR): Promise<void> {
  const [{ ReflectionService }, protoLoader] = await Promise.all([
    import('@grpc/reflection'),
    import('@grpc/proto-loader'),
  ]);
  let full: Handlers | undefined;
  const described = (): Handlers => {
    if (!full) {
      const definition = protoLoader.loadSync(['a2a.proto', healthProto], { includeDirs: [protoDir], keepCase: true });
      full = captured(new ReflectionService(definition));
    }
    return full;
  };
  // An empty reflection service gives the two service definitions (their own small protos) to register now.
  captured(new ReflectionService({}), (definition) => {
    const name = serviceName(definition);
    const delegate: UntypedServiceImplementation = {};
    for (const method of Object.keys(definition)) {
      delegate[method] = ((call: NodeJS.EventEmitter, callback: unknown) => {
        let handler: ((call: unknown, callback: unknown) => void) | undefined;
        try {
          handler = described().get(name)?.[method] as typeof handler;
        } catch (e) {
          // the call ends with INTERNAL (grpc-js turns a stream's 'error' into its status); the gateway serves on
          call.emit('error', { code: status.INTERNAL, details: `reflection unavailable: ${(e as Error).message}` });
          return;
        }
        handler?.(call, callback);
      }) as UntypedHandleCall;
    }
    server.addService(definition, delegate);
  });
}
