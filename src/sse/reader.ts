// Server-Sent Events reader (WHATWG HTML "event stream interpretation") for
// upstream streams (spec §9.4.2, §11.7): correct for any chunking, `\n`,
// `\r\n` and `\r` line ends, multi-line data, comments, event/id/retry
// fields and a leading BOM; an event larger than `maxEventBytes` fails the
// stream with SseEventTooLarge instead of growing memory.

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

/** Reads SSE events from a byte stream, pulling only as events are consumed. */
export async function* readSse(body: AsyncIterable<Uint8Array>, maxEventBytes: number): AsyncGenerator<SseEvent> {
  const parser = new SseParser(maxEventBytes);
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of body) {
    yield* parser.push(decoder.decode(chunk, { stream: true }));
    if (parser.failure) throw parser.failure;
  }
  yield* parser.push(decoder.decode());
  if (parser.failure) throw parser.failure;
  parser.end();
}
