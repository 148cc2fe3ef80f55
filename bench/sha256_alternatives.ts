/**
 * The journal verifier's SHA-256 state (`lib/sha256.ts`'s `Sha256`) built on other implementations,
 * for bench/journal_sha256_bench.ts: a verifying process gets one in place of lib/sha256.ts through
 * an import map (`sha256_alternatives.ts?noble-fresh`), so the verifier measured is the real one.
 *
 * - `noble-fresh`: `@noble/hashes`, a `sha256.create()` per message (its public API: a finished
 *   state cannot be reused).
 * - `noble-reused`: `@noble/hashes`, one state reset between messages by copying a pristine one into
 *   it (`_cloneInto`, which the library declares but marks internal by its name).
 * - `node`: node:crypto's `createHash`, a native state per message (what the verifier used before
 *   lib/sha256.ts).
 *
 * @module
 */

import { sha256 } from "@noble/hashes/sha2.js";
import { createHash } from "node:crypto";
import type { Sha256 } from "../lib/sha256.ts";

/** Which implementation. */
export type Alternative = "noble-fresh" | "noble-reused" | "node";

const HEX_DIGITS = new TextEncoder().encode("0123456789abcdef");
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/**
 * A `Sha256` over another implementation.
 *
 * @param which The implementation.
 * @returns The state.
 */
export function createAlternativeSha256(which: Alternative): Sha256 {
  const digest = digester(which);
  const sha: Sha256 = {
    update(bytes, start = 0, end = bytes.length) {
      if (start < 0 || end > bytes.length || start > end) {
        throw new RangeError(`no bytes [${start}, ${end}) in ${bytes.length}`);
      }
      digest.update(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end));
      return sha;
    },
    hex() {
      const d = digest.finish();
      let out = "";
      for (let i = 0; i < 32; i++) out += HEX[d[i]!]!;
      return out;
    },
    hexIs(bytes, at) {
      const d = digest.finish();
      if (at < 0 || at + 64 > bytes.length) return false;
      for (let i = 0; i < 32; i++) {
        const v = d[i]!;
        if (
          bytes[at + 2 * i] !== HEX_DIGITS[v >>> 4] || bytes[at + 2 * i + 1] !== HEX_DIGITS[v & 15]
        ) {
          return false;
        }
      }
      return true;
    },
  };
  return sha;
}

/** Adds bytes; finishes (the 32 bytes of the hash) and starts over. */
function digester(which: Alternative): {
  update(bytes: Uint8Array): void;
  finish(): Uint8Array;
} {
  if (which === "node") {
    let h = createHash("sha256");
    return {
      update: (bytes) => void h.update(bytes),
      finish() {
        const d = h.digest();
        h = createHash("sha256");
        return d;
      },
    };
  }
  let state = sha256.create();
  if (which === "noble-fresh") {
    return {
      update: (bytes) => void state.update(bytes),
      finish() {
        const d = state.digest();
        state = sha256.create();
        return d;
      },
    };
  }
  const pristine = sha256.create();
  const out = new Uint8Array(32);
  return {
    update: (bytes) => void state.update(bytes),
    finish() {
      state.digestInto(out);
      pristine._cloneInto(state);
      return out;
    },
  };
}

/**
 * What an import map puts in place of lib/sha256.ts's `createSha256`: the implementation is the
 * module URL's query.
 *
 * @returns The state.
 */
export function createSha256(): Sha256 {
  const which = new URL(import.meta.url).search.slice(1);
  if (which !== "noble-fresh" && which !== "noble-reused" && which !== "node") {
    throw new Error(`sha256_alternatives.ts?${which}: expected noble-fresh, noble-reused or node`);
  }
  return createAlternativeSha256(which);
}
