// src/gen/**/*_pb.ts is generated from proto/ (`npm run gen`: buf +
// protoc-gen-es) and committed; this fails when a .proto changed and the
// generated code was not regenerated (or someone edited it by hand). (The
// other file there, config-validator.ts, comes from the config schema: its
// freshness is docs.test's; here, that it is ASCII.)
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'node_modules', '.bin');

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => relative(dir, join(d.parentPath, d.name)))
    .sort();
}

t.test('src/gen matches what proto/ generates', async (tt) => {
  const out = tt.testdir();
  const template = {
    version: 'v2',
    plugins: [{ local: join(BIN, 'protoc-gen-es'), out, opt: ['target=ts', 'import_extension=js'] }],
  };
  await promisify(execFile)(join(BIN, 'buf'), ['generate', '--template', JSON.stringify(template)], { cwd: ROOT });
  const committed = join(ROOT, 'src', 'gen');
  const fromProto = files(committed).filter((f) => f.endsWith('_pb.ts'));
  tt.same(files(out), fromProto, 'the same files');
  tt.same(
    files(committed).filter((f) => !f.endsWith('_pb.ts')),
    ['config-validator.ts'],
    'and nothing else but the config validator',
  );
  for (const f of fromProto) {
    tt.equal(readFileSync(join(committed, f), 'utf8'), readFileSync(join(out, f), 'utf8'), `${f} is up to date`);
  }
});

t.test('the config validator is ASCII', async (tt) => {
  // one character beyond Latin-1 and V8 keeps the whole module source (≈ 300 KB once built) at two bytes a character
  const source = readFileSync(join(ROOT, 'src', 'gen', 'config-validator.ts'), 'utf8');
  tt.same(source.match(/[\u0080-\uffff]/g), null, 'non-ASCII characters are written as \\u escapes');
});
