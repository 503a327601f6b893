// Reading a JSON request body safely (spec §13.2): the nesting depth is
// bounded by a scan of the raw bytes before JSON.parse sees them, so a body
// nesting millions of arrays costs one linear pass instead of seconds of
// parsing; then the parse, whose failure is the JSON-RPC/REST parse error.
import { A2AError } from '../errors/a2a-error.js';

/** Deepest JSON nesting a request body may have (a2a.proto messages nest ~8 levels, Struct values 32 more). */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;

/** Whether the JSON text nests objects/arrays deeper than `max` (strings skipped; malformed text is JSON.parse's to refuse). */
export function nestsDeeperThan(body: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** The parsed body; PARSE_ERROR for invalid JSON, INVALID_PARAMS for JSON nested too deep. */
export function parseJsonBody(body: Buffer | undefined): unknown {
  const bytes = body ?? Buffer.alloc(0);
  if (nestsDeeperThan(bytes, MAX_JSON_DEPTH)) {
    throw A2AError.invalidParams([
      { field: '(body)', description: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` },
    ]);
  }
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (e) {
    throw A2AError.of('PARSE_ERROR', `Invalid JSON payload: ${(e as Error).message}`);
  }
}
