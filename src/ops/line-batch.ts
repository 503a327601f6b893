// The call lines of one event-loop turn written to the log's destination in
// one write. The access log writes a turn's lines together (access-log.ts),
// each through pino into this; sonic-boom, the destination, appends every
// write to its buffer string and measures that string's byte length on each
// write, which flattens it: a copy of up to its 8 KiB per line. One write per
// turn does that once per turn. The lines go out right after the access log's
// flush, before any other line can come between them.
interface Destination {
  write(text: string): unknown;
}

export class LineBatch {
  #lines: string[] = [];

  constructor(private readonly dest: Destination) {}

  write(line: string): boolean {
    if (this.#lines.push(line) === 1) queueMicrotask(this.#flush);
    return true;
  }

  readonly #flush = (): void => {
    const lines = this.#lines;
    this.#lines = [];
    this.dest.write(lines.length === 1 ? lines[0]! : lines.join(''));
  };
}
