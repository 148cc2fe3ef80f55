/**
 * Drafting after applying: the same, already-applied change is not queued again, and a change that
 * would change nothing is marked as such inside a proposal.
 *
 * @module
 */

import assert from "node:assert/strict";
import { FrameworkError } from "../../lib/errors.ts";
import { applyProposal } from "../../lib/evolve/decide.ts";
import { proposeImprovement } from "../../lib/evolve/propose.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

const ANSWER = JSON.stringify({
  rationale: "Shorter answers.",
  yaml_changes: [{ path: "limits.max_turns", op: "set", value: 4 }],
  code_changes: [{ path: "workspace/tone.md", content: "Be brief.\n" }],
});

Deno.test("a proposal already applied is not queued again; a no-op change is marked", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "noop", {
    model: scripted([{ text: "ok" }]),
    limits: { max_turns: 6 },
    // The evolver answers the same every time (scripted replies repeat their last one).
    evolution: { model: scripted([{ text: ANSWER }]) },
  });
  const first = await proposeImprovement(dir, { trigger: "cli", policy: "proposal" });
  assert.deepEqual(first.yaml_changes.map((c) => c.status), ["pending"]);
  await applyProposal(dir, first.id, { apply_yaml: true, approve_code: ["c1"] }, {
    policy: "proposal",
  });

  await assert.rejects(
    () => proposeImprovement(dir, { trigger: "cli", policy: "proposal" }),
    (err: unknown) =>
      err instanceof FrameworkError && err.kind === "conflict" &&
      /already in place/.test(err.message),
  );

  // A proposal with one new change and one already in place is queued with the no-op marked.
  await Deno.writeTextFile(`${dir}/workspace/tone.md`, "Be long.\n");
  const mixed = await proposeImprovement(dir, { trigger: "cli", policy: "proposal" });
  assert.equal(mixed.status, "queued");
  assert.deepEqual(mixed.yaml_changes.map((c) => [c.status, c.noop]), [["skipped", true]]);
  assert.deepEqual(mixed.code_changes.map((c) => c.status), ["pending"]);
});
