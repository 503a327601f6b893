// Official SDK clients for the tests: one transport factory per binding, so a
// ClientFactory can be held to the binding under test, and an SDK Message.
import { Role, type Message } from '@a2a-js/sdk';
import {
  ClientFactory,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
  type TransportFactory,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import type { Binding } from '../../src/config/types.js';

const FACTORIES: Record<Binding, () => TransportFactory> = {
  JSONRPC: () => new JsonRpcTransportFactory(),
  'HTTP+JSON': () => new RestTransportFactory(),
  GRPC: () => new GrpcTransportFactory(),
};

/** An SDK client that reads the card at `cardUrl` and may only use `binding`. */
export function sdkClient(binding: Binding, cardUrl: string): Promise<Client> {
  return new ClientFactory({ transports: [FACTORIES[binding]()], preferredTransports: [binding] }).createFromUrl(
    cardUrl,
    '',
  );
}

export function sdkMessage(text: string): Message {
  return {
    messageId: `sdk-${Math.random().toString(36).slice(2)}`,
    role: Role.ROLE_USER,
    contextId: '',
    taskId: '',
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
