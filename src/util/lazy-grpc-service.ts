// gRPC services registered at start from their method paths and shapes only,
// whose library (message codecs and handlers) is loaded on the service's first
// call: grpc.health.v1.Health (grpc-health-check) and server reflection
// (@grpc/reflection). Each of those libraries brings @grpc/proto-loader and
// its own copy of protobufjs, and parses its protos when loaded: ≈ 4 MiB of
// heap that a gateway nobody probes or reflects on over gRPC would keep for
// its whole life. grpc-js decodes a request before it calls the handler, so
// the library is loaded synchronously (require) in the first codec or handler
// call, then every call goes straight to the library's own codecs and handlers.
import type {
  MethodDefinition,
  Server,
  ServiceDefinition,
  UntypedHandleCall,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';

/** What grpc-js needs to route and register a method before its codecs exist. */
export interface MethodShape {
  /** e.g. "/grpc.health.v1.Health/Check" */
  path: string;
  requestStream: boolean;
  responseStream: boolean;
}

/** A service's methods by name (the name grpc-js registers, as in the .proto). */
export type ServiceShape = Record<string, MethodShape>;

type AnyMethod = MethodDefinition<unknown, unknown>;

/** What a library registered, by method path: its definition (codecs) and handler. */
export type CapturedMethods = Map<string, { definition: AnyMethod; handler: UntypedHandleCall }>;

/** What `addToServer(server)` registers, captured instead of registered (as grpc-js would find the handlers). */
export function captureServices(addToServer: (server: Server) => void): CapturedMethods {
  const methods: CapturedMethods = new Map();
  const recorder = {
    addService(definition: ServiceDefinition, implementation: UntypedServiceImplementation) {
      for (const [name, method] of Object.entries(definition)) {
        const handler = implementation[name] ?? implementation[String(method.originalName)];
        if (handler) methods.set(method.path, { definition: method as AnyMethod, handler });
      }
    },
  };
  addToServer(recorder as unknown as Server);
  return methods;
}

/**
 * Registers `shape` on `server`. `load` gives every method's codecs and handler by path; it is called once, on
 * the first call of any of the service's methods (a loader shared by several services runs once per service:
 * it memoizes what it loads).
 */
export function addLazyService(server: Server, shape: ServiceShape, load: () => CapturedMethods): void {
  let methods: CapturedMethods | undefined;
  const definition: Record<string, AnyMethod> = {};
  const implementation: UntypedServiceImplementation = {};
  for (const [name, { path, requestStream, responseStream }] of Object.entries(shape)) {
    let method: { definition: AnyMethod; handler: UntypedHandleCall } | undefined;
    const loaded = (): { definition: AnyMethod; handler: UntypedHandleCall } => {
      method ??= (methods ??= load()).get(path);
      if (!method) throw new Error(`${path}: not registered by the service's library`);
      return method;
    };
    definition[name] = {
      path,
      requestStream,
      responseStream,
      requestSerialize: (value: unknown) => loaded().definition.requestSerialize(value),
      requestDeserialize: (bytes: Buffer) => loaded().definition.requestDeserialize(bytes),
      responseSerialize: (value: unknown) => loaded().definition.responseSerialize(value),
      responseDeserialize: (bytes: Buffer) => loaded().definition.responseDeserialize(bytes),
    };
    implementation[name] = ((call: unknown, callback: unknown) =>
      (loaded().handler as (call: unknown, callback: unknown) => void)(call, callback)) as UntypedHandleCall;
  }
  server.addService(definition as ServiceDefinition, implementation);
}
