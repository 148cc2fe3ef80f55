/**
 * Checkpoints off the event loop. In WAL mode SQLite copies the log back into the database file
 * (a checkpoint, with two fsyncs) on the connection whose commit pushes the log past
 * `wal_autocheckpoint` pages: in a server that is a request's own write, which then holds the event
 * loop for milliseconds. A long-running process instead runs a checkpointer: a worker thread with
 * its own connection checkpoints every few tens of milliseconds without waiting on anyone, and the
 * process's connection keeps a high `wal_autocheckpoint` only as a ceiling on the log's size (under
 * constant writes a background checkpoint never finds the log empty, so the log is restarted by the
 * ceiling's checkpoint). If the thread fails, the usual threshold comes back.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { Worker } from "node:worker_threads";

/** SQLite's own `wal_autocheckpoint`, in pages. */
export const DEFAULT_AUTOCHECKPOINT = 1000;
/** The ceiling while a checkpointer runs: about 40 MB of log at 4 KiB pages. */
export const CEILING_AUTOCHECKPOINT = 10_000;
const INTERVAL_MS = 50;

interface Running {
  worker: Worker;
  users: number;
}

const running = new Map<DatabaseSync, Running>();

/**
 * Starts (or joins) the checkpointer of a connection's database.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 *
 * const path = "./app.db";
 * const db = new DatabaseSync(path);
 * db.exec("PRAGMA journal_mode = WAL");
 * const stop = startCheckpointer(db, path);
 * // … serve …
 * await stop();
 * ```
 * @param db The process's connection (its `wal_autocheckpoint` is raised while the thread runs).
 * @param path The database file.
 * @returns Stops this user's share; the thread ends with the last one.
 */
export function startCheckpointer(db: DatabaseSync, path: string): () => Promise<void> {
  let entry = running.get(db);
  if (!entry) {
    const worker = new Worker(new URL("./checkpoint_worker.ts", import.meta.url), {
      workerData: { path, intervalMs: INTERVAL_MS },
    });
    worker.unref(); // never what keeps a process alive
    const fallBack = (why: string) => {
      if (running.get(db)?.worker !== worker) return;
      running.delete(db);
      restore(db);
      console.error(`warning: the checkpointer of ${path} stopped (${why}); checkpoints go inline`);
    };
    worker.on("error", (err: Error) => fallBack(err.message));
    worker.on("exit", (code: number) => fallBack(`exit code ${code}`));
    entry = { worker, users: 0 };
    running.set(db, entry);
    if (db.isOpen) db.exec(`PRAGMA wal_autocheckpoint = ${CEILING_AUTOCHECKPOINT}`);
  }
  const mine = entry;
  mine.users += 1;
  let stopped = false;
  return async () => {
    if (stopped) return;
    stopped = true;
    mine.users -= 1;
    if (mine.users > 0 || running.get(db) !== mine) return;
    running.delete(db);
    restore(db);
    await mine.worker.terminate();
  };
}

function restore(db: DatabaseSync): void {
  if (db.isOpen) db.exec(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
}
