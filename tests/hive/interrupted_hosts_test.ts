/**
 * Processes on several hosts share one hive: a process opening it marks interrupted only the runs
 * of its own host whose owner is gone. A run owned by a process "on another host" (its pid means
 * nothing here) is left alone, and a thread it holds stays busy; a dead owner of this host, an owner
 * of this host's earlier boot and an owner written before hosts were named (this host's) are judged
 * as before. On both stores.
 *
 * @module
 */

import assert from "node:assert/strict";
import { closeHives, openHive } from "../../lib/hive/open.ts";
import { getRunAnyHarness, insertRun } from "../../lib/hive/runs.ts";
import { createThread, lockThread } from "../../lib/hive/threads.ts";
import { ownProcess } from "../../lib/process_identity.ts";
import { statement } from "../../lib/sqlite/statements.ts";
import { runCli } from "../helpers/cli.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { storeHome, STORES } from "../helpers/hive_stores.ts";
import { tempDir } from "../helpers/temp.ts";

/** A pid no process of this host has any more: a child that has ended. */
async function deadPid(): Promise<number> {
  const child = new Deno.Command("true", { stdout: "null", stderr: "null" }).spawn();
  await child.status;
  return child.pid;
}

/** This boot's id, as the owner markers name it (Linux). */
function bootId(): string | undefined {
  try {
    return Deno.readTextFileSync("/proc/sys/kernel/random/boot_id").trim() || undefined;
  } catch {
    return undefined;
  }
}

for (const store of STORES) {
  Deno.test(`interrupted runs across hosts: another host's run is left alone, this host's dead owners are marked [${store}]`, async () => {
    await using home = await storeHome(store);
    await using tmp = await tempDir();
    const dir = await writeHarness(tmp.path, "hosts", { model: scripted([{ text: "hi" }]) });
    const db = openHive();
    const me = ownProcess();
    const hostname = Deno.hostname();
    const boot = bootId();
    const here = boot ? `${hostname}/${boot}` : hostname;
    const gone = await deadPid();
    const owners: Record<string, [number, string]> = {
      // Alive on its own host; its pid does not exist here.
      other_host: [gone, `4242@not-${hostname}/0000-boot`],
      // This host: a process that has ended.
      dead_here: [gone, `4242@${here}`],
      // Written before hosts were named: this host's, judged as before.
      old_row: [gone, "4242"],
      // This process, live.
      live_here: [me.pid, `${me.start}@${here}`],
      // This host's name and pid, but an earlier boot: gone with it.
      ...(boot ? { earlier_boot: [me.pid, `${me.start}@${hostname}/not-${boot}`] } : {}),
    };
    const ids: Record<string, string> = {};
    for (const [name, [pid, marker]] of Object.entries(owners)) {
      const runId = ids[name] = `run_${name}`;
      insertRun(db, {
        run_id: runId,
        harness_id: "hosts",
        harness_dir: dir,
        input: name,
        started_at: new Date().toISOString(),
        spec_version: "v1",
        trace_path: `${dir}/.framework/traces/${runId}.jsonl`,
      });
      statement(db, "UPDATE runs SET owner_pid = ?, owner_start = ? WHERE run_id = ?")
        .run(pid, marker, runId);
    }
    // A thread held by the other host's run.
    const thread = createThread(db, { id: "hosts", dir }, "cli", {});
    statement(
      db,
      "UPDATE threads SET live_run_id = ?, live_pid = ?, live_start = ? WHERE thread_id = ?",
    ).run(ids.other_host!, ...owners.other_host!, thread.thread_id);

    // A second process opens the hive.
    const out = await runCli(["stats", dir, "--json"], { home: home.path, env: home.env });
    assert.equal(out.code, 0, out.stderr);
    closeHives();
    const after = openHive();
    const status = (name: string) => getRunAnyHarness(after, ids[name]!)!;
    assert.equal(status("other_host").status, "running", "another host's run is left alone");
    assert.equal(status("live_here").status, "running");
    for (const name of ["dead_here", "old_row", ...(boot ? ["earlier_boot"] : [])]) {
      assert.equal(status(name).status, "error", name);
      assert.equal(status(name).failure_signature, "error:interrupted", name);
    }
    // The thread the other host's run holds is busy here too.
    assert.equal(lockThread(after, thread.thread_id, "run_new"), ids.other_host);
  });
}
