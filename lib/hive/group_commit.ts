/**
 * Group commit of the hive's run-end writes: runs that end together share one transaction and one
 * flush of the write-ahead log. A write is committed at once when no flush of the log is in flight
 * (a run alone waits for nothing more than before); while one is, the writes that arrive wait for it
 * to end and are then committed together, each in a savepoint of its own (a write that fails is
 * undone alone and its caller told), and flushed by the next flush. Pages every run's end touches
 * (the runs' indexes, the statistics the triggers keep) are then written to the log once per group,
 * not once per run (docs/performance.md, Group commit).
 *
 * A PostgreSQL hive commits each write on its own: its commits are durable when they return, and a
 * shared transaction would cost it more round trips, not fewer.
 *
 * @module
 */

import { inTransaction } from "../sqlite/database.ts";
import { hiveDurable } from "./durable.ts";
import { type Hive, hiveLocation, isPgHive, openHive } from "./open.ts";

/** A write's two moments: committed (or refused), then durable. */
export interface GroupedWrite {
  /** Settles once the write is committed; rejects with the write's own error. */
  written: Promise<void>;
  /** Settles once the write is on disk (after `written`, even when the write was refused). */
  durable: Promise<void>;
}

/** A write waiting for its group. */
interface Pending {
  write: (db: Hive) => void;
  written: PromiseWithResolvers<void>;
  durable: PromiseWithResolvers<void>;
}

/** One hive's group: the writes waiting, and whether a flush of its log is in flight. */
interface Group {
  waiting: Pending[];
  flushing: boolean;
}

const groups = new Map<string, Group>();

/** Promises whose rejection their callers may leave unobserved (the other one carries it). */
function quiet(): PromiseWithResolvers<void> {
  const settle = Promise.withResolvers<void>();
  settle.promise.catch(() => {});
  return settle;
}

/**
 * Commits `write` with the other writes of its group, and makes it durable with them.
 *
 * @example
 * ```ts
 * import { statement } from "../sqlite/statements.ts";
 *
 * const { written, durable } = commitGrouped((db) =>
 *   statement(db, "UPDATE runs SET status = 'success' WHERE run_id = ?").run("run_01…")
 * );
 * await written; // the row is in the hive (or the write's error is thrown here)
 * await durable; // and on disk
 * ```
 * @param write The write (it may open a transaction of its own: it becomes a savepoint).
 * @param location The hive (default: this process's).
 * @returns When the write is committed, and when it is durable.
 */
export function commitGrouped(
  write: (db: Hive) => void,
  location: string = hiveLocation(),
): GroupedWrite {
  const pending: Pending = { write, written: quiet(), durable: quiet() };
  let group = groups.get(location);
  if (!group) groups.set(location, group = { waiting: [], flushing: false });
  group.waiting.push(pending);
  if (!group.flushing) commitAndFlush(location, group);
  return { written: pending.written.promise, durable: pending.durable.promise };
}

/** Commits the waiting writes (synchronously), then flushes the log; repeats while writes arrive. */
function commitAndFlush(location: string, group: Group): void {
  const batch = group.waiting.splice(0);
  commitBatch(location, batch);
  group.flushing = true;
  hiveDurable(location).then(
    () => batch.forEach((p) => p.durable.resolve()),
    (err) => batch.forEach((p) => p.durable.reject(err)),
  ).finally(() => {
    group.flushing = false;
    if (group.waiting.length) commitAndFlush(location, group);
    else if (groups.get(location) === group) groups.delete(location);
  });
}

/** Runs each write (in one transaction when there are several); settles each one's `written`. */
function commitBatch(location: string, batch: Pending[]): void {
  let db: Hive;
  try {
    db = openHive(location);
  } catch (err) {
    for (const p of batch) p.written.reject(err);
    return;
  }
  if (batch.length === 1 || isPgHive(db)) {
    for (const p of batch) {
      try {
        p.write(db);
        p.written.resolve();
      } catch (err) {
        p.written.reject(err);
      }
    }
    return;
  }
  // Each write's outcome is told once the transaction holding it is committed.
  const refused = new Map<Pending, unknown>();
  try {
    inTransaction(db, () => {
      for (const p of batch) {
        try {
          inTransaction(db, () => p.write(db));
        } catch (err) {
          refused.set(p, err);
        }
      }
    });
  } catch (err) {
    // The transaction itself failed (its start or its commit): no write of it holds.
    for (const p of batch) p.written.reject(err);
    return;
  }
  for (const p of batch) {
    if (refused.has(p)) p.written.reject(refused.get(p));
    else p.written.resolve();
  }
}
