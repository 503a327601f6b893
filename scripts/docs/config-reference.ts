// The configuration reference of docs/configuration.md, generated from the one
// JSON Schema the loader validates with (src/config/schema.ts): one section per
// object, one row per field with its type, default and description, and an
// example value taken from the page's full example (the ```yaml block marked
// <!-- config-example -->). `npm run docs` writes it; test/unit/docs.test.ts
// fails when the page is stale or the example misses a field.
import { parse } from 'yaml';
import { CONFIG_SCHEMA } from '../../src/config/schema.js';

/** A node of the schema, as far as the reference reads it. */
export interface SchemaNode {
  type?: string;
  enum?: readonly unknown[];
  oneOf?: readonly SchemaNode[];
  properties?: Readonly<Record<string, SchemaNode>>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  required?: readonly string[];
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  minItems?: number;
  pattern?: string;
}

const ROOT_NODE = CONFIG_SCHEMA as unknown as SchemaNode;

/** Objects described in a section of their own: they have named fields that are not all free-form. */
function isSection(node: SchemaNode): boolean {
  return !!node.properties && Object.values(node.properties).some((p) => Object.keys(p).length > 0);
}

function objectBranch(node: SchemaNode): SchemaNode | undefined {
  return isSection(node) ? node : node.oneOf?.find(isSection);
}

/** Every field path of the schema ("routes[].upstream.url"), objects included, in schema order. */
export function fieldPaths(node: SchemaNode = ROOT_NODE, prefix = ''): string[] {
  const out: string[] = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    out.push(path);
    const inner = child.type === 'array' && child.items ? child.items : child;
    const branch = objectBranch(inner);
    if (branch) out.push(...fieldPaths(branch, inner === child ? path : `${path}[]`));
  }
  return out;
}

const code = (s: string) => `\`${s}\``;
const thousands = (n: number) => n.toLocaleString('en-US');

/** A default in the units a reader thinks in: bytes as MiB, milliseconds as seconds or minutes. */
export function humanValue(field: string, value: unknown): string {
  if (typeof value === 'string') return code(value);
  if (typeof value !== 'number') return code(inline(value));
  if (/port$/i.test(field)) return String(value);
  if (/Bytes$/.test(field) && value >= 1024) {
    const mib = value / 2 ** 20;
    return Number.isInteger(mib) ? `${thousands(value)} (${mib} MiB)` : thousands(value);
  }
  if (/Ms$/.test(field) && value >= 1000) {
    const s = value / 1000;
    return s >= 120 && s % 60 === 0 ? `${thousands(value)} (${s / 60} min)` : `${thousands(value)} (${s} s)`;
  }
  return thousands(value);
}

/** JSON as one line of flow YAML: keys unquoted, a space after each comma. */
function inline(v: unknown): string {
  return JSON.stringify(v)
    .replace(/"([\w.-]+)":/g, '$1: ')
    .replace(/,(?=["{[\w])/g, ', ');
}

function typeOf(node: SchemaNode, anchor: string): string {
  if (node.oneOf) return node.oneOf.map((b) => typeOf(b, anchor)).join(' or ');
  if (node.enum) return node.enum.map((v) => code(String(v))).join(' \\| ');
  if (node.type === 'array') return `list of ${node.items ? typeOf(node.items, anchor) : 'any'}`;
  if (node.type === 'object') {
    if (isSection(node)) return `[object](#${anchor})`;
    if (node.properties) return `object with ${Object.keys(node.properties).map(code).join(', ')}`;
    return typeof node.additionalProperties === 'object'
      ? `map of ${typeOf(node.additionalProperties, anchor)}`
      : 'object';
  }
  const bounds: string[] = [];
  if (node.minimum !== undefined && node.maximum !== undefined) bounds.push(`${node.minimum}–${node.maximum}`);
  else if (node.minimum !== undefined) bounds.push(`≥ ${node.minimum}`);
  if (node.exclusiveMinimum !== undefined) bounds.push(`> ${node.exclusiveMinimum}`);
  if (node.pattern) bounds.push(`matching ${code(node.pattern.replace(/\|/g, '\\|'))}`);
  else if (node.minLength && node.minLength > 1) bounds.push(`of ≥ ${node.minLength} characters`);
  return [node.type ?? 'any', ...bounds].join(' ');
}

/** The value a path has in the example (alternatives on commented lines count), as inline YAML. */
function exampleAt(example: unknown, path: string): string | undefined {
  let values: unknown[] = [example];
  for (const part of path.split('.')) {
    const [key, list] = part.endsWith('[]') ? [part.slice(0, -2), true] : [part, false];
    values = values
      .flatMap((v) => (v && typeof v === 'object' && !Array.isArray(v) ? [(v as Record<string, unknown>)[key]] : []))
      .flatMap((v) => (list && Array.isArray(v) ? v : [v]))
      .filter((v) => v !== undefined);
  }
  const v = values[0];
  if (v === undefined) return undefined;
  return code(typeof v === 'object' ? inline(v) : String(v));
}

const ALTERNATIVE = /^(\s+)# ([A-Za-z]+):(.*)$/;

/** The page's example as written, then once per commented alternative line, in place of the line it stands for. */
export function exampleDocuments(page: string): unknown[] {
  const m = /<!-- config-example -->\n```yaml\n([\s\S]*?)```/.exec(page);
  if (!m) throw new Error('docs/configuration.md: no ```yaml block after <!-- config-example -->');
  const lines = m[1]!.split('\n');
  const docs: unknown[] = [parse(m[1]!)];
  lines.forEach((line, i) => {
    const alt = ALTERNATIVE.exec(line);
    if (!alt) return;
    const [, indent, key, rest] = alt;
    const variant = [...lines];
    variant[i] = `${indent}${key}:${rest}`;
    for (let j = i - 1; j >= 0 && (ALTERNATIVE.test(lines[j]!) || lines[j]!.startsWith(`${indent}${key}:`)); j--)
      if (lines[j]!.startsWith(`${indent}${key}:`)) variant[j] = '';
    docs.push(parse(variant.join('\n')));
  });
  return docs;
}

function anchorOf(path: string): string {
  return path.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

function section(path: string, node: SchemaNode, examples: unknown[], out: string[]): void {
  const rows: string[] = [];
  const nested: Array<[string, SchemaNode]> = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const full = path ? `${path}.${name}` : name;
    const inner = child.type === 'array' && child.items ? child.items : child;
    const branch = objectBranch(inner);
    const innerPath = inner === child ? full : `${full}[]`;
    if (branch) nested.push([innerPath, { ...branch, description: child.description ?? branch.description }]);
    const required = node.required?.includes(name) ? ' **required**' : '';
    const dflt = child.default !== undefined ? humanValue(name, child.default) : '—';
    const example = branch ? 'below' : (examples.map((e) => exampleAt(e, full)).find((x) => x !== undefined) ?? '—');
    const desc = (child.description ?? '').replace(/\|/g, '\\|').replace(/</g, '&lt;');
    rows.push(`| ${code(name)}${required} | ${typeOf(child, anchorOf(innerPath))} | ${dflt} | ${example} | ${desc} |`);
  }
  out.push(`<a id="${anchorOf(path || 'top-level')}"></a>`, '', `### ${path ? code(path) : 'Top level'}`, '');
  if (path && node.description) out.push(node.description.replace(/</g, '&lt;'), '');
  out.push('| field | type | default | example | what it does |', '| :-- | :-- | :-- | :-- | :-- |', ...rows, '');
  for (const [p, n] of nested) section(p, n, examples, out);
}

/** The generated reference (Markdown) for docs/configuration.md, given the page (for its example). */
export function configReferenceMarkdown(page: string): string {
  const out: string[] = [];
  section('', ROOT_NODE, exampleDocuments(page), out);
  return out.join('\n').trimEnd();
}
