// Stage `route`: the final route, before anything reads a route setting. Of
// the routes the call's host and path reached (HTTP) or its :authority
// reached (gRPC), the most specific one that serves the tenant the call
// addressed (REST path, JSON-RPC params.tenant, gRPC field `tenant`, all read
// without decoding the request) over the caller's binding; none is NO_ROUTE.
// A tenant that is not URL-safe is refused before any route is compared
// (tenants match case-insensitively, routing/canonical.ts). Then the route's
// own request size limit. Spec: §3.2 (tenant), §13.2.
import { A2AError } from '../../errors/a2a-error.js';
import { isUrlSafeTenant } from '../../routing/canonical.js';
import { exposes, tenantMatches } from '../../routing/router.js';
import type { Call } from '../call.js';

export function selectRoute(call: Call): void {
  if (call.tenant !== '' && !isUrlSafeTenant(call.tenant)) {
    throw A2AError.invalidParams(
      [{ field: 'tenant', description: 'a tenant is 1 to 256 of A-Z a-z 0-9 . _ ~ - (and not "." or "..")' }],
      'the tenant is not URL-safe',
    );
  }
  const route = call.candidates.find((r) => tenantMatches(r, call.tenant) && exposes(r, call.inbound));
  if (!route) {
    throw A2AError.of('NO_ROUTE', call.tenant ? `no route for tenant "${call.tenant}" here` : 'no route for this call');
  }
  call.route = route;
  if (call.request.size > route.maxBodyBytes) {
    throw A2AError.of('PAYLOAD_TOO_LARGE', `request exceeds the route's limit of ${route.maxBodyBytes} bytes`);
  }
}
