// Reading a request whose long JSON strings were left out of JSON.parse
// (http/json-body.ts): each long string value of the body stands in the
// parsed JSON as a marker (large-bytes.ts) while the text stays where it is,
// in the body. Reading the request as ProtoJSON (spec §5.5), a marker in a
// `bytes` field (a Part's `raw`, §4.1.6) is decoded from base64 in place, in
// the body's own buffer (its bytes take less room than their text), so a
// 10 MiB part is neither a 13 MiB string nor a second buffer; a marker
// anywhere else becomes its string before the read. Anything else — base64
// that protobuf-es's lenient decoder would take but this strict one does not
// (whitespace, inner padding), a marker read more than once, or a read that
// fails — is read again from the whole JSON, as if no string had been left
// out: the same request, or the same error.
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { decodeBase64InPlace } from './base64-bytes.js';
import { isObject, readJson } from './json.js';
import { bytesPaths, markerIndex, markerText, swapBytes, type Msg } from './large-bytes.js';

/** A long string value of the body: its text between the quotes, bytes [start, end). */
export interface Span {
  start: number;
  end: number;
  /** Every character is of the base64 alphabets or "=" (checked for padding when decoded). */
  base64: boolean;
}

export class LongStrings {
  private readonly byMarker = new Map<string, number>();
  /** Spans whose text was decoded in place (it is gone from the body). */
  private readonly decoded = new Set<number>();

  constructor(
    private readonly body: Buffer,
    readonly spans: readonly Span[],
  ) {
    spans.forEach((_, i) => this.byMarker.set(markerText(i), i));
  }

  /** The string a span holds (it has no escape: json-body.ts leaves a string with one to JSON.parse). */
  private text(i: number): string {
    if (this.decoded.has(i)) throw new Error('a long string was read after its bytes were decoded in place');
    const { start, end } = this.spans[i]!;
    return this.body.toString('utf8', start, end);
  }

  private indexOf(v: unknown): number | undefined {
    return typeof v === 'string' && v.length === 24 ? this.byMarker.get(v) : undefined;
  }

  /** A value with every marker in it replaced by its string (copied only along the way to one). */
  materialize(v: unknown): unknown {
    if (this.spans.length === 0) return v;
    const i = this.indexOf(v);
    if (i !== undefined) return this.text(i);
    if (Array.isArray(v)) {
      const out = v.map((x) => this.materialize(x));
      return out.some((x, k) => x !== v[k]) ? out : v;
    }
    if (!isObject(v)) return v;
    let out: Record<string, unknown> | undefined;
    for (const [k, x] of Object.entries(v)) {
      const y = this.materialize(x);
      if (y !== x) (out ??= { ...v })[k] = y;
    }
    return out ?? v;
  }

  /** The JSON with markers kept only in the bytes fields `desc` reaches (`kept`), every other one its string. */
  private prepare(desc: DescMessage, json: unknown, kept: Set<number>): unknown {
    if (!isObject(json)) return this.materialize(json);
    const paths = bytesPaths(desc);
    let out: Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(json)) {
      const p = paths.find((x) => x.field.jsonName === k || x.field.name === k);
      const one = (x: unknown): unknown => {
        if (!p?.bytes) return p ? this.prepare(p.field.message!, x, kept) : this.materialize(x);
        const i = this.indexOf(x);
        if (i === undefined) return x;
        kept.add(i);
        return x;
      };
      const next = p?.list && Array.isArray(v) ? v.map(one) : p?.list ? this.materialize(v) : one(v);
      const same = Array.isArray(next) && Array.isArray(v) ? next.every((x, n) => x === v[n]) : next === v;
      if (!same) (out ??= { ...json })[k] = next;
    }
    return out ?? json;
  }

  /** Whether a span is strict base64 (either alphabet, padded or not), which Node's decoder reads as protobuf-es does. */
  private decodable(i: number): boolean {
    const { start, end, base64 } = this.spans[i]!;
    // decoded once only: a second read would decode the bytes again, under the views the first message holds
    if (this.decoded.has(i) || !base64) return false;
    const b = this.body;
    let text = end;
    while (text > start && text > end - 2 && b[text - 1] === 0x3d) text--;
    if (b.subarray(start, text).includes(0x3d)) return false; // "=" inside: concatenated base64
    const length = text - start;
    return text === end ? length % 4 !== 1 : (end - start) % 4 === 0;
  }

  /** A decodable span's bytes, written over its text from its start (they take less room); its text is gone. */
  private decodeInPlace(i: number): Uint8Array {
    const { start, end } = this.spans[i]!;
    this.decoded.add(i);
    return this.body.subarray(start, decodeBase64InPlace(this.body, start, end));
  }

  /** The message read from the prepared JSON with each kept marker's bytes decoded in; undefined if any does not fit. */
  private resolve(desc: DescMessage, msg: Msg, kept: Set<number>): Msg | undefined {
    const seen = new Map<number, number>();
    swapBytes(desc, msg, (b) => {
      const i = markerIndex(b);
      if (i !== undefined && kept.has(i)) seen.set(i, (seen.get(i) ?? 0) + 1);
      return b;
    });
    for (const i of kept) if (seen.get(i) !== 1 || !this.decodable(i)) return undefined;
    return swapBytes(desc, msg, (b) => {
      const i = markerIndex(b);
      return i !== undefined && kept.has(i) ? this.decodeInPlace(i) : b;
    });
  }

  /** `json` read as a message of `schema` (readJson: ProtoJsonError on bad input), large base64 decoded in place. */
  read<Desc extends DescMessage>(schema: Desc, json: unknown): MessageShape<Desc> {
    if (this.spans.length > 0) {
      const kept = new Set<number>();
      const prepared = this.prepare(schema, json, kept);
      if (kept.size > 0) {
        let msg: Msg | undefined;
        try {
          msg = readJson(schema, prepared) as unknown as Msg;
        } catch {
          msg = undefined; // read again below, from the whole JSON: its error is the one answered
        }
        const resolved = msg && this.resolve(schema, msg, kept);
        if (resolved) return resolved as unknown as MessageShape<Desc>;
      } else return readJson(schema, prepared);
    }
    return readJson(schema, this.materialize(json));
  }
}

/** No long string left out. */
export const NO_LONG_STRINGS = new LongStrings(Buffer.alloc(0), []);
