/**
 * No acknowledged run is lost when the control plane is killed (`kill -9`) under load: sixteen
 * clients post runs to the REAL control plane (journals and the hive flushed by group commit,
 * lib/fs/group_flush.ts), the process is killed at a random moment, and every run it had answered is
 * then found finished in the hive, with the status it was answered with, and its journal verifies to
 * the end with `run_finished` and as many events as the hive recorded. The same home is served again
 * after each kill, so a round also checks that the next server starts on what the killed one left.
 *
 * A kill ends the process, not the machine: what it proves is the order (a run is answered only
 * after its journal and its hive row were written and their flush returned), not the disk's cache.
 * It holds on both stores: a hive in SQLite (the run's end grouped with others' in one transaction
 * and one flush of the log, lib/hive/group_commit.ts) and in PostgreSQL (a throwaway cluster; its
 * commits are durable when they return). `FRAMEWORK_CRASH_ROUNDS=<n>` runs more rounds on each (the
 * issue's figure is 43; the default keeps the suite's time).
 *
 * @module
 */

import assert from "node:assert/strict";
import { closeHives, openHive } from "../../lib/hive/open.ts";
import { getRunAnyHarness } from "../../lib/hive/runs.ts";
import { parseJournal, verifyJournalFile } from "../../lib/journal/verify.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { type Store, storeHome, STORES } from "../helpers/hive_stores.ts";
import { tempDir } from "../helpers/temp.ts";

const ROUNDS = Number(Deno.env.get("FRAMEWORK_CRASH_ROUNDS") ?? 3);
const CLIENTS = 16;

/** A run the server answered: its id and the status it was answered with. */
interface Acknowledged {
  run_id: string;
  status: string;
}

/** Posts runs in a loop until the server stops answering; returns those it acknowledged. */
async function client(url: string, token: string, acked: Acknowledged[]): Promise<void> {
  for (;;) {
    let res: Response;
    try {
      res = await fetch(`${url}/run`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ input: "hello" }),
      });
    } catch {
      return; // the server is gone: nothing more was acknowledged
    }
    let doc: { ok: boolean; data?: { run_id?: string; status?: string } };
    try {
      doc = await res.json();
    } catch {
      return; // killed while answering: the answer never arrived whole
    }
    if (res.status === 200 && doc.ok && doc.data?.run_id && doc.data.status) {
      acked.push({ run_id: doc.data.run_id, status: doc.data.status });
    }
  }
}

for (const store of STORES) {
  Deno.test(`kill -9 under load loses no acknowledged run (${store})`, () => crashRounds(store));
}

async function crashRounds(store: Store): Promise<void> {
  await using home = await storeHome(store);
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "crash", {
    model: scripted([{ tool_calls: [{ name: "list_files", arguments: {} }] }, { text: "done" }]),
    tools: [{ builtin: "list_files" }],
    limits: { max_turns: 4 },
  });
  const { token } = await memberToken(dir, home.path, "crash", ["run"], ["run"]);
  let total = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const plane = await startControlPlane(dir, {
      home: home.path,
      env: home.env,
      args: ["--max-concurrent-runs", String(CLIENTS), "--max-queued-runs", String(CLIENTS)],
    });
    const acked: Acknowledged[] = [];
    const clients = Array.from({ length: CLIENTS }, () => client(plane.url, token, acked));
    // Kill it once runs are being answered, at a random moment after that.
    while (acked.length < 5) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, Math.random() * 400));
    Deno.kill(plane.pid, "SIGKILL");
    await Promise.all(clients);
    await plane.stop();
    assert.ok(acked.length >= 5, `round ${round}: runs were answered before the kill`);
    const db = openHive();
    for (const run of acked) {
      const row = getRunAnyHarness(db, run.run_id);
      assert.ok(row, `round ${round}: acknowledged ${run.run_id} is in the hive`);
      assert.equal(row.status, run.status, `round ${round}: ${run.run_id}'s status as answered`);
      assert.ok(row.ended_at, `round ${round}: ${run.run_id} is recorded as ended`);
      const integrity = await verifyJournalFile(row.trace_path);
      assert.ok(integrity.ok, `round ${round}: ${run.run_id}'s journal verifies`);
      assert.equal(integrity.checked, row.events, `round ${round}: every event the hive counted`);
      const events = parseJournal(await Deno.readFile(row.trace_path));
      assert.equal(events.at(-1)?.type, "run_finished", `round ${round}: ${run.run_id} finished`);
    }
    closeHives();
    total += acked.length;
  }
  assert.ok(total >= 5 * ROUNDS);
  console.log(`${store}: ${ROUNDS} kill -9 rounds, ${total} acknowledged runs found whole`);
}
