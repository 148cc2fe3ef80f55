/**
 * Writing a journal: one JSONL file per run, created new, appended line by line, never rewritten.
 * Payloads are made plain JSON and redacted before they are hashed and written.
 *
 * @module
 */

import { dirname } from "node:path";
import { canonicalPartsOf, chainHash, GENESIS_HASH, type JournalEvent } from "./event.ts";
import { journalPayload } from "./payload.ts";
import { compileRedaction, type RedactConfig } from "./redact.ts";
import { openSpare } from "./spare_files.ts";
import { flushPath } from "../fs/group_flush.ts";

/** An open journal. */
export interface JournalWriter {
  /** The journal file. */
  path: string;
  /** Appends an event and returns it as written (redacted, hashed). */
  append(type: string, payload: Record<string, unknown>): JournalEvent;
  /** Whether the copy of its lines (a PostgreSQL hive's) failed: the lines after it are the file's only. */
  copyFailed(): boolean;
  /** The hash of the last event (64 zeros when empty). */
  head(): string;
  /** How many events were written. */
  count(): number;
  /**
   * Flushes to disk (fdatasync, off the event loop, so other runs' work and their own flushes go on
   * meanwhile) and closes the file; the folder is flushed too, so that the journal's name survives
   * a power loss (shared with the journals closing at the same time: lib/fs/group_flush.ts).
   * Resolves once the journal is durable; calling it again returns the same promise.
   */
  close(): Promise<void>;
  /**
   * Closes and removes a journal whose run was never recorded (before its first line), so that no
   * journal is left without its run and the run can be launched again under the same name.
   */
  discard(): void;
}

/** At most this many lines wait for the hive's copy of a journal (lib/journal/hive_copy.ts). */
export const COPY_BATCH_LINES = 64;
/** A line waits at most this long (ms) for the hive's copy, so another host follows a live run. */
export const COPY_BATCH_MS = 25;

/** A placeholder hash of the right length, replaced in the line once the real hash is known. */
const HASH_SLOT = "0".repeat(64);
/** Where the line goes on after `{"hash":"<64 hex>"`. */
const HASH_SLOT_PREFIX = `{"hash":"${HASH_SLOT}"`.length;

/**
 * Creates the file, refusing an existing one: from a spare when a server keeps them, else directly,
 * its folder made only when missing (once).
 */
function openNew(path: string): Deno.FsFile {
  const spare = openSpare(path);
  if (spare) return spare;
  const options = { createNew: true, append: true, mode: 0o600 } as const;
  try {
    return Deno.openSync(path, options);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    Deno.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    return Deno.openSync(path, options);
  }
}

/**
 * Creates a new journal file (refusing an existing one) and returns its writer.
 *
 * @example
 * ```ts
 * const j = createJournal("/h/.framework/traces/run_01.jsonl", { patterns: ["sk-\\w+"] });
 * j.append("run_started", { input: "hi" });
 * await j.close();
 * ```
 * @param path The file to create.
 * @param redact `logging.redact`.
 * @param copy Called with lines (without their newlines, the first one's seq given) after the file
 *   has them: a PostgreSQL hive keeps a copy. Lines are handed over in batches — every
 *   {@link COPY_BATCH_LINES} lines, {@link COPY_BATCH_MS} after the first line of a batch, and at
 *   `close()` before the flush — so a run pays a round trip per batch, not per line. After its first
 *   failure (`copyFailed()`) the lines go to the file only; `append` never throws for it, so the run
 *   goes on to its end.
 * @returns The writer.
 */
export function createJournal(
  path: string,
  redact?: RedactConfig,
  copy?: (first: number, lines: string[]) => void,
): JournalWriter {
  const file = openNew(path);
  const redaction = compileRedaction(redact);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let prev = GENESIS_HASH;
  let seq = 0;
  let closed = false;
  let closing: Promise<void> | undefined;
  let copyError: unknown;
  let pending: string[] = [];
  let pendingFirst = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flushCopy = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (!copy || !pending.length) return;
    const lines = pending;
    pending = [];
    if (copyError !== undefined) return;
    try {
      copy(pendingFirst, lines);
    } catch (err) {
      // The file has the lines; the copy stops here (the caller copies the file again later and
      // reports the run as one that lost its hive).
      copyError = err;
    }
  };
  return {
    path,
    append(type, payload) {
      if (closed) throw new Error(`journal ${path} is closed`);
      const ts = new Date().toISOString();
      // The payload is made plain, repaired, redacted and canonicalized in one walk; the hashed body
      // and the line are built around its text. A payload that cannot be journaled (too deep, a
      // cycle) throws before the seq moves, so the chain has no gap.
      const { payload: journaled, json } = journalPayload(payload, redaction);
      seq += 1;
      const parts = canonicalPartsOf(json, { seq, ts, type, prev, hash: HASH_SLOT });
      const hash = chainHash(prev, parts.body);
      const event: JournalEvent = { seq, ts, type, payload: journaled, prev, hash };
      const bytes = encoder.encode(`{"hash":"${hash}"${parts.line.slice(HASH_SLOT_PREFIX)}\n`);
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
      prev = event.hash;
      if (copy && copyError === undefined) {
        if (!pending.length) {
          pendingFirst = seq;
          timer = setTimeout(flushCopy, COPY_BATCH_MS);
        }
        pending.push(decoder.decode(bytes.subarray(0, bytes.length - 1)));
        if (pending.length >= COPY_BATCH_LINES) flushCopy();
      }
      return event;
    },
    head: () => prev,
    copyFailed: () => copyError !== undefined,
    count: () => seq,
    close() {
      closed = true;
      flushCopy();
      // Every caller gets the same promise: it resolves when the journal and its name are on disk.
      closing ??= Promise.all([
        file.syncData().finally(() => file.close()),
        flushPath(dirname(path)),
      ]).then(() => {});
      return closing;
    },
    discard() {
      if (closed) return;
      closed = true;
      file.close();
      Deno.removeSync(path);
    },
  };
}
