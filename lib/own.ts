/**
 * Lookups by keys that come from users, files or models. `record[key]` also finds what every object
 * inherits (`constructor`, `toString`, `__proto__`), so a template named `constructor` is found, and
 * then fails far away as an internal error. These helpers read and write own properties only.
 *
 * @module
 */

/**
 * The value of an own property, or undefined (inherited names like `constructor` are not found).
 *
 * @example
 * ```ts
 * own({ hello: 1 }, "constructor"); // undefined
 * ```
 * @param record The record.
 * @param key A key from outside.
 * @returns The value, or undefined.
 */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Sets an own property, also for the key `__proto__` (which plain assignment would take as the
 * object's prototype instead of a key).
 *
 * @param record The record.
 * @param key A key from outside.
 * @param value The value.
 */
export function setOwn(
  record: Record<string | number, unknown>,
  key: string | number,
  value: unknown,
): void {
  if (key === "__proto__") {
    Object.defineProperty(record, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    record[key] = value;
  }
}
