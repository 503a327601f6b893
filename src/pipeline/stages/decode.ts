// Stage `decode`: the call's service parameters (§3.2.6) — A2A-Version
// negotiated (§3.6.2) and checked against the version of the caller's wire
// form and the route's `versions`, A2A-Extensions (X-A2A-Extensions from a
// 0.3 caller), and the headers forwarded upstream by
// the final route's allow-list with the call's trace context — then, for a
// translated call, the typed request read by the inbound binding (only now,
// after authentication and the rate limit) into the envelope. A pass-through
// keeps its request as it came, but the tenants it names besides its head (a
// REST query's or JSON body's `tenant`, JSON-RPC `params.tenant`, read by its
// binding without decoding it) are checked as a translated request's tenant
// is: none, or the one the route was chosen by.
import { envelopeOf, serviceParameters } from '../../core/envelope.js';
import type { ProtocolVersion } from '../../config/types.js';
import {
  extensionsOf,
  forwardedHeaders,
  UPSTREAM_VERSION,
  versionNotSupported,
  versionOf,
} from '../../core/service-params.js';
import { validTraceparent } from '../../core/trace-context.js';
import { A2AError } from '../../errors/a2a-error.js';
import { isRelay } from '../call.js';
import type { Stage } from '../stage.js';

/**
 * A tenant the request names: none (absent, null or "", as ProtoJSON reads them), or the tenant the call addressed
 * (the route was chosen by it; the request may not name another one).
 */
function checkNamedTenant(named: unknown, addressed: string): void {
  if (named === undefined || named === null || named === '') return;
  if (typeof named !== 'string') {
    const got = Array.isArray(named) ? 'an array' : typeof named === 'object' ? 'an object' : typeof named;
    throw A2AError.invalidParams([{ field: 'tenant', description: `expected string, got ${got}` }]);
  }
  if (named !== addressed) {
    const shown = named.length > 256 ? `${named.slice(0, 256)}…` : named; // (a body may name megabytes)
    throw A2AError.invalidParams(
      [{ field: 'tenant', description: `the request names tenant "${shown}" where the call addressed "${addressed}"` }],
      'the tenant in the request differs from the tenant the call addressed',
    );
  }
}

export const decodeStage: Stage = {
  name: 'decode',
  wrap: (next, route) => (call) => {
    const header = call.view.header;
    const version = versionOf(header, call.view.query?.('A2A-Version'));
    const spoken: ProtocolVersion = version === '0.3' ? '0.3' : '1.0';
    if (spoken !== call.dialect) {
      throw versionNotSupported(
        version,
        ` for ${call.dialect === '1.0' ? 'the 1.0' : 'a 0.3'} method ${call.method.name}`,
      );
    }
    if (!route.versions.includes(spoken)) {
      throw versionNotSupported(version, ` on route "${route.name}"`, { route: route.name, versions: route.versions });
    }
    call.version = version;
    call.extensions = extensionsOf(header, spoken);
    const keepTracestate = call.tracestate === undefined && validTraceparent(header('traceparent'));
    call.forwarded = forwardedHeaders(header, route.forwardHeaders, call.traceparent!, keepTracestate);
    if (call.tracestate) call.forwarded.tracestate = call.tracestate;
    // the request id the caller got back travels upstream too (its logs and the gateway's line up)
    call.forwarded['x-request-id'] = call.requestId;
    if (!isRelay(call)) {
      const request = call.request.decode(version);
      checkNamedTenant(request.tenant, call.tenant);
      const sp = serviceParameters(UPSTREAM_VERSION, call.extensions, call.forwarded);
      call.envelope = envelopeOf(call.method, request, call.tenant, sp);
    } else if (call.request.namedTenants) {
      // forwarded as it came: the agent would read these, so they are held to the translated request's rule
      for (const named of call.request.namedTenants()) checkNamedTenant(named, call.tenant);
    }
    return next(call);
  },
};
