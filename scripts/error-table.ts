// Rewrites the README's error table from the catalogue: `npm run docs:errors`.
// test/unit/catalogue.test.ts fails when the README is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { errorTableMarkdown } from '../src/errors/catalogue.js';

const README = new URL('../README.md', import.meta.url);
const text = readFileSync(README, 'utf8');
const updated = text.replace(
  /(<!-- error-table:[^\n]*-->\n)[\s\S]*?(\n<!-- \/error-table -->)/,
  (_m, open: string, close: string) => `${open}${errorTableMarkdown()}${close}`,
);
writeFileSync(README, updated);
