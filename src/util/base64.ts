// Uint8Array's base64 methods (ES2026 `toBase64` / `setFromBase64`, native
// from Node 25) on runtimes without them, backed by Buffer's native codec.
// protobuf-es uses them for ProtoJSON `bytes` (a Part's `raw`, spec §4.1.6)
// when present and otherwise falls back to a JavaScript loop that builds the
// string one character at a time: on Node 20 a 10 MiB part then costs seconds
// and hundreds of MiB. Imported first by the entry points, before
// @bufbuild/protobuf reads the methods at load time.
// Strict where the standard is lenient (whitespace, base64url input): such
// input throws, and protobuf-es then decodes it with its own loop, as before.

type Alphabet = 'base64' | 'base64url';
interface ToBase64Options {
  alphabet?: Alphabet;
  omitPadding?: boolean;
}
type Base64Methods = {
  toBase64?: (this: Uint8Array, options?: ToBase64Options) => string;
  setFromBase64?: (this: Uint8Array, input: string) => { read: number; written: number };
};

const STANDARD = /^[A-Za-z0-9+/]*={0,2}$/;

function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function toBase64(this: Uint8Array, options: ToBase64Options = {}): string {
  const url = options.alphabet === 'base64url';
  let text = view(this).toString('base64');
  if (options.omitPadding) text = text.replace(/=+$/, '');
  return url ? text.replace(/\+/g, '-').replace(/\//g, '_') : text;
}

function setFromBase64(this: Uint8Array, input: string): { read: number; written: number } {
  const padded = input.length % 4 === 0;
  if (!STANDARD.test(input) || (!padded && input.includes('=')) || input.length % 4 === 1)
    throw new SyntaxError('not standard base64');
  const needed = Math.floor((input.length * 3) / 4) - (input.endsWith('==') ? 2 : input.endsWith('=') ? 1 : 0);
  if (needed > this.length) throw new RangeError('the target is too small');
  return { read: input.length, written: view(this).write(input, 'base64') };
}

/** Installs the two methods where the runtime lacks them (idempotent). */
function installBase64(): void {
  const proto = Uint8Array.prototype as unknown as Base64Methods;
  const define = (name: keyof Base64Methods, value: unknown): void => {
    Object.defineProperty(Uint8Array.prototype, name, { value, writable: true, configurable: true });
  };
  if (typeof proto.toBase64 !== 'function') define('toBase64', toBase64);
  if (typeof proto.setFromBase64 !== 'function') define('setFromBase64', setFromBase64);
}

installBase64();
