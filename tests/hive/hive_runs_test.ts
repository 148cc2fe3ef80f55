import assert from "node:assert/strict";
import { closeHives, openHive } from "../../lib/hive/open.ts";
import { getRun, listRuns } from "../../lib/hive/runs.ts";
import { listProposals } from "../../lib/hive/proposals.ts";
import { verifyJournal } from "../../lib/journal/verify.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { storeHome, STORES } from "../helpers/hive_stores.ts";
import { byId } from "../helpers/hive.ts";

const CHILDREN = new URL("../helpers/children/", import.meta.url).pathname;

function child(script: string, args: string[], env: Record<string, string>) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `${CHILDREN}${script}`, ...args],
    env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

for (const store of STORES) {
  Deno.test(`a run whose process is killed is marked error/interrupted on the next open, not before [${store}]`, async () => {
    await using home = await storeHome(store);
    await using tmp = await tempDir();
    const dir = await writeHarness(tmp.path, "slow", {
      model: scripted([{ tool_calls: [{ name: "list_files" }] }, {
        text: "late",
        delay_ms: 60_000,
      }]),
      tools: [{ builtin: "list_files" }],
    });
    const proc = child("long_run.ts", [dir], home.env);
    const reader = proc.stdout.getReader();
    const runId = new TextDecoder().decode((await reader.read()).value).trim();
    reader.releaseLock();
    assert.match(runId, /^run_/);
    // Wait until the child has journalled its second model call (six lines).
    const row = () => getRun(openHive(), byId("slow"), runId);
    const lines = async () =>
      (await Deno.readTextFile(row()!.trace_path).catch(() => "")).split("\n").length - 1;
    for (let i = 0; i < 500 && (row()?.status !== "running" || (await lines()) < 6); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    closeHives();
    assert.equal(row()!.status, "running", "an open while the owner lives leaves the run alone");

    proc.kill("SIGKILL");
    await proc.status;
    await proc.stdout.cancel();
    await proc.stderr.cancel();
    closeHives();
    const after = row()!;
    assert.equal(after.status, "error");
    assert.equal(after.failure_signature, "error:interrupted");
    assert.match(after.error!, /^interrupted/);
    assert.ok(after.ended_at && after.duration_ms !== null);
    const integrity = verifyJournal(await Deno.readFile(after.trace_path));
    assert.equal(integrity.ok, true, "the journal written so far still verifies");
    assert.equal(integrity.checked, 6);
  });
}

for (const store of STORES) {
  Deno.test(`two processes running 50 runs each against one hive: all 100 rows, no lock errors [${store}]`, async () => {
    await using home = await storeHome(store);
    await using tmp = await tempDir();
    const dir = await writeHarness(tmp.path, "busy", {
      model: scripted([{ tool_calls: [{ name: "list_files" }] }, { text: "ok" }]),
      tools: [{ builtin: "list_files" }],
    });
    const a = child("many_runs.ts", [dir, "50"], home.env);
    const b = child("many_runs.ts", [dir, "50"], home.env);
    const [ra, rb] = await Promise.all([a.output(), b.output()]);
    const errors = new TextDecoder().decode(ra.stderr) + new TextDecoder().decode(rb.stderr);
    assert.equal(ra.code, 0, errors);
    assert.equal(rb.code, 0, errors);
    assert.ok(!/locked|busy/i.test(errors), errors);
    const runs = listRuns(openHive(), byId("busy"), { limit: 1000 });
    assert.equal(runs.length, 100);
    assert.ok(runs.every((r) => r.status === "success" && r.events === 8));
  });
}

for (const store of STORES) {
  Deno.test(`listRuns() and listProposals() refuse an unknown status filter, naming the known ones [${store}]`, async () => {
    await using _home = await storeHome(store);
    const hive = openHive();
    assert.throws(
      () => listRuns(hive, byId("h", hive), { status: "done" }),
      /Unknown status "done": expected one of success, .*running/,
    );
    assert.throws(() => listRuns(hive, byId("h", hive), { status: "" }), /Unknown status ""/);
    assert.deepEqual(listRuns(hive, byId("h", hive), { status: "running" }), []);
    assert.throws(
      () => listProposals(hive, byId("h", hive), "open"),
      /Unknown status "open": expected one of queued/,
    );
    assert.deepEqual(listProposals(hive, byId("h", hive), "queued"), []);
  });
}
