// Reading a request body at the HTTP edge, as nginx does: a pause longer
// than the body timeout (nginx `client_body_timeout`) is 408 and the
// connection is closed; a body over the size limit is not buffered further
// but read to its end and discarded (nginx's lingering close, at most
// LINGER_MS), so that a caller still writing its body reads the 413 instead of
// a reset connection (EPIPE). A large body of declared length goes into one
// buffer of that length (gathered-body.ts). Spec §13.2 (limits);
// RFC 9110 §15.5.9, §15.5.14.
import type { Readable } from 'node:stream';
import { A2AError } from '../errors/a2a-error.js';
import { GatheredBody } from './gathered-body.js';

/** How long an oversize body is read and discarded before the connection is closed anyway (nginx lingering_time). */
export const LINGER_MS = 30_000;

/** A body the edge refuses: the error to answer, and whether the connection must close after it. */
export class BodyRefused extends Error {
  readonly statusCode: number;
  constructor(
    readonly error: A2AError,
    readonly closeConnection: boolean,
  ) {
    super(error.message);
    this.statusCode = error.row.http;
  }
}

export interface BodyLimits {
  maxBytes: number;
  idleMs: number;
  lingerMs?: number;
}

/** The whole body; rejects with BodyRefused (too large, too slow) or the stream's own error (caller gone). */
export function readBody(stream: Readable, declaredLength: number | undefined, limits: BodyLimits): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let tooLarge = declaredLength !== undefined && declaredLength > limits.maxBytes;
    let gathered: GatheredBody | undefined = tooLarge ? undefined : new GatheredBody(declaredLength);
    let received = 0;
    let lingerTimer: NodeJS.Timeout | undefined;
    const tooLargeError = (): A2AError =>
      A2AError.of('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${limits.maxBytes} bytes`);
    const finish = (): void => {
      clearTimeout(idleTimer);
      clearTimeout(lingerTimer);
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
    };
    const startLinger = (): void => {
      lingerTimer ??= setTimeout(() => {
        finish();
        reject(new BodyRefused(tooLargeError(), true));
      }, limits.lingerMs ?? LINGER_MS);
    };
    const idleTimer = setTimeout(() => {
      finish();
      reject(
        new BodyRefused(
          A2AError.of('REQUEST_TIMEOUT', `the request body paused for more than ${limits.idleMs} ms`),
          true,
        ),
      );
    }, limits.idleMs);
    const onData = (chunk: Buffer | string): void => {
      idleTimer.refresh();
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += b.length;
      if (!tooLarge && received > limits.maxBytes) {
        tooLarge = true;
        gathered = undefined; // what was read is released; the rest is discarded as it comes
      }
      if (tooLarge) startLinger();
      else gathered!.add(b);
    };
    const onEnd = (): void => {
      finish();
      if (tooLarge || !gathered) reject(new BodyRefused(tooLargeError(), false));
      else resolve(gathered.bytes());
    };
    const onError = (e: Error): void => {
      finish();
      reject(e);
    };
    // the caller went away before the end of its body (no timer is left waiting for it)
    const onClose = (): void => onError(new Error('the request was aborted before its body ended'));
    if (tooLarge) startLinger();
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
    stream.resume();
  });
}
