// Stages `rewriteAnswer` and `selectUpstream`. `selectUpstream` picks the
// upstream interface: the configured binding and URL, or (`auto`) the usable
// interfaces of the upstream's card in order (§8.3.2). A unary call whose
// connection was refused goes to the next interface (it cannot have reached
// the agent); an idempotent unary call (§3.3.1) whose kept-alive connection
// was reset under it is sent once more, unless it was already resent (one
// resend per call, Call.resent); SendMessage never is. `rewriteAnswer` gives
// GetExtendedAgentCard's answer the gateway's interfaces, as the public card
// (§8.2).
import type { CardService } from '../../card/card-service.js';
import { redactText, secretsOf } from '../../core/secrets.js';
import type { ResolvedUpstream } from '../../card/upstream-card.js';
import type { RouteConfig } from '../../config/types.js';
import { A2AError } from '../../errors/a2a-error.js';
import { withoutCredentials } from '../../errors/addresses.js';
import type { AgentCard } from '../../gen/a2a_pb.js';
import type { Logger } from 'pino';
import { isRelay } from '../call.js';
import type { Stage } from '../stage.js';

export function rewriteAnswerStage(cards: CardService): Stage {
  return {
    name: 'rewriteAnswer',
    wrap: (next, route) => (call) => {
      if (call.method.name !== 'GetExtendedAgentCard') return next(call);
      return next(call).then(async (answer) => {
        if (answer.kind !== 'unary') return answer;
        return { kind: 'unary', response: await cards.rewriteExtended(answer.response as AgentCard, route, call.view) };
      });
    },
  };
}

/** The interfaces to call, in order: the route's own (no wait), or those of the agent's card (binding "auto"). */
function interfacesOf(route: RouteConfig, cards: CardService): ResolvedUpstream[] | Promise<ResolvedUpstream[]> {
  const { binding, url, version } = route.upstream;
  if (binding !== 'auto') return [{ binding, url, tenant: '', version }];
  return cards.interfaces(route);
}

export function selectUpstreamStage(cards: CardService, log: Logger): Stage {
  return {
    name: 'selectUpstream',
    wrap: (next, route) => async (call) => {
      // on a route with several endpoints, the one stage placeEndpoint chose (its card, its URL)
      const at = call.endpoint?.route ?? route;
      if (isRelay(call)) {
        call.upstream = { binding: call.inbound, url: at.upstream.url, tenant: '', version: route.upstream.version };
        return next(call);
      }
      const found = interfacesOf(at, cards);
      const candidates = Array.isArray(found) ? found : await found;
      if (candidates.length === 0) throw A2AError.of('UPSTREAM_UNAVAILABLE', 'no usable upstream interface');
      // an upstream may echo a secret of the call in its error: redacted here as in the call's log line
      const why = (e: unknown): string => {
        const err = e as A2AError;
        const text = err.internal !== undefined ? `${err.message} (${err.internal})` : err.message;
        return redactText(text, secretsOf(call.envelope, route, call.view));
      };
      for (let i = 0; ; i++) {
        call.upstream = candidates[i]!;
        try {
          return await next(call).catch((e: unknown) => {
            if (!(e instanceof A2AError && e.connectionReset && call.method.idempotent) || call.resent) throw e;
            call.resent = true;
            log.warn(
              { requestId: call.requestId, route: route.name, err: why(e) },
              'upstream connection reset under an idempotent call; sending it once more',
            );
            return next(call);
          });
        } catch (e) {
          const refused = e instanceof A2AError && e.connectionRefused;
          if (!refused || call.method.streaming || i === candidates.length - 1) throw e;
          log.warn(
            { requestId: call.requestId, route: route.name, url: withoutCredentials(call.upstream.url), err: why(e) },
            'upstream interface refused the connection; trying the next one',
          );
        }
      }
    },
  };
}
