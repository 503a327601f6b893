// An SSE parser for the tests alone, written apart from the gateway's own
// (src/sse/reader.ts) so that a bug there cannot hide in what the tests read
// (issue 17). It follows WHATWG HTML §9.2.6 "Interpreting an event stream"
// step by step: bytes are UTF-8 decoded as a stream (a leading BOM dropped);
// lines end at CRLF, LF or CR — a CR at the end of a chunk waits for the next
// one, which may start with its LF; an empty line dispatches; a line starting
// with ":" is a comment; "field: value" loses one space after the colon; a
// line without a colon is a field with an empty value; data lines join with
// LF; an event with an empty data buffer is not dispatched; the event type
// resets after each dispatch and the last event id does not; an unterminated
// event at the end of the stream is dropped. Also cutAt(): a body cut into
// the chunks a property test reads it in.

export interface TestSseEvent {
  /** The event type: "message" unless an `event:` field set it. */
  event: string;
  data: string;
  /** The last event ID at the time of dispatch ('' when none was set). */
  id: string;
}

export class TestSseParser {
  private readonly decoder = new TextDecoder('utf-8'); // strips a leading BOM, keeps split code points
  private buffer = '';
  private dataBuffer = '';
  private eventType = '';
  private lastEventId = '';
  /** Comment lines seen (keep-alives among them). */
  comments: string[] = [];

  /** Feeds bytes (or already decoded text); returns the events they completed. */
  push(chunk: Uint8Array | string): TestSseEvent[] {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    return this.lines(false);
  }

  /** End of stream: a final CR is a line end; whatever event is incomplete is dropped. */
  end(): TestSseEvent[] {
    this.buffer += this.decoder.decode();
    const out = this.lines(true);
    this.buffer = '';
    return out;
  }

  private lines(atEnd: boolean): TestSseEvent[] {
    const out: TestSseEvent[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      if (!m) break;
      // a CR as the last character may be the first half of a CRLF still to come
      if (m[0] === '\r' && m.index === this.buffer.length - 1 && !atEnd) break;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      const ev = this.line(line);
      if (ev) out.push(ev);
    }
    return out;
  }

  private line(line: string): TestSseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line[0] === ':') {
      this.comments.push(line.slice(1));
      return undefined;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value[0] === ' ') value = value.slice(1);
    if (field === 'event') this.eventType = value;
    else if (field === 'data') this.dataBuffer += `${value}\n`;
    else if (field === 'id' && !value.includes('\u0000')) this.lastEventId = value;
    // "retry" sets the reconnection time, and other fields are ignored: nothing a test reads
    return undefined;
  }

  private dispatch(): TestSseEvent | undefined {
    const data = this.dataBuffer;
    const event = this.eventType || 'message';
    this.dataBuffer = '';
    this.eventType = '';
    if (data === '') return undefined;
    return { event, data: data.endsWith('\n') ? data.slice(0, -1) : data, id: this.lastEventId };
  }
}

/** `bytes` cut at the given offsets (each taken modulo its length + 1; duplicates dropped): the chunks a property reads. */
export function cutAt(bytes: Buffer, at: number[]): Buffer[] {
  const points = [...new Set(at.map((n) => n % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const p of points) {
    out.push(bytes.subarray(from, p));
    from = p;
  }
  out.push(bytes.subarray(from));
  return out;
}
