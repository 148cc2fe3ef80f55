import assert from "node:assert/strict";
import { openDatabase } from "../../lib/sqlite/database.ts";
import {
  CEILING_AUTOCHECKPOINT,
  DEFAULT_AUTOCHECKPOINT,
  startCheckpointer,
} from "../../lib/sqlite/checkpointer.ts";
import { tempDir } from "../helpers/temp.ts";

const threshold = (db: ReturnType<typeof openDatabase>) =>
  (db.prepare("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number })
    .wal_autocheckpoint;

/**
 * Waits until `done` holds, polling: no deadline of its own, since the thread may start late on a
 * loaded machine (the test suite runs in parallel beside other work). It gives up only when
 * `hopeless` says the event can no longer come, and then says so.
 */
async function until(done: () => boolean, hopeless: () => string | undefined): Promise<void> {
  while (!done()) {
    const why = hopeless();
    if (why) throw new Error(why);
    await new Promise((r) => setTimeout(r, 20));
  }
}

Deno.test("checkpointer: a thread copies the log into the database file, off the writer's connection", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/t.db`;
  const db = openDatabase(path, ["CREATE TABLE t (x BLOB)"]);
  try {
    const stop = startCheckpointer(db, path);
    try {
      assert.equal(threshold(db), CEILING_AUTOCHECKPOINT, "the connection only keeps a ceiling");
      const before = Deno.statSync(path).size;
      const insert = db.prepare("INSERT INTO t VALUES (randomblob(2000))");
      for (let i = 0; i < 500; i++) insert.run(); // ~250 pages: under the ceiling, no inline checkpoint
      // The writer is done; only the thread can move the pages into the database file now.
      await until(
        () => Deno.statSync(path).size > before + 500 * 2000,
        () =>
          threshold(db) === CEILING_AUTOCHECKPOINT
            ? undefined
            : "the checkpointer's thread stopped before it copied the pages",
      );
    } finally {
      await stop();
    }
    assert.equal(threshold(db), DEFAULT_AUTOCHECKPOINT, "stopped: checkpoints go inline again");
  } finally {
    db.close();
  }
});

Deno.test("checkpointer: shared by its users, ended by the last one", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/t.db`;
  const db = openDatabase(path, ["CREATE TABLE t (x)"]);
  try {
    const first = startCheckpointer(db, path);
    const second = startCheckpointer(db, path);
    await first();
    await first(); // a second call of the same stop changes nothing
    assert.equal(threshold(db), CEILING_AUTOCHECKPOINT, "still one user");
    await second();
    assert.equal(threshold(db), DEFAULT_AUTOCHECKPOINT);
  } finally {
    db.close();
  }
});

Deno.test("checkpointer: never what keeps a process alive", async () => {
  await using tmp = await tempDir();
  const script = `
    import { openDatabase } from ${
    JSON.stringify(new URL("../../lib/sqlite/database.ts", import.meta.url).href)
  };
    import { startCheckpointer } from ${
    JSON.stringify(new URL("../../lib/sqlite/checkpointer.ts", import.meta.url).href)
  };
    const path = ${JSON.stringify(`${tmp.path}/t.db`)};
    startCheckpointer(openDatabase(path, ["CREATE TABLE t (x)"]), path);
    console.log("started");`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", script],
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000),
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(new TextDecoder().decode(out.stdout).trim(), "started");
});
