/**
 * Paging a journal: one streamed pass over the file finds where each line starts and checks the whole
 * hash chain; then any range of events is read by seeking to its bytes, without parsing the rest. The
 * pass is remembered while the file is unchanged (same inode, size and modification time), so a long
 * trace is verified once and then paged for the cost of its pages. A journal that grows (a live run)
 * or is changed by anyone is indexed and verified again whole on its next read: the integrity verdict
 * is always the whole file's.
 *
 * @module
 */

import type { JournalEvent } from "./event.ts";
import { eachByteLine } from "../lines.ts";
import { keepRecent } from "../recent.ts";
import { chainVerifier, type Integrity, parseJournal } from "./verify.ts";

/** A journal's line positions and its whole-file integrity. */
export interface JournalIndex {
  /** The hash chain of the whole file. */
  integrity: Integrity;
  /** Complete lines (a torn last line is not counted). */
  lines: number;
  /** Byte offset where each line starts, plus the end of the last complete line. */
  starts: number[];
  /** The file's size when indexed (beyond the last complete line: a torn line). */
  size: number;
}

interface Cached {
  identity: string;
  index: JournalIndex;
}

const CACHE_SIZE = 32;
const cache = new Map<string, Cached>();

/**
 * Indexes and verifies a journal file, or returns the remembered pass while the file is unchanged.
 *
 * @example
 * ```ts
 * const { integrity, lines } = await indexJournal(".framework/traces/run_01J….jsonl");
 * ```
 * @param path The journal file.
 * @returns The index.
 * @throws Deno.errors.NotFound when the file is missing.
 */
export async function indexJournal(path: string): Promise<JournalIndex> {
  const info = await Deno.stat(path);
  const identity = `${info.ino}:${info.size}:${info.mtime?.getTime()}:${info.ctime?.getTime()}`;
  const hit = cache.get(path);
  if (hit && hit.identity === identity) {
    keepRecent(cache, path, hit, CACHE_SIZE); // most recently used last
    return hit.index;
  }
  const scannedAt = Date.now();
  const index = await scan(path);
  cache.delete(path);
  // File times have millisecond resolution here: a file changed within the same instant as it was
  // read could keep its identity, so a pass is remembered only for a file left alone a while.
  const settled = Math.max(info.mtime?.getTime() ?? Infinity, info.ctime?.getTime() ?? Infinity) <
    scannedAt - SETTLED_MS;
  if (settled) {
    keepRecent(cache, path, { identity, index }, CACHE_SIZE);
  }
  return index;
}

/** How long a file must have been left unchanged for its pass to be remembered. */
const SETTLED_MS = 1000;

/** One streamed pass: line starts for every complete line, the chain checked up to its first break. */
async function scan(path: string): Promise<JournalIndex> {
  using file = await Deno.open(path, { read: true });
  const chain = chainVerifier();
  let broken = false;
  const starts: number[] = [0];
  let size = 0;
  await eachByteLine(file, (bytes, end, complete) => {
    size = end;
    if (!complete) broken = true; // a torn last line: not counted, and the chain is broken there
    else {
      if (!broken && !chain.line(bytes)) broken = true;
      starts.push(end);
    }
  });
  const integrity: Integrity = broken
    ? { ok: false, checked: chain.checked, broken_at: chain.checked + 1 }
    : { ok: true, checked: chain.checked, broken_at: null };
  return { integrity, lines: starts.length - 1, starts, size };
}

/**
 * Reads the events of lines `from` to `from + limit - 1` (1-based; for an intact journal, the events
 * with those seqs), parsing only those lines. Lines that do not parse are skipped, as in a whole read.
 *
 * @param path The journal file.
 * @param index Its index (from {@link indexJournal}).
 * @param from The first line, 1-based.
 * @param limit At most this many lines.
 * @returns The events.
 */
export async function readEventRange(
  path: string,
  index: JournalIndex,
  from: number,
  limit: number,
): Promise<JournalEvent[]> {
  const first = Math.max(1, from);
  const last = Math.min(index.lines, first + limit - 1);
  if (last < first) return [];
  const begin = index.starts[first - 1]!;
  // The last page also takes a torn last line, shown when it parses (as a whole read would).
  const end = last === index.lines ? index.size : index.starts[last]!;
  using file = await Deno.open(path, { read: true });
  await file.seek(begin, Deno.SeekMode.Start);
  const bytes = new Uint8Array(end - begin);
  let got = 0;
  while (got < bytes.length) {
    const n = await file.read(bytes.subarray(got));
    if (n === null) break; // the file shrank since it was indexed: what is there
    got += n;
  }
  return parseJournal(bytes.subarray(0, got));
}
