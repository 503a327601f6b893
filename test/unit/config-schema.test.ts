// The published JSON Schema (schema/a2a-gateway.schema.json, shipped in the
// package for editors) is generated from the loader's own schema: this fails
// when the committed file is stale (`npm run schema` rewrites it). The example
// configs name it in a yaml-language-server modeline and pass it. Every
// duration in milliseconds is capped at the longest timer Node.js keeps.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import t from 'tap';
import { parse } from 'yaml';
import { SCHEMA_FILE, schemaText } from '../../scripts/config-schema.js';
import { CONFIG_SCHEMA } from '../../src/config/schema.js';
import { MAX_TIMER_MS } from '../../src/config/types.js';
import { ROOT } from '../helpers/cli-process.js';

t.test('the committed schema is generated from src/config/schema.ts', async (t) => {
  t.equal(readFileSync(SCHEMA_FILE, 'utf8'), schemaText(), 'up to date (run `npm run schema`)');
});

t.test('the example configs name the schema and pass it', async (t) => {
  const validate = new Ajv({ allErrors: true, strict: true }).compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')));
  for (const file of ['config/gateway.yaml', 'docker/gateway.yaml']) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const modeline = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text)?.[1];
    t.equal(modeline && resolve(dirname(join(ROOT, file)), modeline), SCHEMA_FILE, `${file}: names the schema`);
    t.ok(validate(parse(text)), `${file}: valid ${JSON.stringify(validate.errors ?? [])}`);
  }
  t.notOk(validate({ routes: [{ name: 'x', upstream: { url: 'http://a', binding: 'SOAP' } }] }), 'and it can refuse');
});

t.test('every …Ms field is at most 2^31-1: a longer timer would fire after 1 ms', async (t) => {
  type Node = { properties?: Record<string, Node>; items?: Node; oneOf?: readonly Node[]; maximum?: number };
  const found: string[] = [];
  const walk = (node: Node, path: string): void => {
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      if (name.endsWith('Ms')) {
        found.push(`${path}${name}`);
        t.equal(child.maximum, MAX_TIMER_MS, `${path}${name}: maximum`);
      }
      walk(child, `${path}${name}.`);
    }
    if (node.items) walk(node.items, path.replace(/\.$/, '[].'));
    for (const branch of node.oneOf ?? []) walk(branch, path);
  };
  walk(CONFIG_SCHEMA as unknown as Node, '');
  t.ok(found.length >= 13, `every duration field found (${found.join(', ')})`);
});
