// The card signing keys of a loaded config, imported the way the card service
// imports them (card/signing.ts) before the config is used: a key file that
// is not a private key, or whose key does not fit its `alg` (RS256 with an EC
// key, an unknown alg such as ES999), is a config error naming the route and
// the field, as a missing file is (checks.ts), instead of every card request
// of the route failing later. Asynchronous (jose imports keys through
// WebCrypto), so it runs after parseConfig: at start, in `check`, and before
// a reloaded file is applied.
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { importSigningKey } from '../card/signing.js';
import type { Problem } from './checks.js';
import { ConfigError, fieldPath, position } from './load.js';
import type { GatewayConfig, SigningKey } from './types.js';

async function keyProblem(k: SigningKey): Promise<string | undefined> {
  const file = relative(process.cwd(), k.file);
  try {
    const key = await importSigningKey(k);
    // a public JWK imports too, and fails only when a card is signed
    if ((key as { type?: string }).type === 'public')
      return `${file} holds a public key: signing needs the private key`;
    return undefined;
  } catch (e) {
    return `${file} is not a usable ${k.alg} signing key: ${(e as Error).message}`;
  }
}

/** Each route's signing key that does not import for its alg (a missing file is checks.ts's problem). */
export async function signingKeyProblems(config: GatewayConfig): Promise<Problem[]> {
  const found = await Promise.all(
    config.routes.map(async (r, i) => {
      const k = r.card.signingKey;
      const message = k && existsSync(k.file) ? await keyProblem(k) : undefined;
      return message ? [{ path: `/routes/${i}/card/signingKey`, message }] : [];
    }),
  );
  return found.flat();
}

/** Throws a ConfigError (file:line:column: field: why, as parseConfig's) when a signing key of `text`'s config is unusable. */
export async function checkSigningKeys(config: GatewayConfig, text: string): Promise<void> {
  const problems = await signingKeyProblems(config);
  if (problems.length === 0) return;
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  throw new ConfigError(
    problems.map((p) => `${config.source}:${position(doc, lc, p.path)}: ${fieldPath(p.path)}: ${p.message}`),
  );
}
