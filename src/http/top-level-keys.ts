// The values a JSON object gives a key at its top level, whatever the case of
// the key's letters (Go's encoding/json, which the official Go SDK's servers
// use, matches keys so: {"TENANT": "x"} sets its `tenant`, the last such key
// winning), read without parsing the whole text: a pass-through checks the
// tenant its request names (pipeline/stages/decode.ts) and forwards the bytes
// as they came, so what an agent's parser could take for the key is read
// here. Strings are skipped with indexOf (a multi-MiB base64 part costs a
// memchr, not a parse); a text that is no JSON object by this reading is
// undefined (the caller decides: the binding's own parser answers it).

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** The index just past the string whose opening quote is at `at`, or -1 when it does not end. */
function stringEnd(b: Buffer, at: number): number {
  for (let i = b.indexOf(QUOTE, at + 1); i >= 0; i = b.indexOf(QUOTE, i + 1)) {
    let slashes = 0;
    for (let j = i - 1; b[j] === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return i + 1;
  }
  return -1;
}

/** The index just past the JSON value starting at `at` (strings skipped whole, brackets counted), or -1. */
function valueEnd(b: Buffer, at: number): number {
  if (b[at] === QUOTE) return stringEnd(b, at);
  let depth = 0;
  for (let i = at; i < b.length; i++) {
    const c = b[i]!;
    if (c === QUOTE) {
      const end = stringEnd(b, i);
      if (end < 0) return -1;
      i = end - 1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (depth === 0) return i; // the enclosing object's end: a scalar ended just before it
      if (--depth === 0) return i + 1;
    } else if (depth === 0 && (c === 0x2c || isSpace(c))) return i;
  }
  return depth === 0 ? b.length : -1;
}

function skipSpace(b: Buffer, at: number): number {
  let i = at;
  while (isSpace(b[i])) i++;
  return i;
}

/**
 * The values of every top-level key of the JSON object in `b` that equals `key` ignoring case (escapes decoded), in
 * order, each parsed; undefined when `b` is not a JSON object as this reading goes. With `until`, the reading stops
 * at a key equal to it (its value is not walked): what was found before it.
 */
export function topLevelValues(b: Buffer, key: string, until?: string): unknown[] | undefined {
  const spans = topLevelSpans(b, key, until);
  if (spans === undefined) return undefined;
  try {
    return spans.map((s) => JSON.parse(s.toString('utf8')) as unknown);
  } catch {
    return undefined; // a named value JSON.parse refuses
  }
}

/** As topLevelValues, the values' bytes as they stand in `b` (views of it), not parsed. */
export function topLevelSpans(b: Buffer, key: string, until?: string): Buffer[] | undefined {
  const want = key.toLowerCase();
  const stop = until?.toLowerCase();
  const out: Buffer[] = [];
  let i = skipSpace(b, 0);
  if (b[i] !== 0x7b) return undefined;
  i = skipSpace(b, i + 1);
  if (b[i] === 0x7d) return out;
  try {
    for (;;) {
      if (b[i] !== QUOTE) return undefined;
      const keyEnd = stringEnd(b, i);
      if (keyEnd < 0) return undefined;
      // a key of the wanted length, or with escapes (its text is longer than what it says): decoded and compared
      const raw = b.subarray(i, keyEnd);
      const escaped = raw.includes(BACKSLASH);
      const text = (): string => (JSON.parse(raw.toString('utf8')) as string).toLowerCase();
      if (stop !== undefined && (raw.length === stop.length + 2 || escaped) && text() === stop) return out;
      const named = (raw.length === want.length + 2 || escaped) && text() === want;
      i = skipSpace(b, keyEnd);
      if (b[i] !== 0x3a) return undefined;
      i = skipSpace(b, i + 1);
      const end = valueEnd(b, i);
      if (end < 0 || end === i) return undefined;
      if (named) out.push(b.subarray(i, end));
      i = skipSpace(b, end);
      if (b[i] === 0x7d) return skipSpace(b, i + 1) === b.length ? out : undefined;
      if (b[i] !== 0x2c) return undefined;
      i = skipSpace(b, i + 1);
    }
  } catch {
    return undefined; // a key JSON.parse refuses
  }
}

/** The values `obj` gives `key` ignoring case (as Go's encoding/json reads an object). */
export function caseFoldedValues(obj: Record<string, unknown>, key: string): unknown[] {
  const want = key.toLowerCase();
  const out: unknown[] = [];
  for (const k in obj) if (k.length === want.length && k.toLowerCase() === want) out.push(obj[k]);
  return out;
}
