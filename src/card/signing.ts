// Agent Card signatures (spec §8.4): the canonical payload (presence-aware
// ProtoJSON of the card without `signatures`, REQUIRED fields kept, RFC 8785
// JCS), signing a served card anew with the route's key (JWS with a detached
// payload, protected header {alg, typ: "JOSE", kid, jku?}) and verifying an
// upstream card against a JWKS. `jose` does the JWS work (loaded with the
// first card signed or verified: util/jose.ts), `canonicalize` JCS.
import { readFile } from 'node:fs/promises';
import canonicalize from 'canonicalize';
import type { JSONWebKeySet, CryptoKey, KeyObject } from 'jose';
import type { DescMessage } from '@bufbuild/protobuf';
import type { SigningKey } from '../config/types.js';
import { AgentCardSchema } from '../gen/a2a_pb.js';
import { isObject, readJson, writeJson, type JsonObject } from '../proto/json.js';
import { defaultJson, isRequired } from '../proto/required-json.js';
import { loadJose } from '../util/jose.js';

/** §8.4.1: REQUIRED fields present even at their default, at every level of the ProtoJSON `json`. */
function keepRequired(schema: DescMessage, json: JsonObject): JsonObject {
  for (const f of schema.fields) {
    const v = json[f.jsonName];
    if (v === undefined) {
      if (isRequired(f)) json[f.jsonName] = defaultJson(f);
      continue;
    }
    const nested = f.message;
    if (!nested || nested.typeName.startsWith('google.protobuf.')) continue;
    const items = f.fieldKind === 'message' ? [v] : Array.isArray(v) ? v : isObject(v) ? Object.values(v) : [];
    for (const item of items) if (isObject(item)) keepRequired(nested, item);
  }
  return json;
}

/** §8.4.1: the bytes that are signed. */
export function canonicalPayload(card: JsonObject): Uint8Array {
  const { signatures: _signatures, ...rest } = card;
  const normalized = keepRequired(
    AgentCardSchema,
    writeJson(AgentCardSchema, readJson(AgentCardSchema, rest)) as JsonObject,
  );
  return new TextEncoder().encode(canonicalize(normalized) ?? '');
}

const keys = new Map<string, Promise<CryptoKey | KeyObject | Uint8Array>>();

function loadKey(k: SigningKey): Promise<CryptoKey | KeyObject | Uint8Array> {
  let p = keys.get(k.file);
  if (!p) {
    p = Promise.all([readFile(k.file, 'utf8'), loadJose()]).then(([text, jose]) =>
      text.trim().startsWith('{')
        ? jose.importJWK(JSON.parse(text) as Record<string, unknown>, k.alg)
        : jose.importPKCS8(text, k.alg),
    );
    keys.set(k.file, p);
  }
  return p;
}

/** The card with `signatures` replaced by one signature made with the route's key. */
export async function signCard(card: JsonObject, k: SigningKey): Promise<JsonObject> {
  const { signatures: _dropped, ...unsigned } = card;
  const header = { alg: k.alg, typ: 'JOSE', kid: k.kid, ...(k.jku ? { jku: k.jku } : {}) };
  const { FlattenedSign } = await loadJose();
  const jws = await new FlattenedSign(canonicalPayload(unsigned)).setProtectedHeader(header).sign(await loadKey(k));
  return { ...unsigned, signatures: [{ protected: jws.protected ?? '', signature: jws.signature }] };
}

/** Throws unless at least one of the card's signatures verifies with a key of the JWKS file. */
export async function verifyCard(card: JsonObject, jwksFile: string): Promise<void> {
  const { createLocalJWKSet, flattenedVerify } = await loadJose();
  const jwks = createLocalJWKSet(JSON.parse(await readFile(jwksFile, 'utf8')) as JSONWebKeySet);
  const payload = Buffer.from(canonicalPayload(card)).toString('base64url');
  const sigs = Array.isArray(card.signatures) ? card.signatures : [];
  for (const s of sigs) {
    if (!s || typeof s !== 'object' || Array.isArray(s)) continue;
    try {
      await flattenedVerify({ protected: String(s.protected), signature: String(s.signature), payload }, jwks);
      return;
    } catch {
      // try the next signature
    }
  }
  throw new Error(
    sigs.length === 0
      ? 'the agent card is not signed'
      : 'no signature of the agent card verifies with the configured JWKS',
  );
}
