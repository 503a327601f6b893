// `npm run pictures [DIR]`: renders every SVG of docs/ (the architecture
// diagram, the streaming sequence, the benchmark figure) to PNG with Chromium
// (playwright-core, Debian's /usr/bin/chromium), at twice their size, into DIR
// (default: a2a-gateway-pictures in the system's temp folder) — to look at
// each picture as a reader's browser draws it before committing it.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT } from './generate.js';

const out = process.argv[2] ?? join(tmpdir(), 'a2a-gateway-pictures');
mkdirSync(out, { recursive: true });
const svgs = ['docs', 'docs/images'].flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.svg'))
    .map((f) => join(ROOT, dir, f)),
);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ deviceScaleFactor: 2 });
  for (const file of svgs) {
    const svg = readFileSync(file, 'utf8');
    const [, w, h] = /<svg[^>]* width="(\d+)" height="(\d+)"/.exec(svg) ?? [];
    await page.setViewportSize({ width: Number(w ?? 800), height: Number(h ?? 600) });
    await page.setContent(`<html><body style="margin:0">${svg}</body></html>`);
    const png = join(out, `${basename(file, '.svg')}.png`);
    await page.screenshot({ path: png, fullPage: true });
    console.log(png);
  }
} finally {
  await browser.close();
}
