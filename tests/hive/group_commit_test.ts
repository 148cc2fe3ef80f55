/**
 * The group commit of run ends (lib/hive/group_commit.ts): a write alone is committed at once; the
 * writes that arrive while the log's flush is in flight are committed together, in one transaction,
 * each in a savepoint (a write that fails is undone alone), and answered durable after the next flush.
 * And `inTransaction` inside another is a savepoint of it.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import { commitGrouped } from "../../lib/hive/group_commit.ts";
import { type Hive, openHive } from "../../lib/hive/open.ts";
import { inTransaction } from "../../lib/sqlite/database.ts";
import { statement } from "../../lib/sqlite/statements.ts";
import { tempDir } from "../helpers/temp.ts";

/** A hive with a table of names of its own. */
function hiveWithNames(location: string): Hive {
  const db = openHive(location);
  db.exec("CREATE TABLE IF NOT EXISTS test_names (id TEXT PRIMARY KEY)");
  return db;
}

function names(db: Hive): string[] {
  return statement(db, "SELECT id FROM test_names ORDER BY id").all().map((r) => String(r.id));
}

function addName(db: Hive, id: string): void {
  statement(db, "INSERT INTO test_names (id) VALUES (?)").run(id);
}

Deno.test("writes that arrive during a flush are committed together, a failing one undone alone", async () => {
  await using tmp = await tempDir();
  const location = `${tmp.path}/hive.db`;
  const db = hiveWithNames(location);
  const inTx: boolean[] = [];
  const write = (id: string, fail = false) => (hive: Hive) => {
    inTx.push((hive as DatabaseSync).isTransaction);
    addName(hive, id);
    if (fail) throw new Error(`refused ${id}`);
  };
  const first = commitGrouped(write("a"), location);
  // Alone, the write is committed before the call returns; its flush is now in flight.
  assert.deepEqual(names(db), ["a"]);
  const later = [
    commitGrouped(write("b"), location),
    commitGrouped(write("c", true), location),
    commitGrouped(write("d"), location),
  ];
  assert.deepEqual(names(db), ["a"], "the later writes wait for the flush in flight");
  await first.written;
  await first.durable;
  await later[0]!.written;
  await assert.rejects(later[1]!.written, /refused c/);
  await later[2]!.written;
  await Promise.all(later.map((w) => w.durable));
  assert.deepEqual(names(db), ["a", "b", "d"], "the refused write is undone, the others hold");
  assert.deepEqual(inTx, [false, true, true, true], "the three later ones shared a transaction");
  assert.equal((db as DatabaseSync).isTransaction, false);
});

Deno.test("a group whose hive cannot be opened tells every write", async () => {
  await using tmp = await tempDir();
  await Deno.writeTextFile(`${tmp.path}/file`, "");
  // A hive location under a file: the folder cannot be made.
  const grouped = commitGrouped(() => {}, `${tmp.path}/file/hive.db`);
  await assert.rejects(grouped.written);
});

Deno.test("inTransaction inside another is a savepoint: its failure undoes only its own writes", async () => {
  await using tmp = await tempDir();
  const db = hiveWithNames(`${tmp.path}/hive.db`);
  inTransaction(db, () => {
    addName(db, "outer");
    assert.throws(() =>
      inTransaction(db, () => {
        addName(db, "inner");
        throw new Error("no");
      }), /no/);
    inTransaction(db, () => addName(db, "kept"));
  });
  assert.deepEqual(names(db), ["kept", "outer"]);
  assert.throws(() =>
    inTransaction(db, () => {
      inTransaction(db, () => addName(db, "nested"));
      throw new Error("outer fails");
    }), /outer fails/);
  assert.deepEqual(names(db), ["kept", "outer"], "the outer failure undoes the nested write too");
  assert.equal((db as DatabaseSync).isTransaction, false);
});
