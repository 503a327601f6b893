// What a fuzzed gRPC agent answers (fast-check arbitraries for
// test/integration/upstream-fuzz.test.ts), A2A 1.0 (lf.a2a.v1) or 0.3
// (a2a.v1): a valid task event (read as a SendMessageResponse too) and events
// whose values binary holds and JSON cannot write, framed as gRPC messages
// random, with a byte changed, torn or flagged compressed; any status and
// trailers; some answers cut off where the agent dies (agent-answers.ts).
import fc from 'fast-check';
import { fromJson, toBinary, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { StreamResponseSchema } from '../../src/gen/a2a_pb.js';
import { StreamResponseSchema as StreamResponseV03 } from '../../src/gen/a2a/v1/a2a_pb.js';
import type { JsonObject } from '../../src/proto/json.js';
import { cut, TASK, TASK03_PROTO, type Cut } from './agent-answers.js';

export type GrpcAnswer = { status: number; messages: Buffer[]; trailers: Record<string, string>; cut?: Cut };

export const frame = (b: Buffer, flag = 0): Buffer => {
  const p = Buffer.alloc(5);
  p[0] = flag;
  p.writeUInt32BE(b.length, 1);
  return Buffer.concat([p, b]);
};
type OddTask = { metadata?: unknown; status?: { timestamp?: { nanos: number } } };
/**
 * A stream event of `schema` holding `task` (read as a SendMessageResponse too), and two whose values binary
 * holds and JSON cannot write: Infinity in the task's metadata (protobuf-es holds a Struct as plain JSON), nanos past
 * 999,999,999 in its status timestamp.
 */
function taskEvents(schema: DescMessage, task: JsonObject): GrpcDialect {
  const read = () => fromJson(schema, { task } as JsonValue) as Parameters<typeof toBinary>[1];
  const taskOf = (m: ReturnType<typeof read>) => (m as unknown as { payload: { value: OddTask } }).payload.value;
  const bytes = (m: ReturnType<typeof read>): Buffer => Buffer.from(toBinary(schema, m));
  const infinity = read();
  taskOf(infinity).metadata = { x: Infinity };
  const nanos = read();
  taskOf(nanos).status!.timestamp!.nanos = 1_500_000_000;
  return { event: bytes(read()), odd: [bytes(infinity), bytes(nanos)] };
}
/** A gRPC agent's version: a valid stream event (a task; read as a SendMessageResponse too) and odd ones. */
export interface GrpcDialect {
  event: Buffer;
  odd: Buffer[];
}
export const GRPC_V1 = taskEvents(StreamResponseSchema, TASK);
export const GRPC_V03 = taskEvents(StreamResponseV03, TASK03_PROTO);

/** A gRPC agent's answers: messages random, with a byte changed, torn, flagged compressed, odd or valid; any trailers. */
export function grpcAnswers(dialect: GrpcDialect = GRPC_V1): fc.Arbitrary<GrpcAnswer> {
  const valid = dialect.event;
  const message = fc.oneof(
    fc.uint8Array({ maxLength: 40 }).map((b) => frame(Buffer.from(b))),
    fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })).map(([i, v]) => {
      const b = Buffer.from(valid);
      b[i] = v;
      return frame(b);
    }),
    fc.nat({ max: valid.length + 4 }).map((n) => frame(valid).subarray(0, n)), // torn
    fc.constant(frame(valid, 1)), // compressed without an encoding
    fc.constantFrom(...dialect.odd).map((b) => frame(b)),
    fc.constant(frame(valid)),
  );
  return fc.record({
    status: fc.oneof(fc.constant(200), fc.constantFrom(400, 429, 500, 503)),
    messages: fc.array(message, { maxLength: 3 }),
    trailers: fc
      .record(
        {
          'grpc-status': fc.oneof(fc.constant('0'), fc.integer({ min: -1, max: 20 }).map(String), fc.string()),
          'grpc-message': fc.string({ maxLength: 20 }),
          'grpc-status-details-bin': fc.uint8Array({ maxLength: 30 }).map((b) => Buffer.from(b).toString('base64')),
        },
        { requiredKeys: [] },
      )
      .map((r) => r as Record<string, string>),
  });
}

/** gRPC answers, some cut off. */
export const cutGrpc = (answers: fc.Arbitrary<GrpcAnswer>) =>
  fc.tuple(answers, cut).map(([answer, c]) => (c ? { ...answer, cut: c } : answer));

/** A valid answer of a gRPC agent: the dialect's task event, status OK. */
export const validGrpc = (dialect: GrpcDialect): GrpcAnswer => ({
  status: 200,
  messages: [frame(dialect.event)],
  trailers: { 'grpc-status': '0' },
});
