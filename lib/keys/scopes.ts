/**
 * Scopes: coarse permissions of keys and tokens (`run`, `read`, `mutate`, `evolve`, `*`). A request
 * passes when both the key's authorized scopes and the token's own scope claim cover the scope the
 * endpoint needs; `*` covers everything, and a token can never exceed its key.
 *
 * @module
 */

import { badInput } from "../errors.ts";

/** Every scope. */
export const SCOPES = ["run", "read", "mutate", "evolve", "*"] as const;

/** A scope. */
export type Scope = typeof SCOPES[number];

/**
 * Parses scope arguments: repeated and/or comma-separated, each one of {@link SCOPES}.
 *
 * @example
 * ```ts
 * parseScopes(["run,read", "mutate"]); // ["run", "read", "mutate"]
 * ```
 * @param values The raw values.
 * @returns Unique scopes, in the order given.
 */
export function parseScopes(values: readonly string[]): Scope[] {
  const out: Scope[] = [];
  for (const raw of values.flatMap((v) => v.split(/[,\s]+/))) {
    const s = raw.trim();
    if (!s) continue;
    if (!(SCOPES as readonly string[]).includes(s)) {
      throw badInput(`Unknown scope ${JSON.stringify(s)}: expected one of ${SCOPES.join(", ")}`, {
        scope: s,
      });
    }
    if (!out.includes(s as Scope)) out.push(s as Scope);
  }
  return out;
}

/**
 * Whether a set of scopes covers a required scope.
 *
 * @param scopes Held scopes.
 * @param required The scope needed.
 * @returns True when `required` or `*` is held.
 */
export function covers(scopes: readonly string[], required: string): boolean {
  return scopes.includes("*") || scopes.includes(required);
}

/**
 * The scopes both sets allow (what a token can really do with its key).
 *
 * @param key The key's scopes.
 * @param token The token's scopes.
 * @returns The effective scopes.
 */
export function effectiveScopes(key: readonly string[], token: readonly string[]): string[] {
  const concrete = SCOPES.filter((s) => s !== "*");
  if (key.includes("*") && token.includes("*")) return ["*"];
  return concrete.filter((s) => covers(key, s) && covers(token, s));
}
