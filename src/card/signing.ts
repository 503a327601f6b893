// Agent Card signatures (spec §8.4): the canonical payload (presence-aware
// ProtoJSON of the card without `signatures`, REQUIRED fields kept, RFC 8785
// JCS), signing a served card anew with the route's key (JWS with a detached
// payload, protected header {alg, typ: "JOSE", kid, jku?}; the signed card is
// that normal form, so what is served is what was signed), the signing keys
// as read for one configuration generation, and verifying an upstream card
// against a JWKS. `jose` does the JWS work (loaded with the
// first card signed or verified: util/jose.ts), `canonicalize` JCS.
import { createHash } from 'node:crypto';
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

/** §8.4.1: the card as it is signed — without `signatures`, ProtoJSON with REQUIRED fields kept (what a re-signed card is served as). */
export function normalizedCard(card: JsonObject): JsonObject {
  const { signatures: _signatures, ...rest } = card;
  return keepRequired(AgentCardSchema, writeJson(AgentCardSchema, readJson(AgentCardSchema, rest)) as JsonObject);
}

/** §8.4.1: the bytes that are signed. */
export function canonicalPayload(card: JsonObject): Uint8Array {
  return new TextEncoder().encode(canonicalize(normalizedCard(card)) ?? '');
}

/** A signing key as read from its file: `id` names its material (alg and file content), `key` is it imported. */
export interface LoadedKey {
  id: string;
  key: CryptoKey | KeyObject | Uint8Array;
}

/** The key file (PKCS#8 PEM or JWK) imported for its alg; rejects when it does not fit (config/signing-keys.ts checks at load). */
export async function importSigningKey(k: SigningKey): Promise<CryptoKey | KeyObject | Uint8Array> {
  return (await readKey(k)).key;
}

async function readKey(k: SigningKey): Promise<LoadedKey> {
  const [text, jose] = await Promise.all([readFile(k.file, 'utf8'), loadJose()]);
  const key = text.trim().startsWith('{')
    ? await jose.importJWK(JSON.parse(text) as Record<string, unknown>, k.alg)
    : await jose.importPKCS8(text, k.alg);
  return { id: createHash('sha256').update(`${k.alg}\n${text}`).digest('base64url'), key };
}

/**
 * Signing keys read once per configuration generation, per file and alg: the owner clears them when a new
 * configuration takes over, so a key file replaced at the same path (rotation) or given another alg is read anew.
 * A key that cannot be read is not kept (the next card tries again).
 */
export class SigningKeys {
  private readonly loaded = new Map<string, Promise<LoadedKey>>();

  get(k: SigningKey): Promise<LoadedKey> {
    const name = `${k.alg}\n${k.file}`;
    let p = this.loaded.get(name);
    if (!p) {
      const loading = readKey(k);
      loading.catch(() => {
        if (this.loaded.get(name) === loading) this.loaded.delete(name);
      });
      this.loaded.set(name, (p = loading));
    }
    return p;
  }

  clear(): void {
    this.loaded.clear();
  }
}

/** The protected header of the route's signature (§8.4.2). */
export function protectedHeader(k: SigningKey): { alg: string; typ: string; kid: string; jku?: string } {
  return { alg: k.alg, typ: 'JOSE', kid: k.kid, ...(k.jku ? { jku: k.jku } : {}) };
}

/**
 * The card as it was signed (normalizedCard) with one signature made with the route's key, replacing any
 * `signatures`: served as it is, a verifier canonicalising the served JSON gets the signed bytes. `key` is the
 * key as loaded (SigningKeys), else the file is read.
 */
export async function signCard(card: JsonObject, k: SigningKey, key?: LoadedKey): Promise<JsonObject> {
  const normalized = normalizedCard(card);
  const { FlattenedSign } = await loadJose();
  const payload = new TextEncoder().encode(canonicalize(normalized) ?? '');
  const jws = await new FlattenedSign(payload)
    .setProtectedHeader(protectedHeader(k))
    .sign((key ?? (await readKey(k))).key);
  return { ...normalized, signatures: [{ protected: jws.protected ?? '', signature: jws.signature }] };
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
