/**
 * The spec version: the hex SHA-256 of the RFC 8785 (JCS) canonical JSON of the parsed spec, so two
 * files that differ only in comments, key order or formatting have the same version.
 *
 * @module
 */

import { canonicalJson, sha256Hex } from "../hash.ts";

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
