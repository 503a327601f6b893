// A body gathered as it comes, for a caller's request (body-reader.ts) and an
// upstream's answer (upstream/http-pool.ts; upstream/pulled-answer.ts: a
// small relayed answer, a card, a stream's non-SSE answer): a large body of
// declared length goes into one buffer of that length once a quarter of it
// has come, so it is never held twice — as its chunks and their
// concatenation — and a peer that declares 10 MiB and sends a byte gets no
// 10 MiB buffer. Without a declared length, or past it, the chunks are kept
// and concatenated at the end.

export class GatheredBody {
  /** The declared length's buffer, filled from its start; undefined before a quarter came, or past it. */
  private whole: Buffer | undefined;
  private readonly chunks: Buffer[] = [];
  /** Bytes gathered so far. */
  length = 0;

  constructor(private readonly declared: number | undefined) {}

  add(b: Buffer): void {
    if (this.whole && this.length + b.length > this.whole.length) {
      this.chunks.push(this.whole.subarray(0, this.length)); // more than declared: gathered as chunks from here
      this.whole = undefined;
    }
    if (this.whole) {
      b.copy(this.whole, this.length);
      this.length += b.length;
      return;
    }
    this.chunks.push(b);
    this.length += b.length;
    const declared = this.declared;
    if (declared && this.length < declared && this.length * 4 >= declared) {
      this.whole = Buffer.allocUnsafe(declared);
      let at = 0;
      for (const c of this.chunks) at += c.copy(this.whole, at);
      this.chunks.length = 0;
    }
  }

  /** The bytes gathered, in one buffer. */
  bytes(): Buffer {
    const whole = this.whole;
    if (whole) return this.length === whole.length ? whole : whole.subarray(0, this.length);
    return Buffer.concat(this.chunks, this.length);
  }
}
