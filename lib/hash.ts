/**
 * Hashing and canonical JSON: the hex SHA-256 every version and hash chain uses, and RFC 8785 (JCS)
 * canonical JSON, so a hash does not depend on key order or formatting.
 *
 * @module
 */

import canonicalize from "canonicalize";
import { createHash } from "node:crypto";

/**
 * Hex SHA-256 of a string or bytes.
 *
 * @example
 * ```ts
 * sha256Hex("abc").slice(0, 8); // "ba7816bf"
 * ```
 * @param data The input.
 * @returns 64 lowercase hex characters.
 */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * The RFC 8785 canonical JSON of a value.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [true] }); // '{"a":[true],"b":1}'
 * ```
 * @param value A JSON value.
 * @returns The canonical text.
 */
export function canonicalJson(value: unknown): string {
  return canonicalize(value) ?? "null";
}
