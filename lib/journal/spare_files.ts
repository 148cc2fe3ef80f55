/**
 * Spare journal files: empty files made ahead of time, off the event loop (by a thread of their own,
 * spare_worker.ts, which also removes the names of the spares taken), in a `.spare` folder
 * inside the trace folder, so that starting a run links one under the journal's name instead of
 * creating a file. Creating a file allocates an inode, and on some file systems that is slow: on
 * ext4 without a journal, every new file skips each inode freed in the last minutes, so a create
 * takes up to a millisecond after many files were deleted, while a hard link takes microseconds.
 *
 * A long-running process (a server) keeps spares while it serves ({@link keepSpareJournals});
 * a one-shot command does not, and its journals are created directly. A link refuses an existing
 * name as the direct create does; a spare that can no longer be linked (removed by someone else,
 * or on a file system without hard links) is dropped and the journal is created directly.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { Worker } from "node:worker_threads";

/** The folder, inside the trace folder, that holds the spares. */
export const SPARE_FOLDER = ".spare";
/**
 * How many spares each trace folder keeps: enough for the runs that start together while a refill
 * is under way (at 64 connections, a group commit answers dozens of runs at once and their clients
 * start as many again; a journal created on the event loop, when spares run out, costs the loop up
 * to a millisecond on the file systems that need spares). They are empty files, none held open.
 */
export const SPARES_PER_FOLDER = 64;
/**
 * How many trace folders keep spares at once, the most recently used: a workbench writes journals
 * into many folders over its life (a copy per measured version, deleted later).
 */
const MAX_FOLDERS = 8;

/** What the event loop asks the spares' thread (spare_worker.ts). */
export type SpareRequest =
  | { kind: "fill"; id: number; spareDir: string; count: number }
  | { kind: "remove"; names: string[] };

/** The thread's answer to one request. */
export type SpareAnswer =
  | { kind: "made"; id: number; names: string[]; outcome: "ok" | "gone" | "off" }
  | { kind: "removed" };

interface Folder {
  /** The spares ready, by name. */
  spares: string[];
  /** The fill in flight, by its request's id. */
  filling?: number;
  /** Spares cannot be made here (no permission, no hard links): journals are created directly. */
  off: boolean;
}

let users = 0;
let thread: Worker | undefined;
const folders = new Map<string, Folder>();
/** Fills in flight: their folder, to find it again when the answer comes. */
const fills = new Map<number, { dir: string; folder: Folder }>();
let lastFill = 0;
/** Requests the thread has not answered yet, and who waits for none to be left. */
let unanswered = 0;
const settled: (() => void)[] = [];
/**
 * Names of spares taken, to be removed: sent together, {@link REMOVE_AT_ONCE} at a time or
 * {@link REMOVE_AFTER_MS} after the first (a message to the thread costs the loop about as much as
 * the removal it saves, so one carries many).
 */
let taken: string[] = [];
let takenTimer: ReturnType<typeof setTimeout> | undefined;
const REMOVE_AT_ONCE = 32;
const REMOVE_AFTER_MS = 100;
/** A folder asks for more spares when it has this many or fewer left (and is then filled up). */
const REFILL_AT = SPARES_PER_FOLDER / 2;

function ask(request: SpareRequest): void {
  if (!thread) return;
  // The thread keeps the process alive only while it owes an answer.
  if (unanswered++ === 0) thread.ref();
  thread.postMessage(request);
}

function answered(answer: SpareAnswer): void {
  if (answer.kind === "made") {
    const fill = fills.get(answer.id);
    fills.delete(answer.id);
    const current = fill !== undefined && folders.get(fill.dir) === fill.folder;
    if (fill) fill.folder.filling = undefined;
    if (current && answer.outcome === "ok") fill.folder.spares.push(...answer.names);
    else {
      // Made for a folder dropped meanwhile, or stopped short: its spares go.
      removeLater(answer.names);
      if (current && answer.outcome === "gone") drop(fill.dir, fill.folder);
      if (current && answer.outcome === "off") fill.folder.off = true;
    }
  }
  unanswered -= 1;
  if (unanswered === 0) { for (const done of settled.splice(0)) done(); }
}

/** Starts the thread, or notes that there is none (journals are then created directly). */
function startThread(): void {
  const worker = new Worker(new URL("./spare_worker.ts", import.meta.url));
  worker.unref(); // never what keeps a process alive
  worker.on("message", answered);
  const lost = () => {
    if (thread !== worker) return;
    thread = undefined;
    for (const [dir, folder] of folders) drop(dir, folder);
    fills.clear();
    unanswered = 0;
    for (const done of settled.splice(0)) done();
  };
  worker.on("error", (err: Error) => {
    console.error(
      `warning: the spare journals' thread stopped (${err.message}); journals are created directly`,
    );
    lost();
  });
  worker.on("exit", lost);
  thread = worker;
}

/**
 * Keeps spare journals while the returned function is not called (by every caller that started it;
 * the spares are removed with the last one).
 *
 * @example
 * ```ts
 * const stop = keepSpareJournals();
 * // … serve runs: createJournal takes a spare when one is ready …
 * await stop();
 * ```
 * @returns Stops this caller's share; resolves once no spare is left behind.
 */
export function keepSpareJournals(): () => Promise<void> {
  users += 1;
  if (!thread) startThread();
  let stopped = false;
  return async () => {
    if (stopped) return;
    stopped = true;
    users -= 1;
    if (users > 0) return;
    for (const [dir, folder] of folders) drop(dir, folder);
    sendTaken();
    // A fill in flight answers for a folder gone, and what it made is removed.
    await spareFillsSettled();
    if (users > 0 || !thread) return;
    const worker = thread;
    thread = undefined;
    await worker.terminate();
  };
}

/**
 * Opens a new journal file at `path` from a spare of its folder.
 *
 * @param path The journal to create.
 * @returns The file, open for appending; `undefined` when no spare is ready (create it directly).
 * @throws `Deno.errors.AlreadyExists` when `path` exists (the spare is kept).
 */
export function openSpare(path: string): Deno.FsFile | undefined {
  if (users === 0 || !thread) return undefined;
  const dir = dirname(path);
  let folder = folders.get(dir);
  if (folder) folders.delete(dir); // re-added last: the map is in order of use
  else folder = { spares: [], off: false };
  folders.set(dir, folder);
  for (const [oldest, old] of folders) {
    if (folders.size <= MAX_FOLDERS) break;
    drop(oldest, old);
  }
  if (folder.off) return undefined;
  const spare = folder.spares.shift();
  const file = spare === undefined ? undefined : link(spare, path, dir, folder);
  if (folders.get(dir) === folder) refill(dir, folder);
  return file;
}

/** Links a spare under `path` and opens it, or drops it and returns `undefined`. */
function link(spare: string, path: string, dir: string, folder: Folder): Deno.FsFile | undefined {
  try {
    Deno.linkSync(spare, path);
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) {
      folder.spares.unshift(spare);
      throw err;
    }
    removeLater([spare]);
    // NotFound: the spare was removed by someone else, or the trace folder is gone (the direct
    // create makes it again): the folder starts over at its next journal. Anything else: this file
    // system does not link; stop trying.
    if (err instanceof Deno.errors.NotFound) drop(dir, folder);
    else folder.off = true;
    return undefined;
  }
  // The spare's own name is removed by the thread; the journal's name keeps the file.
  removeLater([spare]);
  return Deno.openSync(path, { append: true });
}

/** Resolves when the thread has answered every request made so far (fills and removals). */
export function spareFillsSettled(): Promise<void> {
  sendTaken();
  if (unanswered === 0) return Promise.resolve();
  return new Promise((done) => settled.push(done));
}

/** Asks for the folder's missing spares, after the current task (which may be making the folder). */
function refill(dir: string, folder: Folder): void {
  if (folder.filling !== undefined || folder.off || !thread) return;
  if (folder.spares.length > REFILL_AT) return;
  const id = ++lastFill;
  folder.filling = id;
  fills.set(id, { dir, folder });
  queueMicrotask(() => {
    if (folders.get(dir) !== folder || folder.off) {
      fills.delete(id);
      folder.filling = undefined;
      return;
    }
    const count = SPARES_PER_FOLDER - folder.spares.length;
    if (count > 0) ask({ kind: "fill", id, spareDir: join(dir, SPARE_FOLDER), count });
    else {
      fills.delete(id);
      folder.filling = undefined;
    }
  });
}

/** Forgets a folder and removes its spares (a fill in flight removes what it makes). */
function drop(dir: string, folder: Folder): void {
  if (folders.get(dir) === folder) folders.delete(dir);
  removeLater(folder.spares.splice(0));
}

/** Removes spares' names by the thread, together with the others taken in the same task. */
function removeLater(names: string[]): void {
  if (!names.length) return;
  if (!thread) {
    for (const name of names) {
      try {
        Deno.removeSync(name);
      } catch { /* already gone */ }
    }
    return;
  }
  taken.push(...names);
  if (taken.length >= REMOVE_AT_ONCE) sendTaken();
  else if (takenTimer === undefined) {
    const timer = setTimeout(sendTaken, REMOVE_AFTER_MS);
    Deno.unrefTimer(timer);
    takenTimer = timer;
  }
}

function sendTaken(): void {
  if (takenTimer !== undefined) clearTimeout(takenTimer);
  takenTimer = undefined;
  if (!taken.length) return;
  const names = taken;
  taken = [];
  ask({ kind: "remove", names });
}
