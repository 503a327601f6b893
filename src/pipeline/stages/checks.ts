// Stages `validate` and `capabilities`. `validate` walks a translated
// request once (core/validate.ts): REQUIRED fields (§5.7), the route's string
// length limit, Struct nesting, and with the route's SSRF guard the file part
// and push-notification URLs (§13) — InvalidParams with field violations.
// `capabilities` makes the §3.3.4 checks before calling the upstream, from
// the capabilities its card states as the gateway serves it (§8: the route's
// `card.overrides.capabilities` when set, else the upstream's cached card's):
// push notifications, the extended card, streaming, and extensions the agent
// requires (EXTENSION_SUPPORT_REQUIRED).
import type { CardService } from '../../card/card-service.js';
import { requestOf } from '../../core/envelope.js';
import type { MethodName } from '../../core/methods.js';
import { violations } from '../../core/validate.js';
import { A2AError } from '../../errors/a2a-error.js';
import type { JsonObject } from '../../proto/json.js';
import type { Answer } from '../call.js';
import type { Stage } from '../stage.js';

export const validateStage: Stage = {
  name: 'validate',
  wrap: (next, route) => {
    const opts = { maxStringLength: route.maxStringLength, screenUrls: route.ssrfGuard };
    return (call) => {
      if (call.envelope) {
        const found = violations(call.method.requestSchema, requestOf(call.envelope), opts);
        if (found.length > 0) {
          const ssrf = found.some((v) => v.description.startsWith('URL refused'));
          throw A2AError.invalidParams(found, ssrf ? 'a URL in the request was refused by the SSRF guard' : undefined);
        }
      }
      return next(call);
    };
  },
};

const PUSH_CONFIG = new Set<MethodName>([
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
]);

/** Throws the error the agent would answer, when its card says it cannot serve the call. */
function checkCard(method: MethodName, caps: JsonObject, requested: readonly string[]): void {
  if (PUSH_CONFIG.has(method) && caps.pushNotifications !== true) {
    throw A2AError.of(
      'PUSH_NOTIFICATION_NOT_SUPPORTED',
      "Push Notification is not supported (the agent's card does not declare pushNotifications)",
    );
  }
  if (method === 'GetExtendedAgentCard' && caps.extendedAgentCard !== true) {
    throw A2AError.of('UNSUPPORTED_OPERATION', "the agent's card does not declare an extended agent card");
  }
  if ((method === 'SendStreamingMessage' || method === 'SubscribeToTask') && caps.streaming !== true) {
    throw A2AError.of(
      'UNSUPPORTED_OPERATION',
      "streaming is not supported by this agent (its card's capabilities.streaming is not true)",
    );
  }
  for (const ext of Array.isArray(caps.extensions) ? caps.extensions : []) {
    const e = ext as JsonObject;
    if (e.required === true && typeof e.uri === 'string' && !requested.includes(e.uri)) {
      throw A2AError.of(
        'EXTENSION_SUPPORT_REQUIRED',
        `the agent requires the extension ${e.uri}; list it in A2A-Extensions`,
        {
          metadata: { extension: e.uri },
        },
      );
    }
  }
}

export function capabilitiesStage(cards: CardService): Stage {
  return {
    name: 'capabilities',
    wrap: (next, route) => {
      // capabilities the route's overrides state replace the upstream's whole in the served card (served-card.ts):
      // they are what is checked, read once per route, whatever the upstream's card says or whether it has one
      const overridden = route.card.overrides.capabilities as JsonObject | undefined;
      if (overridden)
        return (call) => {
          checkCard(call.method.name, overridden, call.extensions ?? []);
          return next(call);
        };
      return (call) => {
        const check = (card: JsonObject | null | undefined): Promise<Answer> => {
          // an upstream without a card is not blocked: it answers for itself
          if (card) checkCard(call.method.name, (card.capabilities ?? {}) as JsonObject, call.extensions ?? []);
          return next(call);
        };
        const cached = cards.cachedUpstreamCard(route);
        if (cached !== undefined) return check(cached);
        return cards.upstreamCard(route).then(check, () => check(undefined));
      };
    },
  };
}
