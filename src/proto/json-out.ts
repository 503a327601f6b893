// ProtoJSON of a message (spec §5.5) written as the bytes of a request or
// answer body, without building a multi-MiB base64 string for a large bytes
// value (large-bytes.ts) and a JSON text around it and a buffer of that text:
// each large value is swapped for a short marker (large-bytes.ts), the JSON
// is made and stringified with the markers, and the body is one buffer of
// that text with each marker's base64 written in its place (base64-bytes.ts:
// no string of it). Without a large value it is the plain JSON text.
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

export interface OutboundJson {
  /** The message's ProtoJSON (large bytes values as markers: only `body` may be written of it). */
  json: JsonValue;
  /** The body: `outer`, a JSON value holding `json`, as JSON text — bytes when a large value was written in. */
  body(outer: unknown): string | Buffer;
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
      const pieces = spots.map((s, i) => text.slice(i === 0 ? 0 : spots[i - 1]!.end, s.at));
      pieces.push(text.slice(spots[spots.length - 1]!.end));
      const size =
        pieces.reduce((n, p) => n + Buffer.byteLength(p), 0) + large.reduce((n, b) => n + base64Length(b.length), 0);
      const out = Buffer.allocUnsafe(size);
      let pos = 0;
      pieces.forEach((p, i) => {
        pos += out.write(p, pos, 'utf8');
        if (i < spots.length) pos = encodeBase64Into(out, pos, spots[i]!.bytes);
      });
      return out;
    },
  };
}
