// jose (JWS, JWT and JWKS), loaded on first use: by the first call of a route
// that takes bearer JWTs, or the first agent card signed or verified. A
// gateway that does neither never loads it.
import type * as Jose from 'jose';

export type JoseModule = typeof Jose;

let loaded: JoseModule | undefined;

/** The jose module; imported by the first caller, then the loaded module. */
export async function loadJose(): Promise<JoseModule> {
  return (loaded ??= await import('jose'));
}
