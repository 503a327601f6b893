// ProtoJSON of a message (spec §5.5) written as the bytes of a request or
// answer body, without building a multi-MiB base64 string for a large bytes
// value (large-bytes.ts) and a JSON text around it and a buffer of that text:
// each large value is swapped for a short marker (large-bytes.ts), the JSON
// is made and stringified with the markers, and the body is a PiecedBody: the
// text between the markers, and each marker's base64 made a chunk at a time
// as the body is sent (base64-bytes.ts: no string of it, and never the whole
// body in memory at once). Without a large value it is the plain JSON text.
import type { DescMessage, JsonValue, Message } from '@bufbuild/protobuf';
import { base64Length, encodeBase64Into } from './base64-bytes.js';
import {
  carriesLarge,
  LARGE_BYTES,
  MARKER_TEXT_LENGTH,
  MARKER_TEXT_PREFIX,
  markerBytes,
  markerIndex,
  MAX_MARKERS,
  swapBytes,
  type Msg,
} from './large-bytes.js';
import { writeJson } from './json.js';

/** The base64 of this many bytes of a large value is one chunk of a PiecedBody (64 KiB; a multiple of 3: no padding inside). */
const CHUNK_BYTES = 48 * 1024;

/**
 * A body made as it is sent: its length first (the Content-Length), then its bytes in pieces — the JSON text
 * around each large value, and the value's base64 CHUNK_BYTES at a time. Each iteration makes the pieces
 * afresh (a retried request sends it again).
 */
export class PiecedBody implements Iterable<Buffer> {
  constructor(
    readonly byteLength: number,
    private readonly texts: Buffer[],
    private readonly large: Uint8Array[],
  ) {}

  *[Symbol.iterator](): Iterator<Buffer> {
    for (let i = 0; i < this.texts.length; i++) {
      if (this.texts[i]!.length > 0) yield this.texts[i]!;
      const bytes = this.large[i];
      if (!bytes) continue;
      for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
        const part = bytes.subarray(at, at + CHUNK_BYTES);
        const out = Buffer.allocUnsafe(base64Length(part.length));
        encodeBase64Into(out, 0, part);
        yield out;
      }
    }
  }
}

/** A body as an answer or request carries it: JSON text, bytes, or pieces made as they are sent. */
export type JsonBody = string | Buffer | PiecedBody;

/** A body's length in bytes (its Content-Length). */
export const bodyLength = (body: JsonBody): number =>
  body instanceof PiecedBody ? body.byteLength : Buffer.byteLength(body);

export interface OutboundJson {
  /** The message's ProtoJSON (large bytes values as markers: only `body` may be written of it). */
  json: JsonValue;
  /** The body: `outer`, a JSON value holding `json`, as JSON text — pieces when it holds a large value. */
  body(outer: unknown): string | PiecedBody;
}

/** A JSON value written as it is (no large bytes value in it). */
export function plainJson(json: JsonValue): OutboundJson {
  return { json, body: (outer) => JSON.stringify(outer) };
}

/**
 * Where each marker's base64 stands in the JSON text (inside its quotes), in the text's order: one pass over the
 * text for the markers' common prefix (not one search per marker). Each marker must be there exactly once.
 */
function markerSpots(text: string, large: Uint8Array[]): Array<{ at: number; end: number; bytes: Uint8Array }> {
  const spots: Array<{ at: number; end: number; bytes: Uint8Array }> = [];
  const seen = new Uint8Array(large.length);
  for (let at = text.indexOf(MARKER_TEXT_PREFIX); at >= 0; at = text.indexOf(MARKER_TEXT_PREFIX, at + 1)) {
    const end = at + MARKER_TEXT_LENGTH;
    const i = markerIndex(Buffer.from(text.slice(at, end), 'base64'));
    if (i === undefined || i >= large.length || seen[i] === 1)
      throw new Error('a large bytes marker is not once in the JSON');
    seen[i] = 1;
    spots.push({ at, end, bytes: large[i]! });
  }
  if (spots.length !== large.length) throw new Error('a large bytes marker is not once in the JSON');
  return spots;
}

export function outboundJson(desc: DescMessage, message: Message): OutboundJson {
  const msg = message as unknown as Msg;
  if (!carriesLarge(desc, msg)) return plainJson(writeJson(desc, message));
  const large: Uint8Array[] = [];
  const swapped = swapBytes(desc, msg, (b) =>
    b.length >= LARGE_BYTES && large.length < MAX_MARKERS ? markerBytes(large.push(b) - 1) : b,
  );
  return {
    json: writeJson(desc, swapped as unknown as Message),
    body(outer) {
      const text = JSON.stringify(outer);
      const spots = markerSpots(text, large);
      const texts = spots.map((s, i) => Buffer.from(text.slice(i === 0 ? 0 : spots[i - 1]!.end, s.at), 'utf8'));
      texts.push(Buffer.from(text.slice(spots[spots.length - 1]!.end), 'utf8'));
      const inOrder = spots.map((s) => s.bytes);
      const size = texts.reduce((n, t) => n + t.length, 0) + inOrder.reduce((n, b) => n + base64Length(b.length), 0);
      return new PiecedBody(size, texts, inOrder);
    },
  };
}
