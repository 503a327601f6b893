// The served card's `securitySchemes` and `securityRequirements` (spec §7.3,
// a2a.proto SecurityScheme / SecurityRequirement) describing what the gateway
// enforces on a route: one scheme per configured method, and one requirement
// per scheme (any one suffices, as the gateway checks). Configured card
// overrides of these fields win; `auth.advertise: false` keeps the
// upstream's own.
import type { RouteAuth } from '../config/types.js';
import type { JsonObject } from '../proto/json.js';

export function advertisedSecurity(auth: RouteAuth): {
  securitySchemes: JsonObject;
  securityRequirements: JsonObject[];
} {
  const schemes: JsonObject = {};
  if (auth.apiKey) {
    schemes.gatewayApiKey = {
      apiKeySecurityScheme: {
        description: 'API key checked by the A2A gateway',
        location: auth.apiKey.location,
        name: auth.apiKey.name,
      },
    };
  }
  if (auth.jwt) {
    schemes.gatewayBearer = {
      httpAuthSecurityScheme: {
        description: 'JWT bearer token checked by the A2A gateway',
        scheme: 'Bearer',
        bearerFormat: 'JWT',
      },
    };
  }
  if (auth.mtls)
    schemes.gatewayMutualTls = {
      mtlsSecurityScheme: { description: 'Client certificate verified by the A2A gateway' },
    };
  return {
    securitySchemes: schemes,
    securityRequirements: Object.keys(schemes).map((name) => ({ schemes: { [name]: { list: [] } } })),
  };
}
