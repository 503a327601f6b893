// Ajv's errors for a field whose schema is a oneOf (upstream.healthCheck,
// credentials, tenant) as an operator reads them: ajv reports every branch's
// failure and then "must match exactly one schema in oneOf", three lines for
// one typo. When the value has the shape of one branch (an object where an
// object is allowed), only that branch's errors are kept; when it has none
// (`credentials: Forward`), one error names the allowed forms.
import type { ErrorObject } from 'ajv';
import { CONFIG_SCHEMA } from './schema.js';

interface Node {
  const?: unknown;
  enum?: readonly unknown[];
  type?: string;
  properties?: Record<string, unknown>;
}

/** Errors that say the value is not of a branch's shape at all (rather than something inside it is wrong). */
const SHAPE = new Set(['type', 'const', 'enum']);

/** The schema node at an ajv schemaPath ("#/properties/routes/items/…"). */
function schemaAt(schemaPath: string): unknown {
  let node: unknown = CONFIG_SCHEMA;
  for (const key of schemaPath.split('/').slice(1))
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

function form(b: Node): string[] {
  if ('const' in b) return [JSON.stringify(b.const)];
  if (b.enum) return b.enum.map((v) => JSON.stringify(v));
  if (b.type === 'object' && b.properties) return [`an object with ${Object.keys(b.properties).join(', ')}`];
  return [
    b.type === 'object' || b.type === 'array' || b.type === 'integer' ? `an ${b.type}` : `a ${b.type ?? 'value'}`,
  ];
}

/** "must be false, true or an object with intervalMs, …": every form the oneOf's branches allow. */
function allowedForms(branches: readonly Node[]): string {
  const all = branches.flatMap(form);
  return `must be ${all.length > 1 ? `${all.slice(0, -1).join(', ')} or ${all.at(-1)}` : all[0]}`;
}

/** `errors` with each failed oneOf reduced to the fitting branch's errors, or to one error naming the allowed forms. */
export function collapseOneOf(errors: readonly ErrorObject[]): ErrorObject[] {
  let out = [...errors];
  for (const failed of errors.filter((e) => e.keyword === 'oneOf')) {
    const branches = schemaAt(failed.schemaPath);
    if (!Array.isArray(branches)) continue;
    const prefix = `${failed.schemaPath}/`;
    const branchOf = (e: ErrorObject): number | undefined =>
      e.schemaPath.startsWith(prefix) ? Number(e.schemaPath.slice(prefix.length).split('/')[0]) : undefined;
    const inside = out.filter((e) => branchOf(e) !== undefined);
    if (inside.length === 0) continue; // several branches passed: ajv's own message says so
    const misfits = new Set(
      inside.filter((e) => e.instancePath === failed.instancePath && SHAPE.has(e.keyword)).map(branchOf),
    );
    const fitting = branches.map((_, i) => i).filter((i) => !misfits.has(i));
    const keep =
      fitting.length === 1
        ? inside.filter((e) => branchOf(e) === fitting[0])
        : [{ ...failed, message: allowedForms(branches as Node[]) }];
    const at = out.indexOf(failed);
    out = [...out.slice(0, at).filter((e) => !inside.includes(e)), ...keep, ...out.slice(at + 1)];
  }
  return out;
}
