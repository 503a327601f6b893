// Base64 (RFC 4648 §4, and §5's URL-safe alphabet when decoding) between
// buffers, without a string in between: Node's codec reads or writes only
// strings, and a multi-MiB payload (a `raw` part, spec §4.1.6) cut into
// strings piece by piece still allocates its whole size again on the V8 heap,
// whose young generation then grows to hold it. Two characters are looked up
// at a time (12 bits). Used by json-out.ts (encode into a body) and
// json-in.ts (decode in place, over the text being read).

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

// The tables are built on the first large payload (136 KiB that a gateway without one need not hold).
let pairs: Uint16Array | undefined;
let values: Int16Array | undefined;

/** 12 bits → their two characters (little-endian: the first character in the low byte). */
function pairTable(): Uint16Array {
  if (pairs) return pairs;
  pairs = new Uint16Array(4096);
  for (let v = 0; v < 4096; v++) pairs[v] = ALPHABET.charCodeAt(v >> 6) | (ALPHABET.charCodeAt(v & 63) << 8);
  return pairs;
}

/** Two characters (first << 8 | second) → their 12 bits, or -1 (either alphabet, never "="). */
function valueTable(): Int16Array {
  if (values) return values;
  values = new Int16Array(65536).fill(-1);
  const six = new Int8Array(256).fill(-1);
  for (let i = 0; i < 64; i++) six[ALPHABET.charCodeAt(i)] = i;
  six['-'.charCodeAt(0)] = 62;
  six['_'.charCodeAt(0)] = 63;
  for (let a = 0; a < 256; a++)
    for (let b = 0; b < 256; b++) if (six[a]! >= 0 && six[b]! >= 0) values[(a << 8) | b] = (six[a]! << 6) | six[b]!;
  return values;
}

/** Bytes written as standard padded base64 into `out` from `pos`; the position after them. */
export function encodeBase64Into(out: Uint8Array, pos: number, bytes: Uint8Array): number {
  const table = pairTable();
  const whole = bytes.length - (bytes.length % 3);
  for (let i = 0; i < whole; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    const hi = table[v >>> 12]!;
    const lo = table[v & 4095]!;
    out[pos] = hi & 255;
    out[pos + 1] = hi >> 8;
    out[pos + 2] = lo & 255;
    out[pos + 3] = lo >> 8;
    pos += 4;
  }
  if (whole < bytes.length) {
    const tail = Buffer.from(bytes.subarray(whole)).toString('base64');
    for (let k = 0; k < 4; k++) out[pos + k] = tail.charCodeAt(k);
    pos += 4;
  }
  return pos;
}

/** The length of `n` bytes in padded base64. */
export const base64Length = (n: number): number => Math.ceil(n / 3) * 4;

/**
 * Base64 text in `buf` [start, end) — either alphabet, padded or not, nothing else (the caller checked) — decoded
 * over itself from `start` (each group of bytes is written behind the characters still to read); the end of the
 * bytes. The text is gone.
 */
export function decodeBase64InPlace(buf: Uint8Array, start: number, end: number): number {
  const table = valueTable();
  while (end > start && buf[end - 1] === 0x3d) end--; // padding
  const whole = start + (end - start) - ((end - start) % 4);
  let pos = start;
  for (let i = start; i < whole; i += 4) {
    const v = (table[(buf[i]! << 8) | buf[i + 1]!]! << 12) | table[(buf[i + 2]! << 8) | buf[i + 3]!]!;
    buf[pos] = v >>> 16;
    buf[pos + 1] = (v >>> 8) & 255;
    buf[pos + 2] = v & 255;
    pos += 3;
  }
  if (whole < end) {
    // 2 or 3 characters left: 1 or 2 bytes
    const tail = Buffer.from(String.fromCharCode(...buf.subarray(whole, end)), 'base64');
    buf.set(tail, pos);
    pos += tail.length;
  }
  return pos;
}
