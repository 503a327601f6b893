// Client-certificate PEM files copied from test/fixtures/tls into a test's
// own directory, so a test can overwrite them in place (a renewal, a key
// caught half-way) and reload.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';

export const TLS_FIXTURES = new URL('../fixtures/tls/', import.meta.url).pathname;

/** `client.pem` and `client-key.pem` in `dir`, copied from the fixtures `<name>.pem` and `<name>-key.pem`. */
export function clientCertFiles(dir: string, name = 'client'): { cert: string; key: string } {
  const cert = join(dir, 'client.pem');
  const key = join(dir, 'client-key.pem');
  copyFileSync(join(TLS_FIXTURES, `${name}.pem`), cert);
  copyFileSync(join(TLS_FIXTURES, `${name}-key.pem`), key);
  return { cert, key };
}
