// Stages `authenticate`, `rateLimit` and `streamSlot`: what a call must pass
// before its request is read further. Authentication (§7.4: API key, bearer
// JWT or mTLS identity, any one of the route's schemes) sets the caller's
// identity; the rate limit counts the call against the route, or against the
// caller (the authenticated identity, else the peer address — never an
// unverified credential); a streaming call takes one of the route's
// concurrent stream slots until it ends. Each stage is left out of a route
// that does not configure it.
import { Authenticator } from '../../auth/authenticator.js';
import { Limits } from '../../core/limits.js';
import type { Stage } from '../stage.js';
import { ended } from '../stage.js';

export function authenticateStage(auth: Authenticator): Stage {
  return {
    name: 'authenticate',
    wrap: (next, route) => {
      if (!route.auth) return next;
      return async (call) => {
        const principal = await auth.authenticate(route, call.view);
        if (principal) call.caller = `${principal.scheme}:${principal.id}`;
        return next(call);
      };
    },
  };
}

export function rateLimitStage(limits: Limits): Stage {
  return {
    name: 'rateLimit',
    wrap: (next, route) => {
      const rl = route.rateLimit;
      if (!rl) return next;
      return async (call) => {
        await limits.admit(route, rl.perCaller ? (call.caller ?? `peer:${call.view.remoteAddress ?? '-'}`) : '');
        return next(call);
      };
    },
  };
}

export function streamSlotStage(limits: Limits): Stage {
  return {
    name: 'streamSlot',
    wrap: (next, route) => {
      if (route.maxConcurrentStreams === undefined) return next;
      return (call) => {
        if (!call.method.streaming) return next(call);
        ended(call, limits.openStream(route));
        return next(call);
      };
    },
  };
}
