// What the inbound fuzz tests (fuzz.test.ts, fuzz-v03.test.ts) accept as the
// end of a fuzzed call at a gateway whose agent refuses connections: an error
// a caller's mistake earns (a body that is no JSON, no request, an unknown
// method, bad params, a version the method is not in, an operation the
// agent's version lacks) or the refusing agent's
// UPSTREAM_UNAVAILABLE — named from the catalogue, so a code is never written
// here by hand. INTERNAL_ERROR ("internal gateway error": the gateway failing
// on what it was sent) is none of them: JSON-RPC answers it with HTTP 200 like
// every other error, so only its code tells it apart.
import { CATALOGUE, type ErrorName } from '../../src/errors/catalogue.js';

/** A request's mistakes (JSON-RPC, REST, gRPC alike) and the refusing agent. */
const CALLER_ERRORS: readonly ErrorName[] = [
  'PARSE_ERROR',
  'INVALID_REQUEST',
  'METHOD_NOT_FOUND',
  'INVALID_PARAMS',
  'VERSION_NOT_SUPPORTED',
  'UNSUPPORTED_OPERATION',
  'UPSTREAM_UNAVAILABLE',
];

const CODES = new Map(CALLER_ERRORS.map((n) => [CATALOGUE[n].jsonRpc, n]));

/** The catalogue name of a JSON-RPC error code a fuzzed call may end in; undefined for any other (INTERNAL_ERROR). */
export const callerErrorOf = (code: unknown): ErrorName | undefined =>
  typeof code === 'number' ? CODES.get(code) : undefined;

/** How many cases ended in each outcome (a property that only ever saw one kind of answer would test little). */
export class Outcomes {
  private readonly counts = new Map<string, number>();
  saw(what: string): void {
    this.counts.set(what, (this.counts.get(what) ?? 0) + 1);
  }
  has(what: string): boolean {
    return (this.counts.get(what) ?? 0) > 0;
  }
  toString(): string {
    return [...this.counts].map(([k, n]) => `${k}: ${n}`).join(', ');
  }
}
