// Server-Sent Events reader (WHATWG HTML "event stream interpretation") for
// upstream streams (spec §9.4.2, §11.7): correct for any chunking, `\n`,
// `\r\n` and `\r` line ends, multi-line data, comments, event/id/retry
// fields and a leading BOM; an event larger than `maxEventBytes` fails the
// stream with SseEventTooLarge instead of growing memory.
import { DONE } from '../core/event-stream.js';

export interface SseEvent {
  /** The `event:` field; "message" when absent. */
  event: string;
  data: string;
  id?: string;
  retry?: number;
}

export class SseEventTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`an SSE event exceeded the maximum size of ${limit} bytes`);
  }
}

/** Incremental parser: feed text, collect the events completed so far. */
export class SseParser {
  private pending = '';
  private sawBom = false;
  private skipLf = false;
  private data: string[] = [];
  private dataBytes = 0;
  private event = '';
  private id: string | undefined;
  private retry: number | undefined;

  constructor(private readonly maxEventBytes: number) {}

  /** Set when an event grew past the limit; the events before it are still returned. */
  failure: SseEventTooLarge | undefined;

  /** Parses `text` and returns every event it completed (up to a failure). */
  push(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.failure) return out;
    try {
      this.parse(text, out);
    } catch (e) {
      if (!(e instanceof SseEventTooLarge)) throw e;
      this.failure = e;
    }
    return out;
  }

  private parse(text: string, out: SseEvent[]): void {
    let s = text;
    if (!this.sawBom && s.length > 0) {
      this.sawBom = true;
      if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
    }
    let start = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      if (c === 10 && this.skipLf && i === start && this.pending === '') {
        // the \n of a \r\n split across chunks
        this.skipLf = false;
        start = i + 1;
        continue;
      }
      this.skipLf = false;
      const line = this.pending + s.slice(start, i);
      this.pending = '';
      if (c === 13) {
        if (i + 1 < s.length) {
          if (s.charCodeAt(i + 1) === 10) i++;
        } else {
          this.skipLf = true;
        }
      }
      start = i + 1;
      const ev = this.line(line);
      if (ev) out.push(ev);
    }
    if (start < s.length) {
      this.skipLf = false;
      this.pending += s.slice(start);
      if (this.pending.length + this.dataBytes > this.maxEventBytes) throw new SseEventTooLarge(this.maxEventBytes);
    }
  }

  /** End of input: an unterminated event is dropped, as the SSE standard says. */
  end(): void {
    this.pending = '';
    this.data = [];
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.dataBytes += value.length + 1;
        if (this.dataBytes > this.maxEventBytes) throw new SseEventTooLarge(this.maxEventBytes);
        this.data.push(value);
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.id = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break;
    }
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const hadData = this.data.length > 0;
    const ev: SseEvent = { event: this.event || 'message', data: this.data.join('\n') };
    if (this.id !== undefined) ev.id = this.id;
    if (this.retry !== undefined) ev.retry = this.retry;
    this.data = [];
    this.dataBytes = 0;
    this.event = '';
    this.retry = undefined;
    return hadData ? ev : undefined;
  }
}

/**
 * The events of a byte stream, as pulled one at a time: an object with next() and return() (core/event-stream.ts
 * says why).
 */
class SseEvents implements AsyncIterableIterator<SseEvent> {
  private readonly parser: SseParser;
  private readonly decoder = new TextDecoder('utf-8');
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
      this.parser.end();
      this.finished = true;
      return Promise.resolve(DONE);
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
          this.events = this.parser.push(
            r.done ? this.decoder.decode() : this.decoder.decode(r.value, { stream: true }),
          );
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
