// Writes a stream of SSE frames to an HTTP response (spec §9.4.2, §11.7): each
// event flushed as it comes (no buffering; `Cache-Control: no-cache` and
// `X-Accel-Buffering: no` for proxies in front), the head with the first frame
// (the first event was awaited before the answer began: http/sse-answer.ts;
// node:http sends what one turn writes in one write), the next frame pulled
// only once the socket took the last one (backpressure), keep-alive comments
// while idle, and the iteration ended as soon as the caller goes away. A
// frame whose data holds a large `raw` part is written a piece at a time.
import type { ServerResponse } from 'node:http';
import type { SseFrame } from '../http/request.js';
import type { PiecedBody } from '../proto/json-out.js';
import { drained, responseGone } from '../util/drained.js';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
} as const;

/** `Connection` is an HTTP/1.1 header; HTTP/2 forbids it (RFC 9113 §8.2.2). */
function sseHeaders(res: ServerResponse): Record<string, string> {
  return res.req?.httpVersionMajor === 2 ? SSE_HEADERS : { ...SSE_HEADERS, connection: 'keep-alive' };
}

const head = (f: SseFrame): string => `${f.event ? `event: ${f.event}\n` : ''}data: `;

/** A frame's data in pieces, with backpressure, each counted as written; false when the caller went away. */
async function writePieces(
  res: ServerResponse,
  data: PiecedBody,
  gone: () => boolean,
  written: (bytes: number) => void,
): Promise<boolean> {
  for (const piece of data) {
    if (gone()) return false;
    written(piece.length);
    if (!res.write(piece) && !gone()) await drained(res, 'close');
  }
  return !gone();
}

export async function writeSse(
  res: ServerResponse,
  frames: AsyncIterable<SseFrame>,
  keepAliveMs: number,
  extraHeaders: Record<string, string> = {},
  /** Told the bytes of each frame written (for the access log). */
  written: (bytes: number) => void = () => undefined,
  /** The head goes out now, not with the first frame (which may be long in coming). */
  flush = false,
): Promise<void> {
  res.writeHead(200, { ...extraHeaders, ...sseHeaders(res) });
  if (flush) res.flushHeaders();
  const gone = (): boolean => responseGone(res);
  const keepAlive =
    keepAliveMs > 0
      ? setInterval(() => {
          if (!gone() && res.writableLength === 0) res.write(': keep-alive\n\n');
        }, keepAliveMs)
      : undefined;
  const it = frames[Symbol.asyncIterator]();
  try {
    for (;;) {
      const r = await it.next();
      if (r.done || gone()) break;
      const f = r.value;
      if (typeof f.data !== 'string') {
        const start = head(f);
        written(Buffer.byteLength(start));
        res.write(start);
        if (!(await writePieces(res, f.data, gone, written))) break;
        written(2);
        if (!res.write('\n\n') && !gone()) await drained(res, 'close');
        continue;
      }
      const text = `${head(f)}${f.data}\n\n`;
      written(Buffer.byteLength(text));
      if (!res.write(text) && !gone()) {
        await drained(res, 'close');
      }
    }
  } finally {
    clearInterval(keepAlive);
    await it.return?.(undefined);
    if (!gone()) res.end();
  }
}
