// `GET {route}/.well-known/agent-card.json` (spec §8.2, §8.6; also the older
// `/.well-known/agent.json`): the route's served card with Cache-Control, a
// strong ETag of the served bytes, Last-Modified, `Vary` on every request
// header the card is built from (A2A-Version: its shape follows the caller's
// version; Host and, behind trusted proxies, the forwarded headers, unless the
// route's public URLs are configured), and 304 answers to If-None-Match (weak
// comparison, a list or `*`: RFC 9110 §13.1.2) / If-Modified-Since. A card
// that cannot be served is an error in the form of the card asked for (0.3's
// `{code, message}` for 0.3's shape); one failing for the gateway's own
// reason (a signing key gone since load) is logged, as the answer says nothing.
import type { Logger } from 'pino';
import type { CardService } from '../card/card-service.js';
import type { RouteConfig } from '../config/types.js';
import { asA2AError } from '../errors/a2a-error.js';
import type { HttpAnswer, RequestView } from '../http/request.js';
import { restError } from '../bindings/rest/inbound.js';
import { v03Error } from '../bindings/rest/inbound-v0_3.js';
import { wantsV03Card } from '../card/served-card.js';

/**
 * RFC 9110 §13.1.2: whether `If-None-Match` names the current entity tag — `*`, or a tag in its list that matches by
 * weak comparison (`W/"x"` matches `"x"`: a proxy that compresses the card weakens the ETag it passes back).
 */
function noneMatchFails(header: string, etag: string): boolean {
  // a quoted tag may hold a comma: the tags are read as tokens, not split on commas
  return (header.match(/(?:W\/)?"[^"]*"|\*/g) ?? []).some((t) => t === '*' || t.replace(/^W\//, '') === etag);
}

export async function serveCard(
  cards: CardService,
  route: RouteConfig,
  view: RequestView,
  log: Logger,
): Promise<HttpAnswer> {
  let card;
  try {
    card = await cards.servedCard(route, view);
  } catch (e) {
    // in the form of the card that was asked for (0.3's shape: 0.3's `{code, message}`)
    const err = asA2AError(e);
    // (a card unavailable upstream is logged by the card store, with why)
    if (err.errorName === 'INTERNAL_ERROR')
      log.error({ route: route.name, err: err.internal }, 'card cannot be served');
    return wantsV03Card(route, view) ? v03Error(err) : restError(err);
  }
  const headers = {
    'content-type': 'application/json',
    'cache-control': `public, max-age=${card.maxAgeSeconds}`,
    etag: card.etag,
    'last-modified': card.lastModified.toUTCString(),
    vary: ['A2A-Version', ...cards.varies(route)].join(', '),
  };
  const inm = view.header('if-none-match');
  const ims = view.header('if-modified-since');
  const notModified =
    inm !== undefined
      ? noneMatchFails(inm, card.etag)
      : ims !== undefined && !Number.isNaN(Date.parse(ims)) && Date.parse(ims) >= card.lastModified.getTime();
  return notModified ? { status: 304, headers } : { status: 200, headers, body: card.body };
}
