// Stage `decode`: the call's service parameters (§3.2.6) — A2A-Version
// negotiated (§3.6.2), A2A-Extensions, and the headers forwarded upstream by
// the final route's allow-list with the call's trace context — then, for a
// translated call, the typed request read by the inbound binding (only now,
// after authentication and the rate limit) into the envelope. A pass-through
// keeps its request as it came.
import { envelopeOf, serviceParameters } from '../../core/envelope.js';
import { extensionsOf, forwardedHeaders, UPSTREAM_VERSION, versionOf } from '../../core/service-params.js';
import { validTraceparent } from '../../core/trace-context.js';
import { A2AError } from '../../errors/a2a-error.js';
import { isRelay } from '../call.js';
import type { Stage } from '../stage.js';

export const decodeStage: Stage = {
  name: 'decode',
  wrap: (next, route) => async (call) => {
    const header = call.view.header;
    const version = versionOf(header, call.view.query?.('A2A-Version'));
    call.version = version;
    call.extensions = extensionsOf(header);
    const keepTracestate = validTraceparent(header('traceparent'));
    call.forwarded = forwardedHeaders(header, route.forwardHeaders, call.traceparent!, keepTracestate);
    if (!isRelay(call)) {
      const request = call.request.decode(version);
      // the route was chosen by the tenant read from the head; the request may not name another one
      if (request.tenant !== '' && request.tenant !== call.tenant) {
        throw A2AError.invalidParams(
          [
            {
              field: 'tenant',
              description: `the request names tenant "${request.tenant}" where the call addressed "${call.tenant}"`,
            },
          ],
          'the tenant in the request differs from the tenant the call addressed',
        );
      }
      const sp = serviceParameters(UPSTREAM_VERSION, call.extensions, call.forwarded);
      call.envelope = envelopeOf(call.method, request, call.tenant, sp);
    }
    return next(call);
  },
};
