/**
 * Identifiers: ULIDs (time-sortable, 26 Crockford base32 characters) with a kind prefix, e.g.
 * `run_01JD3M...`. Monotonic within a process, so ids made in the same millisecond still sort in order.
 *
 * @module
 */

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

let lastTime = -1;
let lastRandom: Uint8Array = new Uint8Array(10);

function encodeTime(time: number): string {
  let out = "";
  let t = time;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

/**
 * The smallest ULID of a moment: every id made at or after `time` sorts at or above it, so a range
 * on an id column's index can stand for a range of creation times.
 *
 * @example
 * ```ts
 * ulidFloor(0); // "00000000000000000000000000"
 * ```
 * @param time Epoch milliseconds.
 * @returns 26 characters.
 */
export function ulidFloor(time: number): string {
  return encodeTime(Math.max(0, Math.floor(time))) + "0".repeat(16);
}

function encodeRandom(bytes: Uint8Array): string {
  // 80 bits -> 16 characters of 5 bits, the most significant first (no BigInt: this is on every
  // run's path).
  let out = "";
  let acc = 0;
  let held = 0;
  for (const b of bytes) {
    acc = ((acc << 8) | b) & 0xfff;
    held += 8;
    while (held >= 5) {
      held -= 5;
      out += ALPHABET[(acc >>> held) & 31];
    }
  }
  return out;
}

function increment(bytes: Uint8Array): Uint8Array {
  const next = bytes.slice();
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i]! < 255) {
      next[i]! += 1;
      return next;
    }
    next[i] = 0;
  }
  return crypto.getRandomValues(new Uint8Array(10));
}

/**
 * A new ULID.
 *
 * @example
 * ```ts
 * ulid().length; // 26
 * ```
 * @returns 26 characters; later calls sort after earlier ones.
 */
export function ulid(): string {
  const now = Date.now();
  if (now <= lastTime) {
    lastRandom = increment(lastRandom);
  } else {
    lastTime = now;
    lastRandom = crypto.getRandomValues(new Uint8Array(10));
  }
  return encodeTime(lastTime) + encodeRandom(lastRandom);
}

/**
 * A new run id: `run_` + ULID.
 *
 * @returns The id.
 */
export function newRunId(): string {
  return `run_${ulid()}`;
}

/**
 * A prefixed, time-sortable id (`msg_<ULID>`, `ctl_<ULID>`, …).
 *
 * @example
 * ```ts
 * newId("msg"); // "msg_01J…"
 * ```
 * @param prefix The kind of thing it names.
 * @returns The id.
 */
export function newId(prefix: string): string {
  return `${prefix}_${ulid()}`;
}
