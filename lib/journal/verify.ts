/**
 * Verifying a journal's hash chain: finds the first changed, dropped, reordered, inserted or torn line.
 *
 * @module
 */

import { eachByteLine } from "../lines.ts";
import { scanString, scanValue, UNSURE } from "./canonical_scan.ts";
import { canonicalParts, chainHash, GENESIS_HASH, type JournalEvent, lineHashIs } from "./event.ts";

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
 * Checks a journal line by line, carrying the chain (expected seq and prev hash) from one line to the
 * next, so a journal can be verified as it streams by with memory bounded by one line.
 */
export interface ChainVerifier {
  /** Checks the next complete line (its bytes, without the newline); false at the first broken one. */
  line(bytes: Uint8Array): boolean;
  /** How many lines verified so far. */
  readonly checked: number;
}

/**
 * Starts a chain verifier. Each line is confirmed canonical by a byte scan and its hash computed over
 * its own bytes; a line the scan cannot confirm gets the full check (parse, re-serialize, compare),
 * which is the definition, so both paths give the same verdict.
 *
 * @returns The verifier.
 */
export function chainVerifier(): ChainVerifier {
  // The previous hash as its 64 ASCII digits: the fast check compares bytes with bytes.
  const prev = ASCII.encode(GENESIS_HASH);
  let checked = 0;
  return {
    line(bytes) {
      const seq = checked + 1;
      if (!fastCheck(bytes, seq, prev)) {
        const hash = slowLine(bytes, seq, LATIN1.decode(prev));
        if (hash === undefined) return false;
        ASCII.encodeInto(hash, prev);
      }
      checked = seq;
      return true;
    },
    get checked() {
      return checked;
    },
  };
}

/**
 * Verifies a journal's bytes: each line must be the canonical JSON of an event whose `seq` is its
 * position, whose `prev` is the previous line's hash and whose `hash` matches its content.
 *
 * @example
 * ```ts
 * const path = ".framework/traces/run_01….jsonl";
 * verifyJournal(await Deno.readFile(path)); // { ok: true, checked: 12, broken_at: null }
 * ```
 * @param input The journal file's bytes (or its text).
 * @returns `{ok, checked, broken_at}`.
 */
export function verifyJournal(input: Uint8Array | string): Integrity {
  const bytes = typeof input === "string" ? new TextEncoder().encode(input) : input;
  const chain = chainVerifier();
  let start = 0;
  while (start < bytes.length) {
    const nl = bytes.indexOf(0x0a, start);
    if (nl < 0) break; // a torn last line
    if (!chain.line(bytes.subarray(start, nl))) return broken(chain.checked);
    start = nl + 1;
  }
  return start < bytes.length ? broken(chain.checked) : verified(chain.checked);
}

/**
 * Verifies a journal file as it streams from disk: memory is bounded by one line, not the file.
 *
 * @example
 * ```ts
 * await verifyJournalFile(".framework/traces/run_01J….jsonl"); // { ok: true, … }
 * ```
 * @param path The journal file.
 * @returns `{ok, checked, broken_at}`.
 */
export async function verifyJournalFile(path: string): Promise<Integrity> {
  using file = await Deno.open(path, { read: true });
  const chain = chainVerifier();
  let ok = true;
  // A torn last line breaks the chain, as in verifyJournal.
  await eachByteLine(file, (bytes, _end, complete) => {
    if (!complete || !chain.line(bytes)) return ok = false;
  });
  return ok ? verified(chain.checked) : broken(chain.checked);
}

function broken(checked: number): Integrity {
  return { ok: false, checked, broken_at: checked + 1 };
}

function verified(checked: number): Integrity {
  return { ok: true, checked, broken_at: null };
}

const ASCII = new TextEncoder();
const LATIN1 = new TextDecoder("latin1");
const HEAD = ASCII.encode('{"hash":');
const PAYLOAD = ASCII.encode(',"payload":');
const PREV = ASCII.encode(',"prev":');
const SEQ = ASCII.encode(',"seq":');
const TS = ASCII.encode(',"ts":');
const TYPE = ASCII.encode(',"type":');

function at(b: Uint8Array, i: number, word: Uint8Array): boolean {
  if (i < 0 || i + word.length > b.length) return false;
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return false;
  return true;
}

/** Whether the string at [start, end) (quotes included) is exactly the 64 digits of `hash`. */
function hashIs(b: Uint8Array, start: number, end: number, hash: Uint8Array): boolean {
  if (end - start !== 66) return false;
  for (let k = 0; k < 64; k++) if (b[start + 1 + k] !== hash[k]) return false;
  return true;
}

/** Whether the digits at [start, end) are the canonical text of the whole number `n`. */
function numberIs(b: Uint8Array, start: number, end: number, n: number): boolean {
  if (end <= start || end - start > 15 || (b[start] === 0x30 && end - start > 1)) return false;
  let value = 0;
  for (let k = start; k < end; k++) {
    const digit = b[k]! - 0x30;
    if (digit < 0 || digit > 9) return false;
    value = value * 10 + digit;
  }
  return value === n;
}

/**
 * The fast check of one line (exported for the tests that hold it equal to the full check): the
 * canonical layout `{"hash":…,"payload":{…},"prev":…,"seq":…,"ts":…,"type":…}` confirmed by the
 * byte scan, seq and prev as expected, and the hash of
 * `prev + "\n" + {"payload":…,"seq":…,"ts":…,"type":…}` taken over the line's own bytes.
 *
 * @returns The line's hash when it verifies, undefined when the full check must decide.
 */
export function fastLine(b: Uint8Array, seq: number, prev: string): string | undefined {
  if (prev.length !== 64 || !/^[\x20-\x7e]*$/.test(prev)) return undefined;
  const digits = ASCII.encode(prev);
  return fastCheck(b, seq, digits) ? LATIN1.decode(digits) : undefined;
}

/**
 * {@link fastLine} without strings: `prev` holds the previous hash's 64 digits and, when the line
 * verifies, becomes this line's hash. Nothing is allocated per line, so a long journal's
 * verification stays within a line's memory.
 */
function fastCheck(b: Uint8Array, seq: number, prev: Uint8Array): boolean {
  try {
    if (!at(b, 0, HEAD)) return false;
    const hashEnd = scanString(b, HEAD.length, b.length);
    if (hashEnd === UNSURE || hashEnd - HEAD.length !== 66 || !at(b, hashEnd, PAYLOAD)) {
      return false;
    }
    const payloadStart = hashEnd + PAYLOAD.length;
    if (b[payloadStart] !== 0x7b) return false;
    const payloadEnd = scanValue(b, payloadStart, b.length);
    if (payloadEnd === UNSURE || !at(b, payloadEnd, PREV)) return false;
    const prevEnd = scanString(b, payloadEnd + PREV.length, b.length);
    if (prevEnd === UNSURE || !hashIs(b, payloadEnd + PREV.length, prevEnd, prev)) return false;
    if (!at(b, prevEnd, SEQ)) return false;
    const seqEnd = scanValue(b, prevEnd + SEQ.length, b.length);
    if (seqEnd === UNSURE || !numberIs(b, prevEnd + SEQ.length, seqEnd, seq)) return false;
    if (!at(b, seqEnd, TS)) return false;
    const tsEnd = scanString(b, seqEnd + TS.length, b.length);
    if (tsEnd === UNSURE || !at(b, tsEnd, TYPE)) return false;
    const typeEnd = scanString(b, tsEnd + TYPE.length, b.length);
    if (typeEnd === UNSURE || typeEnd !== b.length - 1 || b[typeEnd] !== 0x7d) return false;
    const hashAt = HEAD.length + 1;
    if (!lineHashIs(b, hashAt, payloadEnd + PREV.length + 1, payloadStart, payloadEnd, prevEnd)) {
      return false;
    }
    for (let k = 0; k < 64; k++) prev[k] = b[hashAt + k]!;
    return true;
  } catch {
    return false; // e.g. nesting deeper than the stack: the full check decides
  }
}

/**
 * The full check of one line (the definition): parse, re-serialize, compare, hash.
 *
 * @returns The line's hash when it verifies, else undefined.
 */
export function slowLine(bytes: Uint8Array, seq: number, prev: string): string | undefined {
  const line = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  const event = parseLine(line);
  if (!event || event.seq !== seq || event.prev !== prev) return undefined;
  let parts;
  try {
    parts = canonicalParts(event);
  } catch {
    return undefined; // e.g. a lone surrogate escaped in the line: no canonical form, so broken
  }
  if (parts.line !== line || event.hash !== chainHash(prev, parts.body)) return undefined;
  return event.hash;
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
