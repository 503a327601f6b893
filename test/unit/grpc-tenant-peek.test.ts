// The gRPC inbound reads a request's `tenant` from its bytes before routing
// (bindings/grpc/service.ts peekTenant): it must agree with what a decoder
// reads from the same bytes, since a pass-through forwards them unread and
// the agent decodes them itself; where decoders could disagree, the request
// is no valid message.
import t from 'tap';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { GetTaskRequestSchema } from '../../src/gen/a2a_pb.js';
import { methodInfo } from '../../src/core/methods.js';
import { peekTenant } from '../../src/bindings/grpc/service.js';

const info = methodInfo('GetTask');
const encoded = (tenant: string, id = 't-1') =>
  Buffer.from(toBinary(GetTaskRequestSchema, create(GetTaskRequestSchema, { tenant, id })));
/**
 * Field 1 (tenant) as a varint 5, then "admin", which protobuf-es reads as the tenant's 5 bytes all the same, while a
 * reader skipping the varint takes "a" for the tag of a fixed64 field 12 whose 8 bytes are "dmin" and 78 00 78 00.
 */
const varintTenant = Buffer.concat([
  Buffer.from([0x08, 0x05]),
  Buffer.from('admin'),
  Buffer.from([0x78, 0x00, 0x78, 0x00]),
  encoded('', 't-1'),
]);

t.test('the tenant as a decoder reads it', async (tt) => {
  tt.equal(peekTenant(info, encoded('acme')), 'acme');
  tt.equal(peekTenant(info, encoded('')), '', 'absent');
  tt.equal(peekTenant(info, Buffer.concat([encoded('first'), encoded('last')])), 'last', 'the last occurrence wins');
  tt.equal(fromBinary(GetTaskRequestSchema, Buffer.concat([encoded('first'), encoded('last')])).tenant, 'last');
  tt.equal(peekTenant(info, Buffer.from([0xff, 0xff, 0xff])), undefined, 'no protobuf message');
});

t.test('the tenant field with another wire type is no valid request', async (tt) => {
  tt.equal(fromBinary(GetTaskRequestSchema, varintTenant).tenant, 'admin', 'protobuf-es reads it as a string');
  tt.equal(peekTenant(info, varintTenant), undefined, 'so it is refused rather than routed as tenant ""');
});
