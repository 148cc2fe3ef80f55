/**
 * Spare journal files: empty files made ahead of time, off the event loop, in a `.spare` folder
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

/** The folder, inside the trace folder, that holds the spares. */
export const SPARE_FOLDER = ".spare";
/**
 * How many spares each trace folder keeps: enough for the runs that start while a refill is under
 * way at hundreds of runs a second (a journal created on the event loop, when they run out, costs
 * the loop up to a millisecond on the file systems that need spares).
 */
export const SPARES_PER_FOLDER = 16;
/** How many spares a refill creates at once (each on a thread of the pool). */
const FILL_AT_ONCE = 4;
/**
 * How many trace folders keep spares at once, the most recently used: a workbench writes journals
 * into many folders over its life (a copy per measured version, deleted later), and each kept
 * folder holds open files.
 */
const MAX_FOLDERS = 8;
/** A spare older than this is left over by a process that is gone, and is removed. */
const STALE_MS = 60 * 60 * 1000;

interface Spare {
  name: string;
  file: Deno.FsFile;
}

interface Folder {
  spares: Spare[];
  filling?: Promise<void>;
  /** Spares cannot be made here (no permission, no hard links): journals are created directly. */
  off: boolean;
  /** The `.spare` folder is known to exist and was swept. */
  ready: boolean;
}

let users = 0;
const folders = new Map<string, Folder>();
/** Fills in flight (of folders kept or dropped), awaited when the last user stops. */
const fills = new Set<Promise<void>>();
/** Removals of linked spares' old names, awaited when the last user stops. */
const removals = new Set<Promise<void>>();

/**
 * Keeps spare journal files in each trace folder this process writes journals to, until the
 * returned function is called (by every caller that started it; the spares are removed with the
 * last one).
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
  let stopped = false;
  return async () => {
    if (stopped) return;
    stopped = true;
    users -= 1;
    if (users > 0) return;
    for (const [dir, folder] of folders) drop(dir, folder);
    // A fill in flight sees its folder gone and removes what it made.
    await Promise.allSettled([...fills, ...removals]);
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
  if (users === 0) return undefined;
  const dir = dirname(path);
  let folder = folders.get(dir);
  if (folder) folders.delete(dir); // re-added last: the map is in order of use
  else folder = { spares: [], off: false, ready: false };
  folders.set(dir, folder);
  for (const [oldest, old] of folders) {
    if (folders.size <= MAX_FOLDERS) break;
    drop(oldest, old);
  }
  if (folder.off) return undefined;
  const spare = folder.spares.shift();
  const file = spare && link(spare, path, dir, folder);
  if (folders.get(dir) === folder) refill(dir, folder);
  return file;
}

/** Links a spare under `path` and returns its file, or drops it and returns `undefined`. */
function link(spare: Spare, path: string, dir: string, folder: Folder): Deno.FsFile | undefined {
  try {
    Deno.linkSync(spare.name, path);
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) {
      folder.spares.unshift(spare);
      throw err;
    }
    discard(spare);
    // NotFound: the spare was removed by someone else, or the trace folder is gone (the direct
    // create makes it again): the folder starts over at its next journal. Anything else: this file
    // system does not link; stop trying.
    if (err instanceof Deno.errors.NotFound) drop(dir, folder);
    else folder.off = true;
    return undefined;
  }
  // The spare's own name is removed off the event loop; the journal's name keeps the file.
  const removal = Deno.remove(spare.name).catch(() => {}).finally(() => removals.delete(removal));
  removals.add(removal);
  return spare.file;
}

/** Resolves when every fill in flight has ended (for tests). */
export async function spareFillsSettled(): Promise<void> {
  await Promise.allSettled([...fills]);
}

function refill(dir: string, folder: Folder): void {
  if (folder.filling || folder.off) return;
  const filling = fill(dir, folder).finally(() => {
    folder.filling = undefined;
    fills.delete(filling);
  });
  folder.filling = filling;
  fills.add(filling);
}

/**
 * Makes spares until the folder has {@link SPARES_PER_FOLDER}, {@link FILL_AT_ONCE} creates at a
 * time on the thread pool.
 */
async function fill(dir: string, folder: Folder): Promise<void> {
  const spareDir = join(dir, SPARE_FOLDER);
  const current = () => folders.get(dir) === folder;
  // Begins after the caller's own journal is created (synchronously, in this task), which makes
  // the trace folder when it is new.
  await Promise.resolve();
  try {
    if (!folder.ready) {
      // Never made recursively: a trace folder removed meanwhile is not brought back.
      await Deno.mkdir(spareDir, { mode: 0o700 }).catch((err) => {
        if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
      });
      // Only a real folder: a link placed there could lead the spares (and their removal) away.
      if (!(await Deno.lstat(spareDir)).isDirectory) {
        folder.off = true;
        return;
      }
      await sweep(spareDir);
      folder.ready = true;
    }
    while (current() && folder.spares.length < SPARES_PER_FOLDER) {
      const count = Math.min(FILL_AT_ONCE, SPARES_PER_FOLDER - folder.spares.length);
      const made = await Promise.allSettled(
        Array.from({ length: count }, async () => {
          const name = join(spareDir, crypto.randomUUID());
          const file = await Deno.open(name, { createNew: true, append: true, mode: 0o600 });
          return { name, file };
        }),
      );
      for (const one of made) {
        if (one.status === "fulfilled") {
          if (current()) folder.spares.push(one.value);
          else discard(one.value);
        }
      }
      const failed = made.find((one) => one.status === "rejected");
      if (failed) throw failed.reason;
    }
  } catch (err) {
    // The trace folder is gone: the folder starts over at its next journal.
    if (err instanceof Deno.errors.NotFound) drop(dir, folder);
    else folder.off = true;
  }
}

/** Forgets a folder and removes its spares (a fill in flight removes what it still makes). */
function drop(dir: string, folder: Folder): void {
  if (folders.get(dir) === folder) folders.delete(dir);
  for (const spare of folder.spares.splice(0)) discard(spare);
}

/** Removes spares left over by processes that are gone (older than {@link STALE_MS}). */
async function sweep(spareDir: string): Promise<void> {
  const now = Date.now();
  for await (const entry of Deno.readDir(spareDir)) {
    if (!entry.isFile) continue;
    const name = join(spareDir, entry.name);
    const info = await Deno.lstat(name).catch(() => undefined);
    if (info?.mtime && now - info.mtime.getTime() > STALE_MS) {
      await Deno.remove(name).catch(() => {});
    }
  }
}

function discard(spare: Spare): void {
  try {
    spare.file.close();
  } catch { /* already closed */ }
  try {
    Deno.removeSync(spare.name);
  } catch { /* already gone */ }
}
