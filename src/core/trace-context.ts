// W3C Trace Context (traceparent / tracestate) across every binding pair:
// a valid incoming traceparent is forwarded as is (HTTP header ↔ gRPC
// metadata); a missing or malformed one is replaced by a new trace, so every
// call the gateway forwards is traceable and its trace id is in the log line.
import { randomFillSync } from 'node:crypto';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function validTraceparent(tp: string | undefined): boolean {
  const m = tp ? TRACEPARENT.exec(tp.trim()) : null;
  return m !== null && m[1] !== 'ff' && !/^0+$/.test(m[2] ?? '') && !/^0+$/.test(m[3] ?? '');
}

// Random ids come from a pooled buffer refilled 4 KiB at a time: one
// randomFillSync per ~170 calls instead of two randomBytes calls per call.
const pool = Buffer.alloc(4096);
let offset = pool.length;

function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}

export function newTraceparent(): string {
  return `00-${randomHex(16)}-${randomHex(8)}-01`;
}

export function traceIdOf(traceparent: string | undefined): string | undefined {
  return traceparent ? TRACEPARENT.exec(traceparent)?.[2] : undefined;
}
