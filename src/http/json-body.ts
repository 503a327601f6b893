// Reading a JSON request body safely (spec §13.2): the nesting depth is
// bounded by a scan of the raw bytes before JSON.parse sees them, so a body
// nesting millions of arrays costs one linear pass instead of seconds of
// parsing; then the parse, whose failure is the JSON-RPC/REST parse error.
// The same pass finds the long string values (a multi-MiB `raw` part's
// base64): readJsonBody leaves them out of the parse, as markers whose text
// stays in the body (proto/json-in.ts), so a large payload is not copied
// into a string and then into the parsed JSON. readAnswerJson reads an
// upstream's answer the same way (no depth limit: an agent's JSON is not
// refused for its nesting, as the caller's is), and readEventJson an
// upstream SSE event's data (large data comes as bytes: sse/reader.ts).
import { A2AError } from '../errors/a2a-error.js';
import { LongStrings, NO_LONG_STRINGS, type Span } from '../proto/json-in.js';
import { LARGE_BYTES, MAX_MARKERS, markerText } from '../proto/large-bytes.js';

/** Deepest JSON nesting a request body may have (a2a.proto messages nest ~8 levels, Struct values 32 more). */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;

/** The base64 alphabets (standard and URL-safe) and "=". */
const BASE64 = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=') BASE64[c.charCodeAt(0)] = 1;

const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * One pass over the JSON text: whether it nests objects/arrays deeper than `max` (strings skipped; malformed text is
 * JSON.parse's to refuse), and its string values of at least `long` bytes that JSON.parse would take as they are
 * (no control character in them).
 */
function scan(body: Uint8Array, max: number, long: number): { deep: boolean; spans: Span[] } {
  const spans: Span[] = [];
  let depth = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === QUOTE) {
      const start = i + 1;
      let escaped = false;
      let base64 = true;
      let control = false;
      for (i = start; i < body.length; i++) {
        const s = body[i]!;
        if (s === QUOTE) break;
        if (s === BACKSLASH) {
          escaped = true;
          i++;
        } else if (s < 0x20) control = true;
        else if (BASE64[s] === 0) base64 = false;
      }
      // a string with an escape is JSON.parse's to read (and to refuse: a bad escape is the caller's parse error)
      if (i - start < long || escaped || control || i >= body.length || spans.length >= MAX_MARKERS) continue;
      let next = i + 1;
      while (isSpace(body[next])) next++;
      if (body[next] !== COLON) spans.push({ start, end: i, base64 }); // a value, not a key
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > max) return { deep: true, spans };
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return { deep: false, spans };
}

/** Whether the JSON text nests objects/arrays deeper than `max`. */
export function nestsDeeperThan(body: Uint8Array, max: number): boolean {
  return scan(body, max, Infinity).deep;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw A2AError.of('PARSE_ERROR', `Invalid JSON payload: ${(e as Error).message}`);
  }
}

function tooDeep(): A2AError {
  return A2AError.invalidParams([{ field: '(body)', description: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` }]);
}

/** The parsed body; PARSE_ERROR for invalid JSON, INVALID_PARAMS for JSON nested too deep. */
export function parseJsonBody(body: Buffer | undefined): unknown {
  const bytes = body ?? Buffer.alloc(0);
  if (nestsDeeperThan(bytes, MAX_JSON_DEPTH)) throw tooDeep();
  return parse(bytes.toString('utf8'));
}

/**
 * The parsed body with its long string values left in the body (as markers; `strings` reads them), or the errors of
 * parseJsonBody. The body's buffer belongs to the result from then on: reading a request may decode base64 in it.
 */
export function readJsonBody(body: Buffer | undefined, maxDepth = MAX_JSON_DEPTH): JsonWithStrings {
  const bytes = body ?? Buffer.alloc(0);
  const { deep, spans } = scan(bytes, maxDepth, LARGE_BYTES);
  if (deep) throw tooDeep();
  if (spans.length === 0) return { value: parse(bytes.toString('utf8')), strings: NO_LONG_STRINGS };
  let text = '';
  let from = 0;
  spans.forEach((s, i) => {
    text += `${bytes.toString('utf8', from, s.start)}${markerText(i)}`;
    from = s.end;
  });
  text += bytes.toString('utf8', from);
  try {
    return { value: JSON.parse(text) as unknown, strings: new LongStrings(bytes, spans) };
  } catch {
    // the error as the whole text gives it (its position and excerpt are of the text the caller sent)
    return { value: parse(bytes.toString('utf8')), strings: NO_LONG_STRINGS };
  }
}

/** A body's JSON, its long strings left in the body as markers that `strings` reads. */
export interface JsonWithStrings {
  value: unknown;
  strings: LongStrings;
}

/**
 * An upstream's answer body read as readJsonBody reads a request (its long strings left in it: the body belongs
 * to the result), or undefined when it is not JSON. A body too short to hold a long string is parsed as it is.
 */
export function readAnswerJson(body: Buffer): JsonWithStrings | undefined {
  try {
    return body.length < LARGE_BYTES
      ? { value: JSON.parse(body.toString('utf8')) as unknown, strings: NO_LONG_STRINGS }
      : readJsonBody(body, Infinity);
  } catch {
    return undefined;
  }
}

/** An upstream SSE event's data as JSON (data kept as bytes — large, or a whole plain answer — read in place), or undefined. */
export function readEventJson(ev: { data: string; bytes?: Buffer }): JsonWithStrings | undefined {
  if (ev.bytes) return readAnswerJson(ev.bytes);
  try {
    return { value: JSON.parse(ev.data) as unknown, strings: NO_LONG_STRINGS };
  } catch {
    return undefined;
  }
}
