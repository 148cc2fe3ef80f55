/**
 * Ed25519 signature checks, and where they run. A check costs about 40 µs of CPU, once per
 * authenticated request. Two ways to run it:
 * - inline, with node:crypto's synchronous `verify`: no thread hop, so the shortest latency when the
 *   server has nothing else to do (a sequential client waits for every answer);
 * - on the runtime's thread pool, with WebCrypto's `verify`: the event loop serves other requests
 *   meanwhile, so under concurrency the check uses the second core instead of holding the first.
 *
 * {@link ed25519Check} picks per check: on the pool while another check is there or was there within
 * the last 2 ms (requests are overlapping), inline otherwise. Inline checks never overlap, so one in 32
 * goes to the pool anyway: that is how overlapping requests are noticed. Both ways give the same
 * verdict (RFC 8032 with canonical `S`); `tests/keys/signature_check_test.ts` holds each of them to it.
 *
 * @module
 */

import { createPublicKey, type KeyObject, verify } from "node:crypto";
import { fromBase64Url } from "./key_material.ts";

/** How long overlapping checks keep the pool in use after the last overlap (ms). */
const OVERLAP_WINDOW_MS = 2;
/** One inline check in this many goes to the pool, to notice overlapping requests. */
const PROBE_EVERY = 32;
/** Bound on the cached key objects of each kind. */
const MAX_KEYS = 4096;

const inlineKeys = new Map<string, KeyObject>();
const pooledKeys = new Map<string, Promise<CryptoKey>>();
let pending = 0;
let sinceProbe = 0;
let overlapUntil = 0;

/**
 * Checks an Ed25519 signature inline (node:crypto, synchronous).
 *
 * @param publicKey The raw public key, base64url (43 characters).
 * @param signature The signature (64 bytes).
 * @param data The signed bytes.
 * @returns Whether it holds; false for a key or signature that cannot be used.
 */
export function ed25519HoldsInline(
  publicKey: string,
  signature: Uint8Array,
  data: Uint8Array,
): boolean {
  if (signature.length !== 64) return false;
  try {
    let key = inlineKeys.get(publicKey);
    if (!key) {
      key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: publicKey }, format: "jwk" });
      if (inlineKeys.size >= MAX_KEYS) inlineKeys.clear();
      inlineKeys.set(publicKey, key);
    }
    return verify(null, data, key, signature);
  } catch {
    return false;
  }
}

/**
 * Checks an Ed25519 signature on the thread pool (WebCrypto).
 *
 * @param publicKey The raw public key, base64url (43 characters).
 * @param signature The signature (64 bytes).
 * @param data The signed bytes.
 * @returns Whether it holds; false for a key or signature that cannot be used.
 */
export async function ed25519HoldsPooled(
  publicKey: string,
  signature: Uint8Array,
  data: Uint8Array,
): Promise<boolean> {
  if (signature.length !== 64) return false;
  let key = pooledKeys.get(publicKey);
  if (!key) {
    const raw = fromBase64Url(publicKey);
    key = raw && raw.length === 32
      ? crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, "Ed25519", false, ["verify"])
      : Promise.reject(new Error("not a 32-byte key"));
    key.catch(() => pooledKeys.delete(publicKey));
    if (pooledKeys.size >= MAX_KEYS) pooledKeys.clear();
    pooledKeys.set(publicKey, key);
  }
  try {
    return await crypto.subtle.verify(
      "Ed25519",
      await key,
      signature as Uint8Array<ArrayBuffer>,
      data as Uint8Array<ArrayBuffer>,
    );
  } catch {
    return false;
  }
}

/**
 * Checks an Ed25519 signature where it costs least now: inline when checks are not overlapping, on
 * the thread pool when they are (see the module's notes).
 *
 * @example
 * ```ts
 * import { newKeyPair, signingKeyFromPem } from "./key_material.ts";
 *
 * const key = await signingKeyFromPem((await newKeyPair()).pem);
 * const signingInput = new TextEncoder().encode("header.payload");
 * const signed = await crypto.subtle.sign("Ed25519", key.privateKey, signingInput);
 * const signature = new Uint8Array(signed);
 * const holds = await ed25519Check(key.public_key, signature, signingInput); // true
 * ```
 * @param publicKey The raw public key, base64url (43 characters).
 * @param signature The signature (64 bytes).
 * @param data The signed bytes.
 * @returns Whether it holds (a boolean when checked inline, a promise when pooled).
 */
export function ed25519Check(
  publicKey: string,
  signature: Uint8Array,
  data: Uint8Array,
): boolean | Promise<boolean> {
  const now = performance.now();
  if (pending > 0) overlapUntil = now + OVERLAP_WINDOW_MS;
  else if (now >= overlapUntil && ++sinceProbe < PROBE_EVERY) {
    return ed25519HoldsInline(publicKey, signature, data);
  }
  sinceProbe = 0;
  pending++;
  return ed25519HoldsPooled(publicKey, signature, data).finally(() => pending--);
}
