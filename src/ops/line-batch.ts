// The call lines of one event-loop turn written to the log's destination in
// one write. The access log writes a turn's lines together (access-log.ts),
// each through pino into this; sonic-boom, the destination, appends every
// write to its buffer string and measures that string's byte length on each
// write, which flattens it: a copy of up to its 8 KiB per line. One write per
// turn does that once per turn. The lines go out right after the access log's
// flush, before any other line can come between them (a crash within that
// turn loses them; nothing in the access log's flush throws). Once the
// destination is closed (the exit, lifecycle.ts) a late line is dropped: a
// write to a closed sonic-boom throws, and here nothing would catch it.
interface Destination {
  write(text: string): unknown;
  flush?(cb?: (err?: Error | null) => void): void;
  readonly destroyed?: boolean;
}

export class LineBatch {
  #lines: string[] = [];

  constructor(private readonly dest: Destination) {}

  write(line: string): boolean {
    if (this.#lines.push(line) === 1) queueMicrotask(this.#flush);
    return true;
  }

  /** pino's logger.flush(cb): the waiting lines, then the destination's own flush. */
  flush(cb?: (err?: Error | null) => void): void {
    this.#flush();
    if (this.dest.flush) this.dest.flush(cb);
    else cb?.();
  }

  readonly #flush = (): void => {
    const lines = this.#lines;
    if (lines.length === 0) return;
    this.#lines = [];
    if (this.dest.destroyed) return;
    // (dest.write looked up each time: pino replaces it with a no-op when the output is gone, EPIPE)
    this.dest.write(lines.length === 1 ? lines[0]! : lines.join(''));
  };
}
