// The SSRF guard (spec §13: file references MUST be validated to prevent
// SSRF): a file part's `url` must pass the URL screen (policy/url-screen.ts:
// http(s) only, no special-purpose address of the IANA registries, no local
// name). Host names are not resolved here (a name that resolves to a private
// address is the agent's to refuse). On by default per route.
import protobuf from 'protobufjs';
import { unsafeUrl } from '../policy/url-screen.js';
import type { ProtoObject } from '../proto/protojson.js';
import type { FieldViolation } from '../proto/violations.js';

export { unsafeUrl };

function walk(type: protobuf.Type, obj: ProtoObject, path: string, out: FieldViolation[]): void {
  if (type.fullName === '.lf.a2a.v1.Part' && typeof obj.url === 'string' && obj.url !== '') {
    const why = unsafeUrl(obj.url);
    if (why) out.push({ field: `${path}.url`, description: `file URL refused: ${why}` });
  }
  for (const f of type.fieldsArray) {
    const rt = f.resolvedType;
    const v = obj[f.name];
    if (!(rt instanceof protobuf.Type) || v == null || rt.fullName.startsWith('.google.')) continue;
    const at = path ? `${path}.${f.name}` : f.name;
    if (f.repeated && Array.isArray(v)) v.forEach((item, i) => walk(rt, item as ProtoObject, `${at}[${i}]`, out));
    else if (!f.repeated && !(f instanceof protobuf.MapField)) walk(rt, v as ProtoObject, at, out);
  }
}

/** Every file part URL of the request that the guard refuses. */
export function ssrfViolations(type: protobuf.Type, request: ProtoObject): FieldViolation[] {
  const out: FieldViolation[] = [];
  walk(type, request, '', out);
  return out;
}
