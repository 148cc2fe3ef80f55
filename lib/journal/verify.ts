/**
 * Verifying a journal's hash chain: finds the first changed, dropped, reordered, inserted or torn line.
 *
 * @module
 */

import { canonicalParts, chainHash, GENESIS_HASH, type JournalEvent } from "./event.ts";

/** The result of {@link verifyJournal}. */
export interface Integrity {
  /** Whether every line verified. */
  ok: boolean;
  /** How many lines verified before the first broken one (all of them when ok). */
  checked: number;
  /** The seq expected at the first broken line, or null. */
  broken_at: number | null;
}

const KEYS = ["hash", "payload", "prev", "seq", "ts", "type"];

/**
 * Verifies a journal's bytes: each line must be the canonical JSON of an event whose `seq` is its
 * position, whose `prev` is the previous line's hash and whose `hash` matches its content.
 *
 * @example
 * ```ts
 * verifyJournal(await Deno.readFile(path)); // { ok: true, checked: 12, broken_at: null }
 * ```
 * @param bytes The journal file's bytes (or its text).
 * @returns `{ok, checked, broken_at}`.
 */
export function verifyJournal(bytes: Uint8Array | string): Integrity {
  const text = typeof bytes === "string"
    ? bytes
    : new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  if (text.length === 0) return { ok: true, checked: 0, broken_at: null };
  const lines = text.split("\n");
  const complete = lines.pop() === "";
  let prev = GENESIS_HASH;
  for (let i = 0; i < lines.length; i++) {
    const seq = i + 1;
    const event = parseLine(lines[i]!);
    if (!event || event.seq !== seq || event.prev !== prev) {
      return { ok: false, checked: i, broken_at: seq };
    }
    const parts = canonicalParts(event);
    if (parts.line !== lines[i] || event.hash !== chainHash(prev, parts.body)) {
      return { ok: false, checked: i, broken_at: seq };
    }
    prev = event.hash;
  }
  if (!complete) return { ok: false, checked: lines.length, broken_at: lines.length + 1 };
  return { ok: true, checked: lines.length, broken_at: null };
}

function parseLine(line: string): JournalEvent | undefined {
  try {
    const v = JSON.parse(line);
    if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
    const keys = Object.keys(v).sort();
    if (keys.length !== KEYS.length || keys.some((k, i) => k !== KEYS[i])) return undefined;
    if (typeof v.seq !== "number" || typeof v.ts !== "string" || typeof v.type !== "string") {
      return undefined;
    }
    if (typeof v.prev !== "string" || typeof v.hash !== "string") return undefined;
    if (!v.payload || typeof v.payload !== "object" || Array.isArray(v.payload)) return undefined;
    return v as JournalEvent;
  } catch {
    return undefined;
  }
}

/**
 * Parses a journal into events, keeping every line that parses (for display of a broken journal too).
 *
 * @param bytes The journal's bytes (or text).
 * @returns The events in file order.
 */
export function parseJournal(bytes: Uint8Array | string): JournalEvent[] {
  const text = typeof bytes === "string" ? bytes : new TextDecoder().decode(bytes);
  const out: JournalEvent[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    const event = parseLine(line);
    if (event) out.push(event);
  }
  return out;
}
