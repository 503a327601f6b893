// Writes schema/a2a-gateway.schema.json, the config file's JSON Schema for
// editors (`# yaml-language-server: $schema=…`), from the one schema the
// loader validates with (src/config/schema.ts): `npm run schema`.
// test/unit/config-schema.test.ts fails when the committed file is stale;
// `npm run docs` writes it with the rest of the generated docs.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONFIG_SCHEMA } from '../src/config/schema.js';

export const SCHEMA_FILE = fileURLToPath(new URL('../schema/a2a-gateway.schema.json', import.meta.url));

export function schemaText(): string {
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'a2a-gateway configuration',
    description: 'The YAML config file of a2a-gateway (docs/configuration.md describes every field).',
    ...CONFIG_SCHEMA,
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeFileSync(SCHEMA_FILE, schemaText());
