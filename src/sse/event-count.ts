// How many events an SSE body relayed as it came holds (a pass-through
// stream, spec §9.4.2 / §11.7), for its access-log line and the stream-event
// metric, counted from its bytes as they pass, without parsing them: an
// event is a block of lines ended by a blank line with at least one `data`
// field (WHATWG HTML "event stream interpretation": a block without data is
// not dispatched), for any chunking and `\n`, `\r\n` or `\r` line ends; a
// leading BOM is skipped. The block a body ends in counts too, as the
// gateway's own reader (reader.ts) delivers it. Only a line's first five
// bytes are looked at; the rest of it is skipped with indexOf.
const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const DATA = [0x64, 0x61, 0x74, 0x61]; // "data"
const BOM = [0xef, 0xbb, 0xbf];

export class SseEventCount {
  private ended = 0;
  /** At a line's start. */
  private atStart = true;
  /** The last byte was a CR: an LF next ends the same line. */
  private afterCr = false;
  /** Bytes of "data" matched at this line's start; 4: the whole name, 5: and its colon; -1: another field or a comment. */
  private field = 0;
  /** The block so far has a data line. */
  private data = false;
  /** Bytes of a leading BOM still to skip (-1 once the body's first bytes are past). */
  private bom = 0;

  /** The events counted so far, the block the body ends in included. */
  get events(): number {
    return this.ended + (this.data || (!this.atStart && this.field >= 4) ? 1 : 0);
  }

  feed(b: Uint8Array): void {
    let i = this.bom >= 0 ? this.skipBom(b) : 0;
    // the next LF and CR at or after i in this chunk (-1: none left), each searched again only once passed: a chunk
    // of many short lines and no CR is not searched to its end once per line
    let lf = -2;
    let cr = -2;
    while (i < b.length) {
      const c = b[i]!;
      if (this.afterCr) {
        this.afterCr = false;
        if (c === LF) {
          i++;
          continue;
        }
      }
      if (c === LF || c === CR) {
        this.endLine();
        this.afterCr = c === CR;
        i++;
        continue;
      }
      if (this.atStart) this.begin(0);
      if (this.field >= 0 && this.field < 4) {
        this.field = c === DATA[this.field] ? this.field + 1 : -1;
        i++;
        continue;
      }
      if (this.field === 4) {
        this.field = c === COLON ? 5 : -1;
        i++;
        continue;
      }
      // the rest of the line tells nothing: on to its end
      if (lf !== -1 && lf < i) lf = b.indexOf(LF, i);
      if (cr !== -1 && cr < i) cr = b.indexOf(CR, i);
      const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (end < 0) return; // the line goes on in the next chunk
      i = end;
    }
  }

  /** Past a leading BOM's bytes in `b`: where the text starts. */
  private skipBom(b: Uint8Array): number {
    let i = 0;
    while (this.bom >= 0 && i < b.length) {
      if (b[i] === BOM[this.bom]) {
        i++;
        if (++this.bom === 3) this.bom = -1;
        continue;
      }
      if (this.bom > 0) this.begin(-1); // part of a BOM began the first line: no field name starts so
      this.bom = -1;
    }
    return i;
  }

  private begin(field: number): void {
    this.atStart = false;
    this.field = field;
  }

  private endLine(): void {
    if (this.atStart) {
      // a blank line: the block ends, an event if it had data
      if (this.data) this.ended++;
      this.data = false;
      return;
    }
    if (this.field >= 4) this.data = true;
    this.atStart = true;
  }
}
