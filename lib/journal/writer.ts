/**
 * Writing a journal: one JSONL file per run, created new, appended line by line, never rewritten.
 * Payloads are made plain JSON and redacted before they are hashed and written.
 *
 * @module
 */

import { dirname } from "node:path";
import { canonicalParts, chainHash, GENESIS_HASH, type JournalEvent } from "./event.ts";
import { wellFormedJson } from "../json_safety.ts";
import { makeRedactor, type RedactConfig } from "./redact.ts";

/** An open journal. */
export interface JournalWriter {
  /** The journal file. */
  path: string;
  /** Appends an event and returns it as written (redacted, hashed). */
  append(type: string, payload: Record<string, unknown>): JournalEvent;
  /** The hash of the last event (64 zeros when empty). */
  head(): string;
  /** How many events were written. */
  count(): number;
  /**
   * Flushes to disk (fdatasync, off the event loop, so other runs' work and their own flushes go on
   * meanwhile) and closes the file. Resolves once the journal is durable; calling it again returns
   * the same promise.
   */
  close(): Promise<void>;
}

/** A placeholder hash of the right length, replaced in the line once the real hash is known. */
const HASH_SLOT = "0".repeat(64);
/** Where the line goes on after `{"hash":"<64 hex>"`. */
const HASH_SLOT_PREFIX = `{"hash":"${HASH_SLOT}"`.length;

/** Makes a value plain JSON (drops undefined, turns Dates into strings, errors into messages). */
function plain(value: unknown): Record<string, unknown> {
  // Well-formed strings only: a lone surrogate (from a model or a tool) cannot be canonicalized.
  return wellFormedJson(JSON.parse(
    JSON.stringify(value, (_k, v) => (v instanceof Error ? { error: v.message } : v)) ?? "{}",
  ));
}

/**
 * Creates a new journal file (refusing an existing one) and returns its writer.
 *
 * @example
 * ```ts
 * const j = createJournal("/h/.framework/traces/run_01.jsonl", { patterns: ["sk-\\w+"] });
 * j.append("run_started", { input: "hi" });
 * j.close();
 * ```
 * @param path The file to create.
 * @param redact `logging.redact`.
 * @returns The writer.
 */
export function createJournal(path: string, redact?: RedactConfig): JournalWriter {
  Deno.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const file = Deno.openSync(path, { createNew: true, append: true, mode: 0o600 });
  const redactor = makeRedactor(redact);
  const encoder = new TextEncoder();
  let prev = GENESIS_HASH;
  let seq = 0;
  let closed = false;
  let closing: Promise<void> | undefined;
  return {
    path,
    append(type, payload) {
      if (closed) throw new Error(`journal ${path} is closed`);
      seq += 1;
      const body = {
        seq,
        ts: new Date().toISOString(),
        type,
        payload: redactor(plain(payload)) as Record<string, unknown>,
      };
      // The payload is canonicalized once: the hashed body and the line are built around it.
      const parts = canonicalParts({ ...body, prev, hash: HASH_SLOT });
      const hash = chainHash(prev, parts.body);
      const event: JournalEvent = { ...body, prev, hash };
      const bytes = encoder.encode(`{"hash":"${hash}"${parts.line.slice(HASH_SLOT_PREFIX)}\n`);
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
      prev = event.hash;
      return event;
    },
    head: () => prev,
    count: () => seq,
    close() {
      closed = true;
      // Every caller gets the same promise: it resolves when the journal is on disk.
      closing ??= file.syncData().finally(() => file.close());
      return closing;
    },
  };
}
