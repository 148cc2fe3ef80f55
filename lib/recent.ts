/**
 * Bounded caches kept in order of use: a `Map` iterates in insertion order, so an entry set again
 * moves to the end, and the first entry is the least recently used.
 *
 * @module
 */

/**
 * Sets an entry of a map kept in order of use as its most recently used (a hit is set again to
 * mark it), and forgets the least recently used one beyond `max`.
 *
 * @example
 * ```ts
 * const cache = new Map([["a", 1], ["b", 2]]);
 * keepRecent(cache, "a", 1, 2); // "a" is now the newest
 * keepRecent(cache, "c", 3, 2); // "b" is forgotten
 * [...cache.keys()]; // ["a", "c"]
 * ```
 * @param map The cache.
 * @param key The entry's key.
 * @param value Its value.
 * @param max How many entries the cache keeps at most.
 */
export function keepRecent<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value!);
}
