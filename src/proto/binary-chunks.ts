// A message's protobuf binary form as a list of chunks whose concatenation is
// the message (what the gRPC binding writes, spec §10): large bytes values
// (large-bytes.ts) are chunks of their own, by reference, with their tag and
// length written before them, so a 10 MiB `raw` part is not copied on the way
// out (protobuf-es's toBinary would grow a buffer to 16 MiB around it and copy
// it once more at the end). Everything else is protobuf-es's encoding; the
// fields on the way to a large value come after the others, which every
// protobuf parser takes (fields may come in any order).
import { clearField, toBinary, type DescMessage } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { bytesPaths, carriesLarge, getField, shallowCopy, type Msg } from './large-bytes.js';

/** Tag and length of a length-delimited field. */
function head(no: number, length: number): Uint8Array {
  return new BinaryWriter().tag(no, WireType.LengthDelimited).uint32(length).finish();
}

const total = (chunks: Uint8Array[]): number => chunks.reduce((n, c) => n + c.length, 0);

/** The message's binary form as chunks (one chunk, protobuf-es's own, when it holds no large bytes value). */
export function toBinaryChunks(desc: DescMessage, msg: Msg): Uint8Array[] {
  if (!carriesLarge(desc, msg)) return [toBinary(desc, msg)];
  const rest = shallowCopy(msg);
  const written = bytesPaths(desc).filter((p) => {
    const v = getField(msg, p.field);
    if (v === undefined || v === null) return false;
    clearField(rest, p.field);
    return true;
  });
  const out: Uint8Array[] = [toBinary(desc, rest)];
  for (const p of written) {
    const v = getField(msg, p.field);
    for (const item of p.list ? (v as unknown[]) : [v]) {
      if (p.bytes) {
        const b = item as Uint8Array;
        out.push(head(p.field.number, b.length), b);
      } else {
        const inner = toBinaryChunks(p.field.message!, item as Msg);
        out.push(head(p.field.number, total(inner)), ...inner);
      }
    }
  }
  return out;
}

/** The chunks as one buffer (where one is needed whole: grpc-js answers). */
export function concatChunks(chunks: Uint8Array[]): Buffer {
  const one = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total(chunks));
  return Buffer.isBuffer(one) ? one : Buffer.from(one.buffer, one.byteOffset, one.byteLength);
}
