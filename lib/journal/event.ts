/**
 * Journal events and their hash chain. Each line of a journal is the canonical JSON (RFC 8785) of
 * `{seq, ts, type, payload, prev, hash}` where
 * `hash = sha256_hex(prev + "\n" + JCS({seq, ts, type, payload}))` and the first `prev` is 64 zeros.
 * Lines are written in canonical form, so any changed byte is detected.
 *
 * @module
 */

import { canonicalJson, sha256Hex } from "../hash.ts";
import { createSha256 } from "../sha256.ts";

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
  return canonicalPartsOf(canonicalJson(e.payload), e);
}

/**
 * {@link canonicalParts} around a payload already in canonical text (the writer makes it while it
 * repairs and redacts the payload).
 *
 * @param payload The payload's canonical text.
 * @param e The other fields.
 * @returns The body and the line.
 */
export function canonicalPartsOf(
  payload: string,
  e: { seq: number; ts: string; type: string; prev?: string; hash?: string },
): { body: string; line: string } {
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
 * The one state {@link lineHashIs} hashes with: verifying a long journal then allocates nothing
 * per line that only a full collection would free (see lib/sha256.ts).
 */
const lineHash = createSha256();
const NEWLINE_PAYLOAD = new TextEncoder().encode('\n{"payload":');

/**
 * The same chain formula over a journal line's own bytes, for a line already confirmed canonical:
 * the hashed text `prev + "\n" + {"payload":P,"seq":…,"ts":…,"type":…}` is taken from the line's
 * `prev` digits, its payload's bytes and its tail after `prev` (`,"seq":…}`), and the result is
 * compared with the line's `hash` digits, so nothing is parsed, re-serialized, copied or decoded.
 *
 * @param line The line's bytes.
 * @param hashAt Where the line's own hash (64 hex digits) starts.
 * @param prevAt Where the previous event's hash (64 hex digits) starts.
 * @param payloadAt Where the canonical payload starts.
 * @param payloadEnd Where it ends (exclusive).
 * @param tailAt Where the tail starts (it runs to the end of the line).
 * @returns Whether the line's hash is right.
 */
export function lineHashIs(
  line: Uint8Array,
  hashAt: number,
  prevAt: number,
  payloadAt: number,
  payloadEnd: number,
  tailAt: number,
): boolean {
  return lineHash.update(line, prevAt, prevAt + 64).update(NEWLINE_PAYLOAD)
    .update(line, payloadAt, payloadEnd).update(line, tailAt).hexIs(line, hashAt);
}
