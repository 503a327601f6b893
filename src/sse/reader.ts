// Server-Sent Events reader (WHATWG HTML "event stream interpretation") for
// upstream streams (spec §9.4.2, §11.7): correct for any chunking, `\n`,
// `\r\n` and `\r` line ends, multi-line data, comments, event/id/retry
// fields and a leading BOM; an event larger than `maxEventBytes` fails the
// stream with SseEventTooLarge instead of growing memory. It reads bytes:
// lines end only at CR or LF bytes, which no UTF-8 character holds, so the
// text is decoded per line (a short data line at once: no view of its chunk
// is kept); an event with a data line of LARGE_BYTES or more keeps its data
// as bytes (`bytes`, decoded to `data` only if read), so a multi-MiB `raw`
// part is read from it in place (http/json-body.ts), never made a string.
import { DONE } from '../core/event-stream.js';
import { LARGE_BYTES } from '../proto/large-bytes.js';

export interface SseEvent {
  /** The `event:` field; "message" when absent. */
  event: string;
  data: string;
  /** The data's UTF-8 bytes when they are LARGE_BYTES or more, or a whole non-SSE answer (http-pool.ts whole()); `data` is then decoded from them when read. */
  bytes?: Buffer;
  id?: string;
  retry?: number;
}

export class SseEventTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`an SSE event exceeded the maximum size of ${limit} bytes`);
  }
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const NEWLINE = Buffer.from([LF]);

/** Data lines as one buffer, an LF between them (a single line of bytes as it is). */
function joinLines(lines: Array<string | Buffer>, size: number): Buffer {
  if (lines.length === 1 && typeof lines[0] !== 'string') return lines[0]!;
  const parts: Buffer[] = [];
  lines.forEach((l, k) => {
    if (k > 0) parts.push(NEWLINE);
    parts.push(typeof l === 'string' ? Buffer.from(l, 'utf8') : l);
  });
  return Buffer.concat(parts, size);
}

/** An event whose data stays bytes: `data` decoded from them when read. */
export function bytesEvent(event: string, bytes: Buffer): SseEvent {
  return {
    event,
    bytes,
    get data() {
      return bytes.toString('utf8');
    },
  };
}

/** Incremental parser: feed bytes, collect the events completed so far. */
export class SseParser {
  /** The bytes of a line not ended yet (views of the chunks they came in). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The stream's first bytes, until it is known whether they start with a BOM. */
  private start: Buffer | undefined = Buffer.alloc(0);
  private skipLf = false;
  /** The event's data lines: text, or bytes for a line of LARGE_BYTES or more (`large`). */
  private data: Array<string | Buffer> = [];
  private large = false;
  private dataBytes = 0;
  private event = '';
  private id: string | undefined;
  private retry: number | undefined;

  constructor(private readonly maxEventBytes: number) {}

  /** Set when an event grew past the limit; the events before it are still returned. */
  failure: SseEventTooLarge | undefined;

  /** Parses `chunk` (bytes; text is taken as its UTF-8) and returns every event it completed (up to a failure). */
  push(chunk: Uint8Array | string): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.failure) return out;
    let b =
      typeof chunk === 'string'
        ? Buffer.from(chunk, 'utf8')
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.start !== undefined) {
      // a leading BOM is dropped, however the first bytes were cut
      b = this.start.length > 0 ? Buffer.concat([this.start, b]) : b;
      if (b.length < BOM.length && BOM.subarray(0, b.length).equals(b)) {
        this.start = b;
        return out;
      }
      this.start = undefined;
      if (b.subarray(0, BOM.length).equals(BOM)) b = b.subarray(BOM.length);
    }
    try {
      this.parse(b, out);
    } catch (e) {
      if (!(e instanceof SseEventTooLarge)) throw e;
      this.failure = e;
    }
    return out;
  }

  private parse(b: Buffer, out: SseEvent[]): void {
    let start = 0;
    if (this.skipLf && b.length > 0) {
      // the \n of a \r\n split across chunks
      this.skipLf = false;
      if (b[0] === LF) start = 1;
    }
    // the next CR and LF, each looked for again only once passed (a search per line would rescan the chunk's
    // rest for the end kind it lacks: quadratic on a CR-only stream)
    let cr = b.indexOf(CR, start);
    let lf = b.indexOf(LF, start);
    while (start < b.length) {
      if (cr >= 0 && cr < start) cr = b.indexOf(CR, start);
      if (lf >= 0 && lf < start) lf = b.indexOf(LF, start);
      let end = lf;
      if (cr >= 0 && (end < 0 || cr < end)) end = cr;
      if (end < 0) break;
      let ev: SseEvent | undefined;
      if (this.pending.length > 0) ev = this.line(this.joinPending(b.subarray(start, end)));
      else if (end === start) ev = this.dispatch();
      else ev = this.line(b.subarray(start, end));
      if (b[end] === CR) {
        if (end + 1 < b.length) {
          if (b[end + 1] === LF) end++;
        } else this.skipLf = true;
      }
      start = end + 1;
      if (ev) out.push(ev);
    }
    if (start < b.length) {
      this.pending.push(b.subarray(start));
      this.pendingBytes += b.length - start;
      if (this.pendingBytes + this.dataBytes > this.maxEventBytes) throw new SseEventTooLarge(this.maxEventBytes);
    }
  }

  private joinPending(last: Buffer): Buffer {
    this.pending.push(last);
    const line = Buffer.concat(this.pending, this.pendingBytes + last.length);
    this.pending = [];
    this.pendingBytes = 0;
    return line;
  }

  /**
   * End of input: the event the body ended in, if it has data — its last line taken as ended. The SSE standard drops
   * an event without its closing blank line; the official SDK clients dispatch it, so an agent that ends its body
   * after the last `data:` line works with them directly: it does through the gateway too. A body cut in the middle
   * of a data line gives that cut data, which fails as JSON where it is read (INVALID_AGENT_RESPONSE), never a silent
   * clean end.
   */
  end(): SseEvent | undefined {
    if (this.failure) return undefined;
    let ev: SseEvent | undefined;
    try {
      if (this.pending.length > 0) ev = this.line(this.joinPending(Buffer.alloc(0)));
      ev ??= this.dispatch();
    } catch (e) {
      if (!(e instanceof SseEventTooLarge)) throw e;
      this.failure = e;
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.data = [];
    this.large = false;
    this.dataBytes = 0;
    return ev;
  }

  private line(line: Buffer): SseEvent | undefined {
    if (line.length === 0) return this.dispatch();
    if (line[0] === COLON) return undefined;
    const colon = line.indexOf(COLON);
    const field = line.toString('latin1', 0, colon < 0 ? line.length : colon);
    const from = colon < 0 ? line.length : line[colon + 1] === SPACE ? colon + 2 : colon + 1;
    const value = line.subarray(from);
    switch (field) {
      case 'data':
        this.dataBytes += value.length + 1;
        if (this.dataBytes > this.maxEventBytes) throw new SseEventTooLarge(this.maxEventBytes);
        // a short line is decoded at once (no view left holding its chunk); a large one stays bytes
        if (value.length < LARGE_BYTES) this.data.push(value.toString('utf8'));
        else {
          this.data.push(value);
          this.large = true;
        }
        break;
      case 'event':
        this.event = value.toString('utf8');
        break;
      case 'id': {
        if (!value.includes(0)) this.id = value.toString('utf8');
        break;
      }
      case 'retry': {
        const text = value.toString('latin1');
        if (/^\d+$/.test(text)) this.retry = Number(text);
        break;
      }
      default:
        break;
    }
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const lines = this.data;
    const event = this.event || 'message';
    this.event = '';
    if (lines.length === 0) {
      this.retry = undefined;
      return undefined;
    }
    const ev: SseEvent = this.large
      ? bytesEvent(event, joinLines(lines, this.dataBytes - 1))
      : { event, data: lines.join('\n') };
    if (this.id !== undefined) ev.id = this.id;
    if (this.retry !== undefined) ev.retry = this.retry;
    this.data = [];
    this.large = false;
    this.dataBytes = 0;
    this.retry = undefined;
    return ev;
  }
}

/**
 * The events of a byte stream, as pulled one at a time: an object with next() and return() (core/event-stream.ts
 * says why).
 */
class SseEvents implements AsyncIterableIterator<SseEvent> {
  private readonly parser: SseParser;
  private chunks: AsyncIterator<Uint8Array> | undefined;
  /** The events of the last chunk, from `at` on not pulled yet. */
  private events: SseEvent[] = [];
  private at = 0;
  private bodyEnded = false;
  private finished = false;

  constructor(
    private readonly body: AsyncIterable<Uint8Array>,
    maxEventBytes: number,
  ) {
    this.parser = new SseParser(maxEventBytes);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<SseEvent>> {
    if (this.at < this.events.length) return Promise.resolve({ done: false, value: this.events[this.at++]! });
    if (this.finished) return Promise.resolve(DONE);
    // an event past the limit fails the stream after the events before it
    if (this.parser.failure) {
      this.finish();
      return Promise.reject(this.parser.failure);
    }
    if (this.bodyEnded) {
      const last = this.parser.end();
      if (last === undefined && this.parser.failure) {
        this.finish();
        return Promise.reject(this.parser.failure);
      }
      this.finished = true;
      return Promise.resolve(last === undefined ? DONE : { done: false, value: last });
    }
    return new Promise((resolve, reject) => this.read(resolve, reject));
  }

  /** Reads chunks until one completes an event or the body ends (a loop: keep-alive comments add no promise chain). */
  private read(resolve: (r: Promise<IteratorResult<SseEvent>>) => void, reject: (e: unknown) => void): void {
    this.chunks ??= this.body[Symbol.asyncIterator]();
    this.chunks.next().then(
      (r) => {
        if (this.finished) return resolve(Promise.resolve(DONE));
        this.bodyEnded = r.done === true;
        try {
          if (!r.done && !(r.value instanceof Uint8Array)) throw new TypeError('an SSE body chunk is not bytes');
          this.events = r.done ? [] : this.parser.push(r.value);
        } catch (e) {
          // a chunk that is not bytes (the size limit is kept in parser.failure): the pull fails, as a generator's would
          this.finish();
          return reject(e);
        }
        this.at = 0;
        if (this.events.length > 0 || this.parser.failure || this.bodyEnded) resolve(this.next());
        else this.read(resolve, reject);
      },
      (e: unknown) => {
        this.finished = true;
        reject(e);
      },
    );
  }

  return(): Promise<IteratorResult<SseEvent>> {
    this.finish();
    return Promise.resolve(DONE);
  }

  /** Once: no event left to pull, the body returned unless it ended. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.events = [];
    if (!this.bodyEnded) void this.chunks?.return?.()?.catch(() => undefined);
  }
}

/** Reads SSE events from a byte stream, pulling only as events are consumed. */
export function readSse(body: AsyncIterable<Uint8Array>, maxEventBytes: number): AsyncIterableIterator<SseEvent> {
  return new SseEvents(body, maxEventBytes);
}
