// PEM files of the TLS settings (listen.tls, routes[].upstream.tls) as the
// gateway reads them, and what makes one unusable before it is handed to
// OpenSSL: a file missing, not a file or not readable, a CA bundle with no
// certificate in it. The config load reports these per field
// (config/tls-files.ts); the listeners and upstream clients fail with the
// same words when a file is gone by the time they read it.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

/** The file as config problems name it: relative to the working directory. */
const shownPath = (file: string): string => relative(process.cwd(), file) || file;

/** Why reading the file shown as `where` failed, in the words of a config problem ("file not found: tls/ca.pem"). */
export function readFailure(where: string, e: unknown): string {
  const code = (e as { code?: string }).code;
  if (code === 'ENOENT') return `file not found: ${where}`;
  if (code === 'EISDIR') return `not a file: ${where}`;
  if (code === 'EACCES' || code === 'EPERM') return `file cannot be read (permission denied): ${where}`;
  return `file cannot be read: ${where} (${code ?? (e as Error).message})`;
}

/** Why `pem` holds no certificate (undefined when it holds one; only a bundle's first is parsed). */
export function certificateProblem(pem: Buffer): string | undefined {
  try {
    new X509Certificate(pem);
    return undefined;
  } catch {
    return 'holds no PEM certificate';
  }
}

/** Why `file` cannot be read, or (`certificates`) holds no certificate; undefined when it serves. */
export function pemFileProblem(file: string, certificates = false): string | undefined {
  let pem: Buffer;
  try {
    pem = readFileSync(file);
  } catch (e) {
    return readFailure(shownPath(file), e);
  }
  const bad = certificates ? certificateProblem(pem) : undefined;
  return bad ? `${shownPath(file)} ${bad}` : undefined;
}

/** The bytes of `file`; throws an Error naming `field`, the file and the reason (see readFailure). */
export function readTlsFile(file: string, field: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new Error(`${field}: ${readFailure(file, e)}`, { cause: e });
  }
}
