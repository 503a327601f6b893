// Large `bytes` values in messages (a Part's `raw`, spec §4.1.6, is the one
// a2a.proto has): where they are and how to swap them, so the codecs around
// them (binary-chunks.ts, json-out.ts, json-in.ts) can move a multi-MiB
// payload without copying it through protobuf-es's encoders. A walk per
// message type follows only the fields that can reach bytes: bytes fields,
// lists of them, and message fields and lists of messages (not maps, not the
// google.protobuf well-known types, whose JSON forms are their own).
import { randomBytes } from 'node:crypto';
import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';

/** A bytes value at least this long is "large": moved by reference, never re-encoded whole. */
export const LARGE_BYTES = 64 * 1024;

export type Msg = Record<string, unknown> & { $typeName: string };

/**
 * Markers stand in for a large value while the rest of a message is read or written: MARKER_NONCE (random per
 * process) then a 2-byte index; 18 bytes, whose base64 form is 24 characters without padding.
 */
const MARKER_NONCE = randomBytes(16);
export const MAX_MARKERS = 0xffff;

export function markerBytes(i: number): Buffer {
  const m = Buffer.alloc(18);
  MARKER_NONCE.copy(m);
  m.writeUInt16BE(i, 16);
  return m;
}

export const markerText = (i: number): string => markerBytes(i).toString('base64');

/** The characters every marker's base64 begins with (the nonce's first 15 bytes); a marker is 24 characters. */
export const MARKER_TEXT_PREFIX = markerText(0).slice(0, 20);
export const MARKER_TEXT_LENGTH = 24;

/** The index a marker stands for, or undefined for any other bytes. */
export function markerIndex(b: Uint8Array): number | undefined {
  if (b.length !== 18) return undefined;
  for (let k = 0; k < 16; k++) if (b[k] !== MARKER_NONCE[k]) return undefined;
  return (b[16]! << 8) | b[17]!;
}

/** A field that holds bytes, or messages that may. */
export interface BytesPath {
  field: DescField;
  /** The field holds bytes (else messages of `field.message`). */
  bytes: boolean;
  list: boolean;
}

const paths = new Map<string, BytesPath[]>();

function pathOf(f: DescField): BytesPath | undefined {
  const list = f.fieldKind === 'list';
  if ((f.fieldKind === 'scalar' || (list && f.listKind === 'scalar')) && f.scalar === ScalarType.BYTES)
    return { field: f, bytes: true, list };
  if (f.fieldKind === 'message' || (list && f.listKind === 'message')) {
    const m = f.message!;
    if (m.typeName.startsWith('google.protobuf.') || f.delimitedEncoding) return undefined;
    return { field: f, bytes: false, list };
  }
  return undefined;
}

/** The fields of `desc` that can reach a bytes value (computed once per type; recursive types end at a cycle). */
export function bytesPaths(desc: DescMessage, seen?: Set<string>): BytesPath[] {
  const known = paths.get(desc.typeName);
  if (known) return known;
  seen ??= new Set<string>(); // (made only when not known: this runs per message of every call)
  if (seen.has(desc.typeName)) return []; // a cycle: its fields are counted where it started
  seen.add(desc.typeName);
  const out: BytesPath[] = [];
  for (const f of desc.fields) {
    const p = pathOf(f);
    if (p && (p.bytes || reaches(p.field.message!, seen))) out.push(p);
  }
  seen.delete(desc.typeName);
  if (seen.size === 0) paths.set(desc.typeName, out);
  return out;
}

function reaches(desc: DescMessage, seen: Set<string>): boolean {
  return seen.has(desc.typeName) || bytesPaths(desc, seen).length > 0;
}

/** A field's value (a oneof member's when it is the set case, else undefined). */
export function getField(msg: Msg, f: DescField): unknown {
  if (!f.oneof) return msg[f.localName];
  const o = msg[f.oneof.localName] as { case?: string; value?: unknown } | undefined;
  return o?.case === f.localName ? o.value : undefined;
}

function setField(msg: Msg, f: DescField, v: unknown): void {
  if (f.oneof) msg[f.oneof.localName] = { case: f.localName, value: v };
  else msg[f.localName] = v;
}

/** A shallow copy of a message (its prototype kept: fields with explicit presence read their defaults there). */
export function shallowCopy(msg: Msg): Msg {
  return Object.assign(Object.create(Object.getPrototypeOf(msg) as object) as Msg, msg);
}

const isLarge = (v: unknown): boolean => v instanceof Uint8Array && v.length >= LARGE_BYTES;

/** Whether the message holds a large bytes value anywhere a BytesPath reaches. */
export function carriesLarge(desc: DescMessage, msg: Msg): boolean {
  for (const p of bytesPaths(desc)) {
    const v = getField(msg, p.field);
    if (v === undefined || v === null) continue;
    if (p.bytes) {
      if (p.list ? (v as unknown[]).some(isLarge) : isLarge(v)) return true;
    } else {
      const d = p.field.message!;
      if (p.list ? (v as Msg[]).some((m) => carriesLarge(d, m)) : carriesLarge(d, v as Msg)) return true;
    }
  }
  return false;
}

/**
 * The message with every bytes value a BytesPath reaches replaced by `swap`'s answer: copied along the paths where
 * something changed, shared everywhere else (the message given is never changed).
 */
export function swapBytes(desc: DescMessage, msg: Msg, swap: (b: Uint8Array) => Uint8Array): Msg {
  let out = msg;
  for (const p of bytesPaths(desc)) {
    const v = getField(msg, p.field);
    if (v === undefined || v === null) continue;
    const one = (x: unknown): unknown =>
      p.bytes ? swap(x as Uint8Array) : swapBytes(p.field.message!, x as Msg, swap);
    let next: unknown;
    if (p.list) {
      const items = v as unknown[];
      const mapped = items.map(one);
      next = mapped.some((x, i) => x !== items[i]) ? mapped : v;
    } else next = one(v);
    if (next === v) continue;
    if (out === msg) out = shallowCopy(msg);
    setField(out, p.field, next);
  }
  return out;
}
