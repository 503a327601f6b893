// The layering check (.dependency-cruiser.cjs; `npm run layers` runs it
// alone, this file in the tap suite, so `npm test`, not `npm run lint`) holds
// for src/ and fails on each kind of forbidden import: a binding importing
// another binding, the core importing a binding, a leaf importing the core.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

async function violations(cwd: string): Promise<Violation[]> {
  const { stdout } = await run(DEPCRUISE, ['src', '--config', CONFIG, '--output-type', 'json'], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((e: { stdout: string }) => ({ stdout: e.stdout })); // a violation exits non-zero
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

t.test('src/ keeps its layers', async (tt) => {
  tt.same(await violations(ROOT), [], 'no violation in the real tree');
});

t.test('each forbidden import is caught', async (tt) => {
  const dir = tt.testdir({ 'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext' } }) });
  const files: Record<string, string> = {
    'src/bindings/jsonrpc/inbound.ts': "import { x } from '../rest/paths.js';\nexport const y = x;\n",
    'src/bindings/rest/paths.ts': 'export const x = 1;\n',
    'src/core/dispatch.ts': "import { y } from '../bindings/jsonrpc/inbound.js';\nexport const z = y;\n",
    'src/errors/catalogue.ts': "import { z } from '../core/dispatch.js';\nexport const w = z;\n",
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const found = (await violations(dir)).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
  tt.same(found, [
    'core-is-binding-free: src/core/dispatch.ts → src/bindings/jsonrpc/inbound.ts',
    'leaves-stay-leaves: src/errors/catalogue.ts → src/core/dispatch.ts',
    'no-binding-to-binding: src/bindings/jsonrpc/inbound.ts → src/bindings/rest/paths.ts',
  ]);
});

t.test("the pipeline's stages are the ones the docs name, in their order", async (tt) => {
  const { Pipeline, STAGE_NAMES } = await import('../../src/pipeline/pipeline.js');
  const { Metrics } = await import('../../src/ops/metrics.js');
  const { AccessLog } = await import('../../src/ops/access-log.js');
  const { pino } = await import('pino');
  const log = pino({ level: 'silent' });
  const pipeline = new Pipeline({
    cards: {} as never,
    log,
    access: new AccessLog(log),
    metrics: new Metrics(),
    tracer: undefined,
  });
  tt.same(pipeline.stageNames, STAGE_NAMES);
});
