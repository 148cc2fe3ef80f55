/**
 * Journal events and their hash chain. Each line of a journal is the canonical JSON (RFC 8785) of
 * `{seq, ts, type, payload, prev, hash}` where
 * `hash = sha256_hex(prev + "\n" + JCS({seq, ts, type, payload}))` and the first `prev` is 64 zeros.
 * Lines are written in canonical form, so any changed byte is detected.
 *
 * @module
 */

import { canonicalJson, sha256Hex, sha256HexOf } from "../hash.ts";

/** One journal event. */
export interface JournalEvent {
  /** 1-based position in the journal. */
  seq: number;
  /** ISO time the event was written. */
  ts: string;
  type: string;
  payload: Record<string, unknown>;
  /** Hash of the previous event (64 zeros for the first). */
  prev: string;
  hash: string;
}

/** The `prev` of the first event. */
export const GENESIS_HASH = "0".repeat(64);

/**
 * The canonical (RFC 8785) texts of an event: its hashed body `{payload, seq, ts, type}` and its whole
 * line. The payload is canonicalized once and both texts are assembled around it (JCS sorts keys, and
 * serializes strings and integers as JSON.stringify does).
 *
 * @param e The event fields (`hash` and `prev` may be empty while the hash is being computed).
 * @returns The body and the line.
 */
export function canonicalParts(
  e: { seq: number; ts: string; type: string; payload: unknown; prev?: string; hash?: string },
): { body: string; line: string } {
  const payload = canonicalJson(e.payload);
  const tail = `"seq":${canonicalJson(e.seq)},"ts":${JSON.stringify(e.ts)},"type":${
    JSON.stringify(e.type)
  }}`;
  return {
    body: `{"payload":${payload},${tail}`,
    line: `{"hash":${JSON.stringify(e.hash ?? "")},"payload":${payload},"prev":${
      JSON.stringify(e.prev ?? "")
    },${tail}`,
  };
}

/**
 * The hash of an event given its predecessor's hash.
 *
 * @example
 * ```ts
 * eventHash(GENESIS_HASH, { seq: 1, ts: "2026-01-01T00:00:00.000Z", type: "run_started", payload: {} });
 * ```
 * @param prev The previous hash.
 * @param body The hashed fields.
 * @returns 64 hex characters.
 */
export function eventHash(
  prev: string,
  body: { seq: number; ts: string; type: string; payload: unknown },
): string {
  return chainHash(prev, canonicalParts(body).body);
}

/**
 * The chain formula, the one place it is written: `sha256_hex(prev + "\n" + body)`, where `body` is
 * the canonical text from {@link canonicalParts}. The writer and the verifier call it with the body
 * they already built, so each event is canonicalized once.
 *
 * @param prev The previous event's hash.
 * @param canonicalBody The canonical `{payload, seq, ts, type}` text.
 * @returns 64 hex characters.
 */
export function chainHash(prev: string, canonicalBody: string): string {
  return sha256Hex(`${prev}\n${canonicalBody}`);
}

/**
 * The same chain formula over a journal line's own bytes, for a line already confirmed canonical:
 * the hashed body `{"payload":P,"seq":…,"ts":…,"type":…}` is assembled from the payload's bytes and
 * the line's tail after `prev` (`,"seq":…}`), so nothing is parsed or re-serialized.
 *
 * @param prev The previous event's hash.
 * @param payload The canonical payload's bytes.
 * @param tail The line's bytes from the comma before `"seq"` to its closing brace.
 * @returns 64 hex characters.
 */
export function chainHashParts(prev: string, payload: Uint8Array, tail: Uint8Array): string {
  return sha256HexOf([`${prev}\n{"payload":`, payload, tail]);
}
