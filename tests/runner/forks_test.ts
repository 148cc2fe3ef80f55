/**
 * Forks through real runs: a 3-call scripted run forked at its second model call with another
 * scripted model, then resumed. The new journal verifies, its `replayed` events carry the parent's
 * payloads, the parent's model and tools are not called for the prefix, the new model answers from
 * the re-entry on, the catalog and the lineage say what happened; every refusal leaves no folder.
 *
 * @module
 */

import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { FrameworkError } from "../../lib/errors.ts";
import { getHarness } from "../../lib/hive/harnesses.ts";
import { openHive } from "../../lib/hive/open.ts";
import type { JournalEvent } from "../../lib/journal/event.ts";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { createProvider } from "../../lib/models/registry.ts";
import type { ModelProvider } from "../../lib/models/types.ts";
import { forkRun, resumeFork, runLineage, suggestForkName } from "../../lib/runs/forks.ts";
import { createRunService, startRun } from "../../lib/runs/service.ts";
import { trustedEntryFor, trustFolder } from "../../lib/trust/store.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

const NOTE_TOOL = `
export async function note(args: { n: number }) {
  await Deno.writeTextFile("workspace/tool.log", "call " + args.n + "\\n", { append: true });
  return "noted " + args.n;
}
`;

function kind(k: string) {
  return (err: unknown) => err instanceof FrameworkError && err.kind === k;
}

async function journal(path: string): Promise<{ events: JournalEvent[]; ok: boolean }> {
  const bytes = await Deno.readFile(path);
  return { events: parseJournal(bytes), ok: verifyJournal(bytes).ok };
}

async function lines(path: string): Promise<string[]> {
  try {
    return (await Deno.readTextFile(path)).trim().split("\n");
  } catch {
    return [];
  }
}

Deno.test("forks: branch a run at a model call, resume it from the journal, see the lineage", async (t) => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const parentDir = await writeHarness(root.path, "parent", {
    name: "Parent",
    model: scripted([
      { tool_calls: [{ id: "c1", name: "note", arguments: { n: 1 } }] },
      { tool_calls: [{ id: "c2", name: "note", arguments: { n: 2 } }] },
      { text: "parent done" },
    ], { name: "parent-script" }),
    tools: [{ code: "tools/note.ts#note", name: "note" }],
  }, { "tools/note.ts": NOTE_TOOL, "workspace/shipped.txt": "shipped with the harness\n" });
  await Deno.writeTextFile(join(parentDir, ".env"), "SECRET=1\n");
  await trustFolder(parentDir);
  const parentRun = await startRun(parentDir, { input: "Take notes" });
  const parentResult = await parentRun.result;
  assert.equal(parentResult.status, "success", JSON.stringify(parentResult.error));
  const parentJournal = await journal(parentRun.trace_path);
  const calls = parentJournal.events.filter((e) => e.type === "model_call").map((e) => e.seq);
  assert.equal(calls.length, 3);
  const at = calls[1]!;
  assert.deepEqual(await lines(join(parentDir, "workspace/tool.log")), ["call 1", "call 2"]);
  const db = openHive();
  const entries = async () =>
    (await Array.fromAsync(Deno.readDir(root.path))).map((e) => e.name)
      .sort();

  await t.step("refusals leave no folder behind", async () => {
    const refuse = async (request: Parameters<typeof forkRun>[2], k: string, message: RegExp) => {
      await assert.rejects(
        forkRun(db, parentRun.run_id, request, "test"),
        (err) => kind(k)(err) && message.test((err as Error).message),
      );
      assert.deepEqual(await entries(), ["parent"]);
    };
    await refuse({ at: at + 1, name: "branch" }, "bad_input", /not a model call; fork at one of/);
    await refuse({ at: 999, name: "branch" }, "bad_input", /not in its journal/);
    await refuse({ at, name: "Bad Name" }, "bad_input", /expected a slug/);
    await refuse({ at, name: "../x" }, "bad_input", /expected a slug/);
    // Names that resolve to folders that exist (the one holding the parent, the one above it):
    // refused as names before the disk is looked at, not answered "already exists".
    for (const name of [".", "..", `../${basename(root.path)}`]) {
      await refuse({ at, name }, "bad_input", /expected a slug/);
    }
    await refuse({ at, name: "parent" }, "conflict", /already the id of a harness/);
    await refuse(
      {
        at,
        name: "branch",
        model: { provider: "openai-compatible", name: "m", base_url: "http://127.0.0.1:9" },
      },
      "bad_input",
      /not one this harness names/,
    );
    await assert.rejects(
      forkRun(db, "run_01ZZZZZZZZZZZZZZZZZZZZZZZZ", { at, name: "branch" }, "test"),
      kind("not_found"),
    );
    await Deno.mkdir(join(root.path, "occupied"));
    await assert.rejects(
      forkRun(db, parentRun.run_id, { at, name: "occupied" }, "test"),
      (err) => kind("conflict")(err) && /already exists beside/.test((err as Error).message),
    );
    await Deno.remove(join(root.path, "occupied"));
    assert.equal(await suggestForkName(db, { id: "parent", dir: parentDir }), "parent-fork");
  });

  let forkDir = "";
  await t.step("the fork is a copy beside the parent, registered as its fork", async () => {
    const fork = await forkRun(db, parentRun.run_id, {
      at,
      name: "branch",
      model: {
        provider: "scripted",
        name: "fork-script",
        replies: [{ text: "the fork answers" }],
      },
    }, "test");
    forkDir = fork.harness.root_path;
    assert.equal(forkDir, await Deno.realPath(join(root.path, "branch")));
    assert.deepEqual(fork, {
      harness: {
        id: "branch",
        name: "Parent",
        root_path: forkDir,
        is_fork: true,
        parent_id: "parent",
      },
      fork: { parent_run_id: parentRun.run_id, at, reentry_seq: at },
    });
    const row = getHarness(db, "branch")!;
    assert.deepEqual([row.is_fork, row.parent_id, row.root_path], [true, "parent", forkDir]);
    // Copied: the code and what shipped in workspace/; not copied: .env, .framework, run output.
    assert.equal(await Deno.readTextFile(join(forkDir, "tools/note.ts")), NOTE_TOOL);
    assert.ok(await Deno.stat(join(forkDir, "workspace/shipped.txt")));
    await assert.rejects(Deno.stat(join(forkDir, ".env")), Deno.errors.NotFound);
    await assert.rejects(Deno.stat(join(forkDir, "workspace/tool.log")), Deno.errors.NotFound);
    const yaml = await Deno.readTextFile(join(forkDir, "harness.yaml"));
    assert.match(yaml, /^id: branch$/m);
    assert.match(yaml, new RegExp(`run_id: ${parentRun.run_id}`));
    assert.match(yaml, new RegExp(`head: ${parentJournal.events[at - 2]!.hash}`));
    assert.equal(
      (await Deno.readTextFile(join(parentDir, "harness.yaml"))).includes("fork:"),
      false,
    );
    const log = await lines(join(forkDir, ".framework/construction.log"));
    assert.deepEqual(log.map((l) => [JSON.parse(l).op, JSON.parse(l).path]), [
      ["fork", "id"],
      ["fork", "model"],
      ["fork", "fork"],
    ]);
    assert.ok(await trustedEntryFor(forkDir), "a fork of a trusted folder is trusted");
    await assert.rejects(
      forkRun(db, parentRun.run_id, { at, name: "branch" }, "test"),
      kind("conflict"),
    );
  });

  let resumedRunId = "";
  await t.step(
    "resume replays the prefix without calling the model or a tool, then goes on live",
    async () => {
      const called: Record<string, number> = {};
      const counting = (
        model: Parameters<typeof createProvider>[0],
        ctx: Parameters<typeof createProvider>[1],
      ): ModelProvider => {
        const inner = createProvider(model, ctx);
        return {
          ...inner,
          generate(req) {
            called[inner.model] = (called[inner.model] ?? 0) + 1;
            return inner.generate(req);
          },
        };
      };
      const run = await resumeFork(db, createRunService(), forkDir, { createProvider: counting });
      const handle = await run.started;
      const result = await run.result;
      resumedRunId = run.run_id;
      assert.equal(result.status, "success", JSON.stringify(result.error));
      assert.equal(result.output, "the fork answers");
      assert.equal(result.parent_run_id, parentRun.run_id);
      assert.deepEqual(called, { "fork-script": 1 }, "the parent's model was not called again");
      assert.deepEqual(await lines(join(parentDir, "workspace/tool.log")), ["call 1", "call 2"]);
      assert.deepEqual(await lines(join(forkDir, "workspace/tool.log")), [], "no tool ran again");

      const { events, ok } = await journal(handle.trace_path);
      assert.equal(ok, true, "the new journal verifies");
      assert.deepEqual(events[0]!.type, "fork_resumed");
      assert.deepEqual(events[0]!.payload, {
        parent_run_id: parentRun.run_id,
        at,
        parent_head: parentJournal.events[at - 2]!.hash,
      });
      const replayed = events.filter((e) => e.type === "replayed");
      assert.deepEqual(
        replayed.map((e) => e.payload),
        parentJournal.events.slice(0, at - 1).map((e) => ({
          original_seq: e.seq,
          original_type: e.type,
          payload: e.payload,
        })),
      );
      const live = events.slice(replayed.length + 1).map((e) => e.type);
      assert.deepEqual(live, ["run_started", "model_call", "model_response", "run_finished"]);
      const call = events.find((e) => e.type === "model_call")!.payload;
      assert.equal(call.turn, 2);
      assert.deepEqual(call.model, { provider: "scripted", name: "fork-script" });
      // The re-entered call is given the parent's context at `at`: input, call 1 and its result.
      const parentCall = parentJournal.events.find((e) => e.seq === at)!.payload;
      const parentContext = [
        ...(parentJournal.events.find((e) => e.type === "model_call")!.payload.append as unknown[]),
        ...(parentCall.append as unknown[]),
      ];
      assert.deepEqual(call.append, parentContext);
    },
  );

  await t.step("lineage: the parent lists the resumed fork with its re-entry seq", () => {
    assert.deepEqual(runLineage(db, parentRun.run_id), {
      parent: null,
      children: [{ kind: "fork", harness_id: "branch", run_id: resumedRunId, reentry_seq: at }],
    });
    assert.deepEqual(runLineage(db, resumedRunId), {
      parent: { run_id: parentRun.run_id, harness_id: "parent", kind: "fork" },
      children: [],
    });
  });

  await t.step("a changed parent journal refuses the resume with the broken seq", async () => {
    const bytes = await Deno.readTextFile(parentRun.trace_path);
    await Deno.writeTextFile(parentRun.trace_path, bytes.replace('"n":1', '"n":7'));
    await assert.rejects(
      resumeFork(db, createRunService(), forkDir),
      (err) =>
        kind("conflict")(err) && /broken at seq \d+, before the re-entry point/.test(
          (err as Error).message,
        ),
    );
    assert.equal(runLineage(db, parentRun.run_id).children.length, 1, "no new run started");
  });
});

Deno.test("forks: a fork made before origins were recorded is bound by its first resume", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const parentDir = await writeHarness(root.path, "elder", {
    model: scripted([
      { tool_calls: [{ name: "list_files", arguments: {} }] },
      { text: "elder done" },
    ]),
    tools: [{ builtin: "list_files" }],
  });
  const runs = createRunService();
  const first = await (await startRun(parentDir, { input: "first" })).result;
  const second = await (await startRun(parentDir, { input: "second" })).result;
  const db = openHive();
  const { harness } = await forkRun(db, first.run_id, { at: 6, name: "elder-fork" }, "test");
  // As migration 12 leaves a fork made before it that never resumed: its parent, no run.
  db.exec("UPDATE fork_origins SET run_id = NULL, at = NULL");
  const forkYaml = join(harness.root_path, "harness.yaml");
  const original = await Deno.readTextFile(forkYaml);

  const resumed = await (await resumeFork(db, runs, harness.root_path)).result;
  assert.equal(resumed.status, "success");
  assert.equal(resumed.parent_run_id, first.run_id);
  // Bound now: the block pointed at the parent's other run is refused.
  await Deno.writeTextFile(forkYaml, original.replace(first.run_id, second.run_id));
  await assert.rejects(
    resumeFork(db, runs, harness.root_path),
    (err) => kind("bad_input")(err) && /was made from run/.test((err as Error).message),
  );
  await runs.close(0);
});
