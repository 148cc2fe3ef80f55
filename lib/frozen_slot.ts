/**
 * Plain data frozen to be read many times (a thread's earlier messages, given to every run of the
 * thread and to each model call of the run), with a hidden slot where each reader keeps what it found
 * out about the value once: the journal its text (lib/journal/payload.ts), the token estimate its
 * JSON length (lib/models/types.ts). The slot is a symbol-keyed, non-enumerable property holding a
 * mutable object: `Object.keys`, `JSON.stringify` and a spread never see it, and it is found by
 * reading a property of the value, not by a lookup in a table.
 *
 * @module
 */

const SLOT = Symbol("frozen slot");

/** What readers keep in a frozen value's slot, each under a key of its own. */
export interface FrozenSlot {
  /** The value's JSON length, when nothing in it can change (the token estimate's). */
  jsonLength?: number;
}

/**
 * Freezes a value with an empty slot.
 *
 * @example
 * ```ts
 * const m = freezeWithSlot({ role: "user", content: "Hi" });
 * Object.isFrozen(m); // true
 * JSON.stringify(m); // '{"role":"user","content":"Hi"}'
 * ```
 * @param value The value (not frozen yet).
 * @returns It, frozen.
 */
export function freezeWithSlot<T extends object>(value: T): Readonly<T> {
  Object.defineProperty(value, SLOT, { value: {} });
  return Object.freeze(value);
}

/**
 * A value's slot, when it was frozen by {@link freezeWithSlot}.
 *
 * @example
 * ```ts
 * const m = freezeWithSlot({ role: "user", content: "Hi" });
 * frozenSlot(m)!.jsonLength = 31;
 * frozenSlot({ role: "user" }); // undefined
 * ```
 * @param value Any value.
 * @returns The slot, or undefined.
 */
export function frozenSlot(value: unknown): FrozenSlot | undefined {
  return value !== null && typeof value === "object"
    ? (value as { [SLOT]?: FrozenSlot })[SLOT]
    : undefined;
}

/**
 * Whether a list starts with the items of another from its `from`th on (the same objects, in
 * order): how a reader recognizes values it kept something for together (a thread's history, sent
 * at the start of every model call, and the next turn's history, the last one's less its oldest
 * turns).
 *
 * @example
 * ```ts
 * const [a, b, c] = [{}, {}, {}];
 * startsWithItems([a, b, c], [a, b]); // true
 * startsWithItems([b, c], [a, b], 1); // true
 * startsWithItems([b, c], [a, b]); // false
 * ```
 * @param list The list.
 * @param items The items it should start with.
 * @param from The first of `items` to look for (0 to `items.length`).
 * @returns True when it starts with them.
 */
export function startsWithItems(
  list: readonly unknown[],
  items: readonly unknown[],
  from = 0,
): boolean {
  if (from < 0 || from > items.length || items.length - from > list.length) return false;
  for (let i = from; i < items.length; i++) if (list[i - from] !== items[i]) return false;
  return true;
}
