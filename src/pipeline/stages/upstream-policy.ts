// Stage `upstreamPolicy`: what the upstream gets of the caller's call, by the
// route's policy. Credentials (`upstream.credentials`): forwarded, stripped,
// or replaced by the route's own (auth/upstream-credentials.ts). Tenant
// (`upstream.tenant`): kept (then the chosen card interface's tenant fills an
// empty one, §8.3), cleared, or set. A pass-through gets its upstream headers
// here; a translated call's envelope is finished per interface by the
// `selectUpstream` stage. Every upstream call carries the gateway's hop in
// `Via` (RFC 9110 §7.6.3) after the caller's, so that a call that comes back
// to the gateway is refused (LOOP_DETECTED, checkLoop) instead of going round.
import { withUpstreamCredentials } from '../../auth/upstream-credentials.js';
import { upstreamHeaders } from '../../core/service-params.js';
import { A2AError } from '../../errors/a2a-error.js';
import { isRelay, type Call } from '../call.js';
import type { Stage } from '../stage.js';

/** Throws LOOP_DETECTED when the call already went through the gateway named `hop` (its entry in Via). */
export function checkLoop(call: Call, hop: string): void {
  const via = call.view.header('via');
  if (via === undefined || !via.includes(hop)) return;
  if (via.split(',').some((entry) => entry.trim().split(/\s+/)[1] === hop)) {
    throw A2AError.of(
      'LOOP_DETECTED',
      'this call already passed through this gateway: an upstream or a card interface leads back to it',
    );
  }
}

export function upstreamPolicyStage(hop: string): Stage {
  return {
    name: 'upstreamPolicy',
    wrap: (next, route) => (call) => {
      const headers = withUpstreamCredentials(route, call.forwarded ?? {}, call.view.header);
      const mine = `${call.inbound === 'GRPC' ? '2' : '1.1'} ${hop}`;
      const via = headers.via; // the caller's, checked with the other forwarded headers (decode stage)
      headers.via = via ? `${via}, ${mine}` : mine;
      if (isRelay(call)) {
        call.relayHeaders = upstreamHeaders({
          version: route.upstream.version,
          extensions: call.extensions ?? [],
          forwardedHeaders: headers,
        });
      } else if (call.envelope) {
        call.envelope.serviceParameters.forwardedHeaders = headers;
        const policy = route.upstream.tenant;
        if (policy.mode !== 'keep') call.envelope.tenant = policy.mode === 'set' ? policy.value : '';
      }
      return next(call);
    },
  };
}
