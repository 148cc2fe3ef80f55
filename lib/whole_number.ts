/**
 * Whole numbers typed by people (a query parameter, a CLI option), read strictly: digits only (no
 * `1e1`, `0x2` or ` 2` passing as numbers), within bounds, with an error that says what to send.
 *
 * @module
 */

import { badInput } from "./errors.ts";

/**
 * Reads a whole number.
 *
 * @example
 * ```ts
 * const url = new URL("http://127.0.0.1:8770/api/runs");
 * wholeNumber(url.searchParams.get("limit"), { name: "limit", min: 1, max: 1000, fallback: 50 }); // 50
 * ```
 * @param raw The text (null or undefined when absent).
 * @param rule Its name, bounds, the value when it is absent, and whether an empty text counts as
 *   absent (the default, as in `?limit=`) or is refused (`emptyIsAbsent: false`, as for `--limit ""`).
 * @returns The number, or the fallback.
 * @throws `bad_input` for anything but digits within the bounds.
 */
export function wholeNumber<F extends number | undefined>(
  raw: string | null | undefined,
  rule: { name: string; min: number; max?: number; fallback: F; emptyIsAbsent?: boolean },
): number | F {
  if (raw === null || raw === undefined) return rule.fallback;
  if (raw === "" && rule.emptyIsAbsent !== false) return rule.fallback;
  const n = isWholeNumberText(raw) ? Number(raw) : NaN;
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

/**
 * Reads a command-line option that is always present as text (it has a default): an empty text is
 * refused, not taken as absent.
 *
 * @example
 * ```ts
 * wholeOption("8080", { name: "--port", min: 0, max: 65535 }); // 8080
 * ```
 * @param raw The option's text.
 * @param rule The flag as the person typed it, and the bounds.
 * @returns The number.
 * @throws `bad_input` for anything but digits within the bounds.
 */
export function wholeOption(
  raw: string,
  rule: { name: string; min: number; max?: number },
): number {
  return wholeNumber(raw, { ...rule, fallback: 0, emptyIsAbsent: false });
}

/**
 * Whether a text is a whole number as this module reads them: 1 to 15 digits, nothing else.
 *
 * @param raw The text.
 * @returns True for `"0"`, `"42"`; false for `" 2"`, `"1e1"`, `"-1"`, `""`.
 */
export function isWholeNumberText(raw: string): boolean {
  return /^\d{1,15}$/.test(raw);
}
