/**
 * Ed25519 key material: PKCS#8 PEM private keys (the format of `openssl genpkey -algorithm ed25519`),
 * raw 32-byte public keys in base64url (43 characters), and key ids (RFC 7638 JWK thumbprints).
 *
 * @module
 */

import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importPKCS8 } from "jose";
import { badInput } from "../errors.ts";

/** The wire form of a public key: raw 32 bytes, base64url without padding. */
export const PUBLIC_KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Decodes base64url (padding optional).
 *
 * @param text The text.
 * @returns The bytes, or undefined when it is not base64url.
 */
export function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) return undefined;
  try {
    // "loose": padding optional, as JWS leaves it out; stray bits of a last chunk are ignored.
    return Uint8Array.fromBase64(text, { alphabet: "base64url", lastChunkHandling: "loose" });
  } catch {
    return undefined;
  }
}

/**
 * Encodes bytes as base64url without padding.
 *
 * @param bytes The bytes.
 * @returns The text.
 */
export function toBase64Url(bytes: Uint8Array): string {
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

/**
 * Checks a public key given by a user: base64url of exactly 32 bytes.
 *
 * @param publicKey The text.
 * @returns The canonical 43-character form.
 */
export function checkPublicKey(publicKey: string): string {
  const bytes = fromBase64Url(publicKey.trim());
  if (!bytes || bytes.length !== 32) {
    throw badInput(
      "Invalid public key: expected the raw 32-byte ed25519 key in base64url (43 characters), as printed by `framework keys generate`",
      { length: bytes?.length ?? null },
    );
  }
  return toBase64Url(bytes);
}

/**
 * The key id of a public key: the RFC 7638 thumbprint (SHA-256, base64url) of its JWK.
 *
 * @example
 * ```ts
 * await keyIdOf("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"); // "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
 * ```
 * @param publicKey The raw public key, base64url.
 * @returns 43 characters.
 */
export function keyIdOf(publicKey: string): Promise<string> {
  return calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x: publicKey }, "sha256");
}

/** A private key loaded from a PEM file. */
export interface SigningKey {
  privateKey: CryptoKey;
  public_key: string;
  key_id: string;
}

/**
 * Generates a new ed25519 key pair.
 *
 * @returns The PKCS#8 PEM of the private key, the public key and the key id.
 */
export async function newKeyPair(): Promise<{ pem: string; public_key: string; key_id: string }> {
  const { publicKey, privateKey } = await generateKeyPair("EdDSA", {
    crv: "Ed25519",
    extractable: true,
  });
  const pem = await exportPKCS8(privateKey);
  const x = (await exportJWK(publicKey)).x!;
  return { pem, public_key: x, key_id: await keyIdOf(x) };
}

/**
 * Loads a PKCS#8 PEM ed25519 private key (from `framework keys generate` or openssl).
 *
 * @param pem The PEM text.
 * @returns The signing key with its public key and key id.
 */
export async function signingKeyFromPem(pem: string): Promise<SigningKey> {
  let privateKey: CryptoKey;
  try {
    privateKey = await importPKCS8(pem, "EdDSA", { extractable: true });
  } catch {
    throw badInput(
      "The key file is not an ed25519 private key in PKCS#8 PEM (-----BEGIN PRIVATE KEY-----)",
    );
  }
  const jwk = await exportJWK(privateKey);
  if (jwk.crv !== "Ed25519" || !jwk.x) throw badInput("The key file is not an ed25519 private key");
  return { privateKey, public_key: jwk.x, key_id: await keyIdOf(jwk.x) };
}
