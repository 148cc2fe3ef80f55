/**
 * The failures the evolver learns from: runs stopped by a person or left by a process that went away
 * (while working or while waiting for a person) are recorded, but are no evidence about the harness.
 *
 * @module
 */

import assert from "node:assert/strict";
import { isHarnessFailure, NOT_HARNESS_FAILURES } from "../../lib/failure_signature.ts";
import { openHive } from "../../lib/hive/open.ts";
import { finishRun, insertRun, recentFailedRuns } from "../../lib/hive/runs.ts";
import { storeHome, STORES } from "../helpers/hive_stores.ts";

const HARNESS = { id: "bot", dir: "/h/bot" };

for (const store of STORES) {
  Deno.test(`recentFailedRuns leaves out runs that ended for a reason outside the harness [${store}]`, async () => {
    await using _home = await storeHome(store);
    const db = openHive();
    const signatures = [
      "verify_failed:regex:order-id",
      ...NOT_HARNESS_FAILURES,
      "error:timeout",
      "max_turns",
    ];
    signatures.forEach((signature, i) => {
      const run_id = `run_${String(i).padStart(2, "0")}`;
      insertRun(db, {
        run_id,
        harness_id: HARNESS.id,
        harness_dir: HARNESS.dir,
        input: "hi",
        started_at: "2026-11-25T10:00:00.000Z",
        spec_version: "v1",
        trace_path: `${HARNESS.dir}/.framework/traces/${run_id}.jsonl`,
      });
      const [status] = signature.split(":") as ["error"];
      finishRun(db, {
        run_id,
        harness_id: HARNESS.id,
        status,
        output: "",
        cost_usd: 0,
        turns: 1,
        started_at: "2026-11-25T10:00:00.000Z",
        ended_at: "2026-11-25T10:00:01.000Z",
        duration_ms: 1000,
        spec_version: "v1",
        failure_signature: signature,
      }, { head_hash: "0".repeat(64), events: 2 });
    });
    assert.deepEqual(recentFailedRuns(db, HARNESS, 10).map((r) => r.failure_signature), [
      "max_turns",
      "error:timeout",
      "verify_failed:regex:order-id",
    ]);
    assert.equal(isHarnessFailure("error:stopped"), false);
    assert.equal(isHarnessFailure("error:interrupted_awaiting_approval"), false);
    assert.equal(isHarnessFailure("error:timeout"), true);
    assert.equal(isHarnessFailure(null), false);
  });
}
