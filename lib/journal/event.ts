/**
 * Journal events and their hash chain. Each line of a journal is the canonical JSON (RFC 8785) of
 * `{seq, ts, type, payload, prev, hash}` where
 * `hash = sha256_hex(prev + "\n" + JCS({seq, ts, type, payload}))` and the first `prev` is 64 zeros.
 * Lines are written in canonical form, so any changed byte is detected.
 *
 * @module
 */

import { canonicalJson, sha256Hex } from "../spec/version.ts";

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
  return sha256Hex(
    `${prev}\n${
      canonicalJson({ seq: body.seq, ts: body.ts, type: body.type, payload: body.payload })
    }`,
  );
}

/**
 * The exact line (without its newline) a journal holds for an event.
 *
 * @param event The event.
 * @returns Canonical JSON.
 */
export function eventLine(event: JournalEvent): string {
  return canonicalJson(event);
}
