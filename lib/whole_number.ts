/**
 * Whole numbers from a query string, read strictly: digits only (no `1e1`, `0x2`, ` 2` or empty
 * values passing as numbers), within bounds, with an error that says what to send.
 *
 * @module
 */

import { badInput } from "../errors.ts";

/**
 * Reads a whole-number query parameter.
 *
 * @example
 * ```ts
 * queryInt(url.searchParams.get("limit"), { name: "limit", min: 1, max: 1000, fallback: 50 }); // 50
 * ```
 * @param raw The parameter's value (null or undefined when absent).
 * @param rule Its name, bounds and the value when it is absent (or empty).
 * @returns The number, or the fallback.
 * @throws `bad_input` for anything but digits within the bounds.
 */
export function queryInt<F extends number | undefined>(
  raw: string | null | undefined,
  rule: { name: string; min: number; max?: number; fallback: F },
): number | F {
  if (raw === null || raw === undefined || raw === "") return rule.fallback;
  const n = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  const max = rule.max ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(n) || n < rule.min || n > max) {
    throw badInput(
      `${rule.name} must be a whole number from ${rule.min}${
        rule.max !== undefined ? ` to ${rule.max}` : " up"
      }, got ${JSON.stringify(raw)}`,
    );
  }
  return n;
}
