// Checks of a route's card settings beyond the JSON Schema (spec §8): each
// `card.overrides` value reads as the AgentCard field it replaces (§4.4.1),
// so a served or re-signed card never carries a value of another type (an
// error, reported by load.ts with its place); and, as a warning that
// `a2a-gateway check` prints, a prefix whose routes are all bound to tenants
// (its own card is then the first one's: server/cors-routes.ts).
import { ScalarType, type DescField } from '@bufbuild/protobuf';
import { AgentCardSchema } from '../gen/a2a_pb.js';
import { ProtoJsonError, readJson } from '../proto/json.js';
import { prefixKey } from '../routing/canonical.js';
import type { Problem } from './checks.js';
import type { RouteConfig } from './types.js';

/**
 * card.overrides replace fields of the served card: each must read as that AgentCard field (§4.4.1; JSON type first,
 * then what is inside it, a skill's `id` or a security scheme's members), named by the field.
 */
export function overrideProblems(r: RouteConfig, i: number): Problem[] {
  const out: Problem[] = [];
  for (const [key, value] of Object.entries(r.card.overrides)) {
    const path = `/routes/${i}/card/overrides/${key}`;
    const field = AgentCardSchema.fields.find((f) => f.jsonName === key);
    const wanted = field ? jsonTypeOf(field) : undefined;
    const given = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    if (wanted && given !== wanted) {
      out.push({ path, message: `must be ${wanted === 'string' ? 'a' : 'an'} ${wanted} (AgentCard.${key})` });
      continue;
    }
    try {
      readJson(AgentCardSchema, { [key]: value }, key);
    } catch (e) {
      const v = e instanceof ProtoJsonError ? e.violations[0] : undefined;
      const where = v && v.field !== key ? `${v.field}: ` : '';
      out.push({ path, message: `${where}${v?.description ?? (e as Error).message} (AgentCard.${key})` });
    }
  }
  return out;
}

/** The JSON type a card field's ProtoJSON takes (a message or map: an object; a repeated field: an array). */
function jsonTypeOf(f: DescField): string {
  if (f.fieldKind === 'list') return 'array';
  if (f.fieldKind === 'map' || f.fieldKind === 'message') return 'object';
  return f.fieldKind === 'scalar' && f.scalar === ScalarType.STRING ? 'string' : '';
}

/**
 * Not wrong, but worth saying (`a2a-gateway check` prints them): routes that share a path prefix and hosts, all bound
 * to a tenant, of two tenants or more. The prefix's own card (`P/.well-known/agent-card.json`) is then the first
 * one's, for want of a route bound to none (each tenant's is at `P/{tenant}/.well-known/agent-card.json`).
 */
export function cardWarnings(routes: readonly RouteConfig[]): string[] {
  const groups = new Map<string, RouteConfig[]>();
  for (const r of routes) {
    const key = `${prefixKey(r.pathPrefix)} ${[...r.hosts].sort().join(',')}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const out: string[] = [];
  for (const group of groups.values()) {
    if (group.some((r) => r.tenant === undefined)) continue;
    if (new Set(group.map((r) => r.tenant!.toLowerCase())).size < 2) continue;
    const p = group[0]!.pathPrefix;
    out.push(
      `routes ${group.map((r) => `"${r.name}"`).join(', ')} share the path prefix "${p || '/'}" and are all bound to a tenant: ` +
        `${p}/.well-known/agent-card.json serves "${group[0]!.name}"'s card (each tenant's is at ${p}/{tenant}/.well-known/agent-card.json); ` +
        'a route without match.tenant there would serve its own',
    );
  }
  return out;
}
