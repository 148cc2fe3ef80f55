/**
 * The spec version: the hex SHA-256 of the RFC 8785 (JCS) canonical JSON of the parsed spec, so two
 * files that differ only in comments, key order or formatting have the same version.
 *
 * @module
 */

import canonicalize from "canonicalize";
import { createHash } from "node:crypto";

/**
 * Hex SHA-256 of a string or bytes.
 *
 * @param data The input.
 * @returns 64 lowercase hex characters.
 */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * The RFC 8785 canonical JSON of a value.
 *
 * @param value A JSON value.
 * @returns The canonical text.
 */
export function canonicalJson(value: unknown): string {
  return canonicalize(value) ?? "null";
}

/**
 * The version hash of a parsed spec.
 *
 * @example
 * ```ts
 * specVersion({ id: "a", model: { provider: "scripted" } }).length; // 64
 * ```
 * @param spec The parsed spec.
 * @returns 64 lowercase hex characters.
 */
export function specVersion(spec: unknown): string {
  return sha256Hex(canonicalJson(spec));
}
