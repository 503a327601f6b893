// `npm run docs`: regenerates every part of the docs that is derived from the
// code, so none of it can drift — the regions between <!-- name … --> and
// <!-- /name --> markers in docs/*.md (configuration reference from the
// loader's schema, error table from the catalogue, metrics from the registered
// prom-client metrics, the 0.3 method table from the bridge), the published
// JSON Schema and the loader's precompiled validator (src/gen), the
// architecture diagram (from the pipeline's STAGE_NAMES), the streaming
// sequence picture and the benchmark figure (from docs/benchmarks.md's tables).
// test/unit/docs.test.ts fails when any committed file differs from this.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { v03MethodTableMarkdown } from '../../src/compat/v0_3/methods.js';
import { errorTableMarkdown } from '../../src/errors/catalogue.js';
import { barsFromBenchmarksPage, ratioChartSvg } from '../bench/chart.js';
import { schemaText } from '../config-schema.js';
import { validatorSource } from '../config-validator.js';
import { architectureSvg } from './architecture-svg.js';
import { configReferenceMarkdown } from './config-reference.js';
import { metricsTableMarkdown } from './metrics-table.js';
import { streamingSvg } from './streaming-svg.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A marked region of a page: its content is generate(the page as it stands). */
interface Region {
  file: string;
  marker: string;
  generate: (page: string) => string;
}

export const REGIONS: Region[] = [
  { file: 'docs/configuration.md', marker: 'config-reference', generate: configReferenceMarkdown },
  { file: 'docs/errors.md', marker: 'error-table', generate: errorTableMarkdown },
  { file: 'docs/operations.md', marker: 'metrics-table', generate: metricsTableMarkdown },
  { file: 'docs/bridge.md', marker: 'v03-method-table', generate: v03MethodTableMarkdown },
];

/** Whole generated files: path → content. */
export const FILES: Record<string, () => string> = {
  'schema/a2a-gateway.schema.json': schemaText,
  'src/gen/config-validator.ts': validatorSource,
  'docs/images/architecture.svg': architectureSvg,
  'docs/images/streaming-errors.svg': streamingSvg,
  'docs/benchmarks-ratio.svg': () =>
    ratioChartSvg(barsFromBenchmarksPage(readFileSync(`${ROOT}docs/benchmarks.md`, 'utf8'))),
};

function regionPattern(marker: string): RegExp {
  return new RegExp(`(<!-- ${marker}[^\\n]*-->\\n)[\\s\\S]*?(\\n?<!-- /${marker} -->)`);
}

/** The region's current content in the page, or undefined when the page does not mark it. */
export function regionOf(page: string, marker: string): string | undefined {
  const m = regionPattern(marker).exec(page);
  return m ? m[0].slice(m[1]!.length, m[0].length - m[2]!.length) : undefined;
}

/** The page with the region regenerated. */
export function regenerate(page: string, region: Region): string {
  if (regionOf(page, region.marker) === undefined)
    throw new Error(`${region.file}: no <!-- ${region.marker} --> region`);
  const content = region.generate(page);
  return page.replace(
    regionPattern(region.marker),
    (_m, open: string) => `${open}${content}\n<!-- /${region.marker} -->`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const region of REGIONS) {
    const path = `${ROOT}${region.file}`;
    writeFileSync(path, regenerate(readFileSync(path, 'utf8'), region));
  }
  for (const [file, generate] of Object.entries(FILES)) writeFileSync(`${ROOT}${file}`, generate());
  process.exit(0); // prom-client's default metrics keep timers of their own
}
