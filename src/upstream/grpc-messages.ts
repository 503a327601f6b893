// gRPC message framing on HTTP/2 DATA (spec §10; "gRPC over HTTP2",
// Length-Prefixed-Message): a compressed flag byte, a 4-byte big-endian
// length, the message. One message may span several DATA chunks, one chunk
// may hold several messages. The gateway never offers compression
// (no grpc-accept-encoding), so a compressed message is an invalid answer;
// one longer than maxResponseBytes is refused from its length prefix, before
// its bytes are read.
import { A2AError } from '../errors/a2a-error.js';

const PREFIX = 5;

export class GrpcMessageReader {
  private chunks: Buffer[] = [];
  private size = 0;
  /** The length of the message being read, once its prefix is in. */
  private length: number | undefined;

  constructor(private readonly maxMessageBytes: number) {}

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.size = rest.length;
    return out;
  }

  /** The messages completed by `chunk` (zero or more). */
  push(chunk: Buffer): Buffer[] {
    if (chunk.length) {
      this.chunks.push(chunk);
      this.size += chunk.length;
    }
    const out: Buffer[] = [];
    for (;;) {
      if (this.length === undefined) {
        if (this.size < PREFIX) return out;
        const prefix = this.take(PREFIX);
        if (prefix[0] !== 0)
          throw A2AError.of(
            'INVALID_AGENT_RESPONSE',
            'upstream sent a compressed gRPC message though the gateway accepts no compression',
          );
        const length = prefix.readUInt32BE(1);
        if (length > this.maxMessageBytes)
          throw A2AError.of('INVALID_AGENT_RESPONSE', "the upstream's answer exceeds maxResponseBytes", {
            internal: `gRPC message of ${length} bytes, over maxResponseBytes ${this.maxMessageBytes}`,
          });
        this.length = length;
      }
      if (this.size < this.length) return out;
      out.push(this.length === 0 ? Buffer.alloc(0) : this.take(this.length));
      this.length = undefined;
    }
  }

  /** At the end of the answer: a message cut short is an invalid answer. */
  finish(): void {
    if (this.size > 0 || this.length !== undefined)
      throw A2AError.of('INVALID_AGENT_RESPONSE', 'upstream ended the call in the middle of a gRPC message');
  }
}
