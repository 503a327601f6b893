// The gRPC wire of an upstream call on HTTP/2 (spec §10; "gRPC over HTTP2"):
// message framing on DATA (Length-Prefixed-Message: a compressed flag byte, a
// 4-byte big-endian length, the message; one message may span several DATA
// chunks, one chunk may hold several messages — the gateway never offers
// compression (no grpc-accept-encoding), so a compressed message is an
// invalid answer; one longer than maxResponseBytes is refused from its length
// prefix, before its bytes are read) and the call's status (grpc-status,
// percent-encoded grpc-message and metadata from the trailers or a
// trailers-only answer; the HTTP status and RST_STREAM code tables).
import http2, { type IncomingHttpHeaders } from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { A2AError } from '../errors/a2a-error.js';
import { GRPC_CODES } from '../errors/catalogue.js';
import { LARGE_BYTES } from '../proto/large-bytes.js';
import { answerTooLarge } from './pulled-answer.js';

/** What a finished call's status says (grpc-js's StatusObject shape). */
export interface GrpcStatus {
  code: number;
  details: string;
  /** The trailers' custom metadata (read for a status other than OK only). */
  metadata?: grpc.Metadata;
  /** Made here: the agent's connection was refused (never the text of an agent's own status). */
  refused?: boolean;
  /**
   * Made here: the connection dropped after the call was sent ('request': the agent may have it, no answer came;
   * 'answer': its answer broke off), as an HTTP call's reset connection or cut answer.
   */
  dropped?: 'request' | 'answer';
}

/** A call that ended with a status other than OK (the agent's, or one made up here for the transport). */
export class GrpcStatusError extends Error {
  /** The agent never processed the call (RST_STREAM REFUSED_STREAM before any answer, or a session going away): safe to send again. */
  unprocessed = false;
  constructor(readonly status: GrpcStatus) {
    super(status.details);
  }
}

export const grpcStatus = (code: number, details: string, metadata = new grpc.Metadata()): GrpcStatusError =>
  new GrpcStatusError({ code, details, metadata });

/**
 * The request message as a Length-Prefixed-Message: one buffer for a small one; for a large one (chunks of
 * binary-chunks.ts) the prefix and then its chunks as they are, none copied.
 */
export function framed(chunks: Uint8Array[]): Buffer[] {
  const length = chunks.reduce((n, c) => n + c.byteLength, 0);
  const prefix = Buffer.allocUnsafe(5);
  prefix[0] = 0;
  prefix.writeUInt32BE(length, 1);
  if (length < LARGE_BYTES) return [Buffer.concat([prefix, ...chunks], 5 + length)];
  return [prefix, ...chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength))];
}

/** The framed request written on a client stream, then its end (the last chunk goes with the end: one write less). */
export function writeFramed(stream: { write(b: Buffer): unknown; end(b?: Buffer): unknown }, frame: Buffer[]): void {
  for (let i = 0; i < frame.length - 1; i++) stream.write(frame[i]!);
  stream.end(frame[frame.length - 1]);
}

/** grpc-timeout: at most 8 digits and a unit. */
export const timeoutHeader = (ms: number): string =>
  ms < 1e8 ? `${Math.max(1, Math.ceil(ms))}m` : `${Math.ceil(ms / 1000)}S`;

/**
 * Why the agent's answer headers end the call there (a non-200 status, another content type); undefined when a gRPC
 * answer follows. A non-200 answer that carries its own grpc-status (a trailers-only answer, as a proxy in front of
 * an agent sends one) is that status, with its metadata, as grpc-js reads it; without one, the gRPC spec's status for
 * the HTTP status.
 */
export function refusedHead(h: IncomingHttpHeaders): Error | undefined {
  const status = Number(h[':status']);
  if (status !== 200) {
    const own = statusOf(h, undefined);
    if (own && own.code !== GRPC_CODES.OK) return new GrpcStatusError(own);
    return grpcStatus(fromHttpStatus(status), `upstream answered HTTP status ${status}`);
  }
  if (h['grpc-status'] === undefined && !String(h['content-type'] ?? '').startsWith('application/grpc'))
    return A2AError.of(
      'INVALID_AGENT_RESPONSE',
      `upstream answered content-type ${String(h['content-type'])}, not gRPC`,
    );
  return undefined;
}

/** The gRPC spec's HTTP status → gRPC status table, for an answer without grpc-status. */
function fromHttpStatus(status: number): number {
  if (status === 400) return GRPC_CODES.INTERNAL;
  if (status === 401) return GRPC_CODES.UNAUTHENTICATED;
  if (status === 403) return GRPC_CODES.PERMISSION_DENIED;
  if (status === 404) return GRPC_CODES.UNIMPLEMENTED;
  if ([429, 502, 503, 504].includes(status)) return GRPC_CODES.UNAVAILABLE;
  return GRPC_CODES.UNKNOWN;
}

/** An RST_STREAM code from the agent → gRPC status (as grpc-js reads it). */
export function fromRstCode(code: number): number {
  const c = http2.constants;
  if (code === c.NGHTTP2_REFUSED_STREAM) return GRPC_CODES.UNAVAILABLE;
  if (code === c.NGHTTP2_CANCEL) return GRPC_CODES.CANCELLED;
  if (code === c.NGHTTP2_ENHANCE_YOUR_CALM) return GRPC_CODES.RESOURCE_EXHAUSTED;
  if (code === c.NGHTTP2_INADEQUATE_SECURITY) return GRPC_CODES.PERMISSION_DENIED;
  return GRPC_CODES.INTERNAL;
}

/** Headers of a trailers-only answer that are HTTP's or gRPC's own, not the call's metadata. */
const NOT_METADATA = new Set([
  'content-type',
  'content-length',
  'te',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Custom metadata of a header block (binary values are base64 on HTTP/2): what the agent set on its call, relayed
 * to a pass-through's caller; gRPC's reserved grpc-* keys but the status details are left out, and a binary value
 * that is no base64.
 */
function metadataOf(headers: IncomingHttpHeaders): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(headers)) {
    if (k.startsWith(':') || NOT_METADATA.has(k) || v === undefined) continue;
    if (k.startsWith('grpc-') && k !== 'grpc-status-details-bin') continue;
    const binary = k.endsWith('-bin');
    for (const one of Array.isArray(v) ? v : [v]) {
      if (binary && !BASE64.test(one)) continue;
      try {
        md.add(k, binary ? Buffer.from(one, 'base64') : one);
      } catch {
        // a key grpc-js refuses carries nothing the gateway reads
      }
    }
  }
  return md;
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The call's status from its trailers, or from the headers of a trailers-only answer; undefined without one. */
export function statusOf(head: IncomingHttpHeaders, trailers: IncomingHttpHeaders | undefined): GrpcStatus | undefined {
  const block = trailers?.['grpc-status'] !== undefined ? trailers : head;
  const raw = block['grpc-status'];
  if (raw === undefined) return undefined;
  const number = Number(raw);
  const code = Number.isInteger(number) ? number : GRPC_CODES.UNKNOWN;
  const message = block['grpc-message'];
  const details = typeof message === 'string' ? percentDecoded(message) : '';
  // an OK call's metadata is read by no one: a grpc.Metadata (a Map) per call for nothing
  return code === GRPC_CODES.OK ? { code, details } : { code, details, metadata: metadataOf(block) };
}

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
    // the common case, a chunk that is one whole message, read without copies or bookkeeping
    if (this.size === 0 && this.length === undefined && chunk.length >= PREFIX) {
      const length = this.prefixed(chunk);
      if (chunk.length === PREFIX + length) return [chunk.subarray(PREFIX)];
      this.length = length;
      chunk = chunk.subarray(PREFIX);
    }
    if (chunk.length) {
      this.chunks.push(chunk);
      this.size += chunk.length;
    }
    const out: Buffer[] = [];
    for (;;) {
      if (this.length === undefined) {
        if (this.size < PREFIX) return out;
        this.length = this.prefixed(this.take(PREFIX));
      }
      if (this.size < this.length) return out;
      out.push(this.length === 0 ? Buffer.alloc(0) : this.take(this.length));
      this.length = undefined;
    }
  }

  /** The length a message prefix (at the start of `bytes`) announces; a compressed or too large one is refused. */
  private prefixed(bytes: Buffer): number {
    if (bytes[0] !== 0)
      throw A2AError.of(
        'INVALID_AGENT_RESPONSE',
        'upstream sent a compressed gRPC message though the gateway accepts no compression',
      );
    const length = bytes.readUInt32BE(1);
    if (length > this.maxMessageBytes) throw answerTooLarge(this.maxMessageBytes, `gRPC message of ${length} bytes`);
    return length;
  }

  /** At the end of the answer: a message cut short is an invalid answer. */
  finish(): void {
    if (this.size > 0 || this.length !== undefined)
      throw A2AError.of('INVALID_AGENT_RESPONSE', 'upstream ended the call in the middle of a gRPC message');
  }
}
