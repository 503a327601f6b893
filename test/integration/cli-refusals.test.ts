// What the a2a-gateway command (the built dist/cli/bin.js) refuses before
// serving, as one line on stderr and exit 2: card files that are missing and
// signing keys that do not import for their alg (check and serve alike);
// quick-start flags a config file would refuse (a log level, an upstream URL
// that is no URL or not one of its binding); and a listen host that does not
// resolve (no grpc-js stack trace): one with an empty label, which
// getaddrinfo refuses without a DNS query (glibc and musl build no query for
// it), so nothing leaves the machine and the answer is ENOTFOUND wherever the
// test runs (a resolver that cannot be reached, EAI_AGAIN, is
// test/unit/listen-error.test.ts's). A command that serves instead is stopped
// once it logs that it listens, and fails the test.
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import t from 'tap';
import { BIN, ROOT, type Finished } from '../helpers/cli-process.js';

/** Runs the built CLI to its exit, or until it logs that it listens (then killed: `served`). */
async function runCli(args: string[], opts: { cwd?: string } = {}): Promise<Finished & { served: boolean }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let served = false;
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (!served && stdout.includes('"msg":"a2a-gateway listening"')) {
      served = true;
      child.kill('SIGKILL');
    }
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr, served };
}

const CARD = JSON.stringify({ name: 'x', description: 'x', version: '1', supportedInterfaces: [], skills: [] });

/** A config whose one gRPC route serves card.json, re-signed with `key` for `alg`. */
function resign(key: string, alg: string, more: Record<string, unknown> = {}): string {
  return JSON.stringify({
    routes: [
      {
        name: 'signed',
        upstream: { url: 'grpc://127.0.0.1:1', binding: 'GRPC' },
        card: { file: 'card.json', signatures: 'resign', signingKey: { file: key, alg, kid: 'k1' }, ...more },
      },
    ],
  });
}

t.test('card files and signing keys are checked at load', async (t) => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const dir = t.testdir({
    'card.json': CARD,
    'ec.pem': ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    'public.jwk': JSON.stringify(ec.publicKey.export({ format: 'jwk' })),
    'good.yaml': resign('ec.pem', 'ES256'),
    'missing.yaml': JSON.stringify({
      routes: [
        {
          name: 'signed',
          upstream: { url: 'grpc://127.0.0.1:1', binding: 'GRPC' },
          card: {
            file: 'nope.json',
            signatures: 'resign',
            signingKey: { file: 'nope.pem', alg: 'ES256', kid: 'k1' },
            verifyJwksFile: 'nope-jwks.json',
          },
        },
      ],
    }),
    'rs256.yaml': resign('ec.pem', 'RS256'),
    'es999.yaml': resign('ec.pem', 'ES999'),
    'public.yaml': resign('public.jwk', 'ES256'),
  });
  const check = (file: string) => runCli(['check', '--config', file], { cwd: dir });
  const good = await check('good.yaml');
  t.same([good.code, good.stderr], [0, ''], 'an EC key for ES256 is valid');
  const missing = await check('missing.yaml');
  t.equal(missing.code, 2);
  t.match(missing.stderr.trimEnd().split('\n'), [
    /^a2a-gateway: missing\.yaml:\d+:\d+: routes\[0\]\.card\.file: file not found: nope\.json$/,
    /^a2a-gateway: missing\.yaml:\d+:\d+: routes\[0\]\.card\.signingKey\.file: file not found: nope\.pem$/,
    /^a2a-gateway: missing\.yaml:\d+:\d+: routes\[0\]\.card\.verifyJwksFile: file not found: nope-jwks\.json$/,
  ]);
  t.equal(missing.stderr.trimEnd().split('\n').length, 3, 'one line per missing file');
  const expected: Record<string, RegExp> = {
    'rs256.yaml': /routes\[0\]\.card\.signingKey: ec\.pem is not a usable RS256 signing key: /,
    'es999.yaml': /routes\[0\]\.card\.signingKey: ec\.pem is not a usable ES999 signing key: .*alg/,
    'public.yaml': /routes\[0\]\.card\.signingKey: public\.jwk holds a public key/,
  };
  for (const [file, line] of Object.entries(expected)) {
    const r = await check(file);
    t.equal(r.code, 2, `${file}: exit 2`);
    t.equal(r.stderr.trimEnd().split('\n').length, 1, `${file}: one line`);
    t.match(r.stderr, new RegExp(`^a2a-gateway: ${file.replace('.', '\\.')}:\\d+:\\d+: ${line.source}`));
  }
  const served = await runCli(['--config', 'rs256.yaml', '--http-port', '0', '--grpc-port', '0'], { cwd: dir });
  t.same([served.code, served.served], [2, false], 'serve refuses it too: nothing served');
  t.match(served.stderr, /signingKey: ec\.pem is not a usable RS256 signing key/);
});

t.test('quick-start flags go through the checks a config file goes through', async (t) => {
  const ports = ['--http-port', '0', '--grpc-port', '0'];
  const cases: Array<[string[], string]> = [
    [
      ['--upstream', 'http://127.0.0.1:1', '--log-level', 'loud'],
      '--log-level: "loud" is not one of fatal, error, warn, info, debug, trace, silent',
    ],
    [['--upstream', 'ftp://x'], '--upstream ftp://x: must be an http:// or https:// URL'],
    [['--upstream', 'notaurl'], '--upstream notaurl: must be an http:// or https:// URL'],
    [
      ['--upstream', 'http://x:1', '--upstream-binding', 'GRPC'],
      '--upstream http://x:1: must be host:port, grpc://host:port or grpcs://host:port',
    ],
    [
      ['--upstream', 'http://x:1', '--upstream', 'https://y:1'],
      '--upstream https://y:1: every endpoint of a route uses TLS, or none does',
    ],
    [['--upstream', 'http://x:1', '--allow-host', 'a/b'], '--allow-host: "a/b" is not a host name'],
  ];
  const runs = await Promise.all(cases.map(([args]) => runCli([...args, ...ports])));
  runs.forEach((r, i) => {
    const [args, line] = cases[i]!;
    t.same([r.code, r.served, r.stderr], [2, false, `a2a-gateway: ${line}\n`], args.join(' '));
  });
  const dir = t.testdir({
    'gateway.yaml': JSON.stringify({ routes: [{ name: 'a', upstream: { url: 'http://x:1' } }] }),
  });
  const withFile = await runCli(['check', '--config', join(dir, 'gateway.yaml'), '--log-level', 'LOUD']);
  t.same([withFile.code, withFile.stderr], [2, `a2a-gateway: ${cases[0]![1].replace('loud', 'LOUD')}\n`]);
});

t.test('a listen host that does not resolve: one line naming it, exit 2', async (t) => {
  const host = 'gateway..invalid'; // an empty label: refused before any DNS query
  const dir = t.testdir({
    'gateway.yaml': JSON.stringify({
      listen: { host, httpPort: 0, grpcPort: 0 },
      routes: [{ name: 'a', upstream: { url: 'http://127.0.0.1:1' } }],
    }),
  });
  const line = `a2a-gateway: cannot listen on ${host}:0: the host name does not resolve (change --host / listen.host)\n`;
  const [flag, file] = await Promise.all([
    runCli(['--upstream', 'http://127.0.0.1:1', '--host', host, '--http-port', '0', '--grpc-port', '0']),
    runCli(['--config', join(dir, 'gateway.yaml')]),
  ]);
  t.same([flag.code, flag.stderr], [2, line], '--host');
  t.same([file.code, file.stderr], [2, line], 'listen.host');
});
