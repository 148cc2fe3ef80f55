/**
 * The synchronous PostgreSQL bridge (lib/pg/connection.ts) never leaves a caller waiting without
 * bound, and never continues a transaction on a connection other than the one it began on: a server
 * that accepts and stays silent is refused after the connect timeout; after a connection killed
 * between statements the statements are answered again (npm `postgres` alone would leave them
 * waiting for ever); a statement without an answer
 * fails `hive_unavailable` after the answer timeout and the connection serves again by itself; a
 * transaction whose connection was killed fails its next statements and its commit though the
 * database is up (they would otherwise run, committed one by one, on the next connection) and
 * rolls back whole.
 *
 * @module
 */

import assert from "node:assert/strict";
import { openPostgres } from "../../lib/pg/connection.ts";
import { isHiveUnavailable } from "../../lib/errors.ts";
import { inTransaction } from "../../lib/sqlite/database.ts";
import { startTestCluster } from "../helpers/postgres.ts";

async function waitFor<T>(what: string, fn: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `fn`'s answer, or undefined while the database is out of reach. */
function unlessUnavailable<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch (err) {
    if (isHiveUnavailable(err)) return void console.log((err as Error).message);
    throw err;
  }
}

Deno.test("a server that accepts and never answers: refused as unavailable, not waited on", async () => {
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of silent) held.push(conn);
  })();
  try {
    const port = (silent.addr as Deno.NetAddr).port;
    assert.throws(
      () => openPostgres(`postgres://app:pw@127.0.0.1:${port}/hive`, { connectTimeoutS: 1 }),
      (err) => isHiveUnavailable(err) && /CONNECT_TIMEOUT|timeout/i.test((err as Error).message),
    );
  } finally {
    silent.close();
    for (const c of held) c.close();
    await accepting.catch(() => {});
  }
});

Deno.test("PostgreSQL bridge: bounded waits and transactions that never outlive their connection", async (t) => {
  await using pg = await startTestCluster();
  const url = await pg.createDatabase();
  const db = openPostgres(url, { answerTimeoutMs: 500 });
  const admin = openPostgres(url);
  const pidOf = () => (db.prepare("SELECT pg_backend_pid() AS pid").get() as { pid: number }).pid;
  /** Ends `db`'s backend, from the other connection, and waits until it is gone. */
  const kill = async (pid: number) => {
    admin.prepare("SELECT pg_terminate_backend(?)").get(pid);
    const alive = admin.prepare("SELECT count(*) AS n FROM pg_stat_activity WHERE pid = ?");
    await waitFor(
      `backend ${pid} gone`,
      () => (alive.get(pid) as { n: number }).n === 0 || undefined,
    );
  };
  const answered = <T>(fn: () => T) => waitFor("the connection back", () => unlessUnavailable(fn));
  try {
    db.exec("CREATE TABLE t (v TEXT)");

    await t.step(
      "a connection killed between statements: the statements after are answered",
      async () => {
        // Not waiting for the backend to go: the next statement meets the connection as it dies.
        admin.prepare("SELECT pg_terminate_backend(?)").get(pidOf());
        // Written to the dying connection (refused) or to a new one (answered): either, not a hang.
        const first = unlessUnavailable(() => db.prepare("SELECT 1 AS one").get());
        assert.ok(first === undefined || (first as { one: number }).one === 1);
        assert.deepEqual(await answered(() => db.prepare("SELECT 2 AS two").get()), { two: 2 });
        assert.deepEqual(db.prepare("SELECT 3 AS three").get(), { three: 3 });
      },
    );

    await t.step(
      "a statement with no answer fails hive_unavailable; the connection serves again",
      async () => {
        assert.throws(
          () => db.query("SELECT pg_sleep(20)"),
          (err) => isHiveUnavailable(err) && /no answer in 0\.5 s/.test((err as Error).message),
        );
        assert.deepEqual(await answered(() => db.prepare("SELECT 1 AS one").get()), { one: 1 });
        // The statement given up on was cancelled on the server, not left running.
        const sleeping = admin.prepare(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(20)' AND state = 'active'",
        );
        await waitFor(
          "the abandoned statement ended",
          () => (sleeping.get() as { n: number }).n === 0 || undefined,
        );
      },
    );

    await t.step(
      "a transaction whose connection is killed is never continued on a new one",
      async () => {
        const pid = pidOf();
        db.exec("BEGIN IMMEDIATE");
        db.prepare("INSERT INTO t (v) VALUES (?)").run("before");
        await kill(pid);
        // The database is up; the transaction's connection is not: its statements and commit fail.
        assert.throws(
          () => db.prepare("INSERT INTO t (v) VALUES (?)").run("after"),
          isHiveUnavailable,
        );
        assert.throws(() => db.exec("COMMIT"), isHiveUnavailable);
        assert.deepEqual(await answered(() => db.prepare("SELECT v FROM t").all()), []);
      },
    );

    await t.step("a transaction that lost its connection rolls back whole", async () => {
      const pid = pidOf();
      assert.throws(
        () =>
          inTransaction(db, () => {
            db.prepare("INSERT INTO t (v) VALUES (?)").run("before");
            admin.prepare("SELECT pg_terminate_backend(?)").get(pid);
            db.prepare("INSERT INTO t (v) VALUES (?)").run("after");
          }),
        isHiveUnavailable,
      );
      assert.deepEqual(await answered(() => db.prepare("SELECT v FROM t").all()), []);
      // And the next transaction is whole.
      inTransaction(db, () => db.prepare("INSERT INTO t (v) VALUES (?)").run("next"));
      assert.deepEqual(db.prepare("SELECT v FROM t").all(), [{ v: "next" }]);
    });
  } finally {
    db.close();
    admin.close();
  }
});
