// The SSRF guard's URL screen (spec §13: file references MUST be validated to
// prevent SSRF): core/validate.ts applies it to file part and
// push-notification URLs of every translated request on a route with the
// guard on (the default). The screen itself — schemes, the IANA
// special-purpose address registries, local names — is src/policy/url-screen.ts.
export { unsafeUrl } from '../policy/url-screen.js';
