/**
 * The checkpointer's thread (see checkpointer.ts): its own connection copies the WAL's pages into the
 * database file every `intervalMs`, in `PASSIVE` mode, which never waits for readers or writers. A
 * round that finds the database busy leaves the pages for the next one.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { workerData } from "node:worker_threads";

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const db = new DatabaseSync(path, { timeout: 0 });
const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
setInterval(() => {
  try {
    checkpoint.get();
  } catch {
    // busy, or the file is being replaced: the next round tries again
  }
}, intervalMs);
