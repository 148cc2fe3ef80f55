/**
 * Delegation on a control plane with the default capacity (one run at a time, four waiting): a run
 * that hands a task to a peer does not deadlock. The child runs within its parent's slot (the parent
 * waits on the `delegate` call), so it never queues behind its own ancestor, and the slot is still
 * one: another `/run` meanwhile waits in the queue.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { getRunAnyHarness } from "../../lib/hive/runs.ts";
import { openHive } from "../../lib/hive/open.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { SseReader } from "../helpers/sse_reader.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

/** A tool that holds until the test writes `workspace/go` (so the test decides, not a clock). */
const HOLD_TOOL = `
export async function hold() {
  while (true) {
    try {
      await Deno.stat("workspace/go");
      return "released";
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
`;

Deno.test("control plane, default capacity: a delegating run's child runs in its parent's slot", async () => {
  await using home = await tempHome();
  await using root = await tempDir();
  const peer = await writeHarness(root.path, "peer", {
    model: scripted([
      { tool_calls: [{ name: "hold", arguments: {} }] },
      { text: "peer: 12 refunds" },
    ]),
    tools: [{ code: "tools.ts#hold", name: "hold", description: "Waits for the go file" }],
  }, { "tools.ts": HOLD_TOOL, "workspace/.keep": "" });
  const dir = await writeHarness(root.path, "lead", {
    model: scripted([
      {
        tool_calls: [{ name: "delegate", arguments: { task: "Count the refunds", peer: "peer" } }],
      },
      { text: "lead: the peer counted them" },
    ]),
    // Without the fix the parent waits on its own slot until this limit ends it.
    limits: { timeout_s: 60 },
    delegation: { peers: [{ name: "peer", harness: "../peer" }] },
  });
  await trustFolder(peer);
  // The spec's defaults: --max-concurrent-runs 1 --max-queued-runs 4.
  await using plane = await startControlPlane(dir, { home: home.path });
  const { token } = await memberToken(dir, home.path, "member", ["run", "read"]);
  const post = (input: string) =>
    fetch(`${plane.url}/run?stream=true`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ input }),
    });

  const first = new SseReader(await post("first"));
  let second: SseReader | undefined;
  try {
    const [accepted] = await first.until(() => true, "run_accepted");
    assert.equal(accepted!.data.queued, false);
    const started = (await first.until(
      (f) => f.data?.type === "delegation_started",
      "the hand-off",
    )).at(-1)!.data.payload;
    // The parent holds the only slot while its child works: another run waits in the queue.
    second = new SseReader(await post("second"));
    const [queued] = await second.until(() => true, "the second run_accepted");
    assert.equal(queued!.data.queued, true, "one slot, held by the delegating run");

    await Deno.writeTextFile(join(peer, "workspace", "go"), "");
    const rest = await first.rest();
    const result = rest.at(-1)!;
    assert.equal(result.event, "run_result");
    assert.equal(result.data.status, "success", JSON.stringify(result.data.error));
    const finished = rest.find((f) => f.data?.type === "delegation_finished")!.data.payload;
    assert.deepEqual([finished.status, finished.child_run_id], ["success", started.child_run_id]);
    assert.equal(result.data.output, "lead: the peer counted them");
    assert.deepEqual(result.data.delegations.map((d: { status: string }) => d.status), [
      "success",
    ]);
    const child = getRunAnyHarness(openHive(), String(started.child_run_id))!;
    assert.equal(child.parent_run_id, accepted!.data.run_id);
    assert.equal(child.status, "success");

    // The queued run starts when the slot frees, and delegates in its own slot in turn.
    const after = (await second.rest()).at(-1)!;
    assert.equal(after.data.status, "success", JSON.stringify(after.data.error));
    assert.equal(after.data.delegations[0].status, "success");
  } finally {
    await first.close();
    await second?.close();
  }
});
