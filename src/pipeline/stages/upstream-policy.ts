// Stage `upstreamPolicy`: what the upstream gets of the caller's call, by the
// route's policy. Credentials (`upstream.credentials`): forwarded, stripped,
// or replaced by the route's own (auth/upstream-credentials.ts). Tenant
// (`upstream.tenant`): kept (then the chosen card interface's tenant fills an
// empty one, §8.3), cleared, or set. A pass-through gets its upstream headers
// here; a translated call's envelope is finished per interface by the
// `selectUpstream` stage.
import { withUpstreamCredentials } from '../../auth/upstream-credentials.js';
import { upstreamHeaders } from '../../core/service-params.js';
import { isRelay } from '../call.js';
import type { Stage } from '../stage.js';

export const upstreamPolicyStage: Stage = {
  name: 'upstreamPolicy',
  wrap: (next, route) => async (call) => {
    const headers = withUpstreamCredentials(route, call.forwarded ?? {}, call.view.header);
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
