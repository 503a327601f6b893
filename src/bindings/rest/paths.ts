// REST URL patterns (spec §11.3, a2a.proto google.api.http rules): compiles
// each rule's pattern ("/{tenant}/tasks/{id=*}:cancel") into a matcher that
// yields the path variables, and lists a pattern's variables for building URLs.
import { A2AError } from '../../errors/a2a-error.js';
import { hasDotSegment } from '../../routing/canonical.js';
import { METHODS, type MethodInfo, type HttpRule } from '../../core/methods.js';

export interface PatternVariable {
  /** Proto field name as written in the pattern ("task_id"). */
  name: string;
  /** The exact text in the pattern ("{task_id=*}"). */
  text: string;
}

export function camel(s: string): string {
  return s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

export function patternVariables(pattern: string): PatternVariable[] {
  return [...pattern.matchAll(/\{([a-z_]+)(?:=\*)?\}/g)].map((m) => ({ name: m[1] ?? '', text: m[0] }));
}

export interface CompiledRoute {
  method: MethodInfo;
  rule: HttpRule;
  regex: RegExp;
  /** camelCase field names, in capture order. */
  fields: string[];
  literalLength: number;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compile(method: MethodInfo, rule: HttpRule): CompiledRoute {
  const vars = patternVariables(rule.pattern);
  let src = '';
  let rest = rule.pattern;
  let literalLength = 0;
  for (const v of vars) {
    const at = rest.indexOf(v.text);
    const literal = rest.slice(0, at);
    literalLength += literal.length;
    src += `${escapeRegex(literal)}([^/]+?)`;
    rest = rest.slice(at + v.text.length);
  }
  literalLength += rest.length;
  src += escapeRegex(rest);
  return { method, rule, regex: new RegExp(`^${src}$`), fields: vars.map((v) => camel(v.name)), literalLength };
}

/** Every REST route of every method, most literal text first (":cancel" before "{id}"). */
export const REST_ROUTES: readonly CompiledRoute[] = [...METHODS.values()]
  .flatMap((m) => m.httpRules.map((r) => compile(m, r)))
  .sort((a, b) => b.literalLength - a.literalLength);

export interface RestMatch {
  route: CompiledRoute;
  params: Record<string, string>;
}

/** Matches a path (below the route prefix); `verbMismatch` when only the verb differs. */
export function matchRestPath(verb: string, path: string): { match?: RestMatch; verbMismatch: boolean } {
  let verbMismatch = false;
  for (const route of REST_ROUTES) {
    const m = route.regex.exec(path);
    if (!m) continue;
    if (route.rule.verb !== verb) {
      verbMismatch = true;
      continue;
    }
    const params: Record<string, string> = {};
    route.fields.forEach((f, i) => {
      const raw = m[i + 1] ?? '';
      try {
        params[f] = decodeURIComponent(raw);
      } catch {
        throw A2AError.invalidParams([
          { field: f, description: `malformed percent-encoding in path segment "${raw}"` },
        ]);
      }
    });
    return { match: { route, params }, verbMismatch };
  }
  return { verbMismatch };
}

/**
 * A path variable's value as one segment, percent-encoded. A value that is or holds a dot segment ("..", "a/../b")
 * is InvalidParams: encoded, it still climbs above the agent's base path for a WHATWG URL parser (which reads %2E%2E
 * as "..") or a server that decodes "%2F" before resolving, and the edge refuses such paths from callers
 * (routing/canonical.ts, whose check runs on the encoded value here).
 */
export function pathSegment(v: string, field: string): string {
  const encoded = encodeURIComponent(v);
  if (hasDotSegment(encoded)) {
    throw A2AError.invalidParams([{ field, description: 'a path segment may not be or hold "." or ".."' }]);
  }
  return encoded;
}
