// The official SDK's A2A 0.3 client (@a2a-js/sdk 0.3.14, alias a2a-sdk-03)
// for the bridge tests: built from a card URL, choosing its transport from
// the card (as a 0.3 caller does) or held to one; which transport it chose;
// and a 0.3 user Message.
import type { Message } from 'a2a-sdk-03';
import {
  ClientFactory,
  JsonRpcTransport,
  JsonRpcTransportFactory,
  RestTransport,
  RestTransportFactory,
  type Client,
} from 'a2a-sdk-03/client';
import { GrpcTransport, GrpcTransportFactory } from 'a2a-sdk-03/client/grpc';

export type V03Transport = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';
export const V03_TRANSPORTS: V03Transport[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

const FACTORIES = {
  JSONRPC: () => new JsonRpcTransportFactory(),
  'HTTP+JSON': () => new RestTransportFactory(),
  GRPC: () => new GrpcTransportFactory(),
} as const;

/** A 0.3.14 client from the card at `cardUrl`: held to `transport`, or (undefined) choosing from the card. */
export function v03Client(cardUrl: string, transport?: V03Transport): Promise<Client> {
  const factory = transport
    ? new ClientFactory({ transports: [FACTORIES[transport]()], preferredTransports: [transport] })
    : new ClientFactory({ transports: V03_TRANSPORTS.map((t) => FACTORIES[t]()) });
  return factory.createFromUrl(cardUrl, '');
}

/** The transport a 0.3.14 client uses. */
export function transportOf(client: Client): V03Transport | undefined {
  const t = client.transport;
  if (t instanceof JsonRpcTransport) return 'JSONRPC';
  if (t instanceof RestTransport) return 'HTTP+JSON';
  if (t instanceof GrpcTransport) return 'GRPC';
  return undefined;
}

export function v03Message(text: string, extra: Partial<Message> = {}): Message {
  return {
    kind: 'message',
    role: 'user',
    messageId: `v03-${Math.random().toString(36).slice(2)}`,
    parts: [{ kind: 'text', text }],
    ...extra,
  };
}
