// An HTTP server that publishes an Agent Card the test controls: its content,
// Cache-Control, failure on demand, and a count of fetches and 304s — for the
// gateway's discovery, caching and refresh paths.
import { createHash } from 'node:crypto';
import type { JsonObject } from '../../src/proto/json.js';
import { brokenHttp, type Broken } from './broken-upstreams.js';

export interface CardServer extends Broken {
  card: JsonObject;
  failing: boolean;
  cacheControl: string;
  fetches: number;
  notModified: number;
}

export async function cardServer(card: JsonObject, cacheControl = 'max-age=0'): Promise<CardServer> {
  const state = { card, failing: false, cacheControl, fetches: 0, notModified: 0 };
  const server = await brokenHttp((req, res) => {
    state.fetches++;
    if (state.failing) {
      res.writeHead(500).end('down');
      return;
    }
    const body = JSON.stringify(state.card);
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
    if (req.headers['if-none-match'] === etag) {
      state.notModified++;
      res.writeHead(304, { etag, 'cache-control': state.cacheControl }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', etag, 'cache-control': state.cacheControl }).end(body);
  });
  return Object.assign(state, { url: server.url, close: server.close });
}
