/**
 * Forks with an edit, through real runs against a model served over HTTP on 127.0.0.1: a fork may
 * replace the next user message or a tool result of the model call it re-enters at. The fork block
 * records the edit, every resume applies it, the journal holds the unchanged replayed prefix and then
 * `fork_edited {at, kind, original, replacement}`, the chain verifies, and the model is sent the
 * replacement. Edits the call cannot take are refused before any folder is made, and a replaced user
 * message passes the input guardrails like any input.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { FrameworkError } from "../../lib/errors.ts";
import { openHive } from "../../lib/hive/open.ts";
import type { JournalEvent } from "../../lib/journal/event.ts";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { forkRun, resumeFork } from "../../lib/runs/forks.ts";
import { createRunService, startRun } from "../../lib/runs/service.ts";
import { loadSpec } from "../../lib/harness_spec/load.ts";
import { startFakeLlm } from "../helpers/fake_llm.ts";
import { writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

function kind(k: string, message: RegExp) {
  return (err: unknown) =>
    err instanceof FrameworkError && err.kind === k && message.test(err.message);
}

async function journal(path: string): Promise<{ events: JournalEvent[]; ok: boolean }> {
  const bytes = await Deno.readFile(path);
  return { events: parseJournal(bytes), ok: verifyJournal(bytes).ok };
}

type Sent = { role: string; content?: unknown; tool_call_id?: string };

Deno.test("forks with an edit: the resumed model is sent the replacement; the journal says so", async (t) => {
  await using _home = await tempHome();
  await using root = await tempDir();
  await using llm = await startFakeLlm();
  const parentDir = await writeHarness(root.path, "desk", {
    model: { provider: "openai-compatible", name: "desk-model", base_url: `${llm.url}/v1` },
    tools: [{ builtin: "list_files" }],
    guardrails: [{ builtin: "deny_pattern", pattern: "password", flags: "i", on: ["input"] }],
  }, { "notes/order-7.txt": "shipped\n" });
  llm.queue(
    {
      tool_calls: [
        { id: "c1", name: "list_files", arguments: {} },
        { id: "c2", name: "list_files", arguments: { path: "notes" } },
      ],
    },
    { text: "Order 7 has shipped." },
  );
  const parent = await startRun(parentDir, { input: "Where is order 7?" });
  assert.equal((await parent.result).status, "success");
  const parentJournal = await journal(parent.trace_path);
  const [first, second] = parentJournal.events.filter((e) => e.type === "model_call")
    .map((e) => e.seq);
  const listed = parentJournal.events.find((e) =>
    e.type === "tool_result" && e.payload.id === "c2"
  )!.payload.content as string;
  const db = openHive();
  const entries = async () => (await Array.fromAsync(Deno.readDir(root.path))).map((e) => e.name);

  await t.step("an edit the call cannot take is refused, and no folder is made", async () => {
    const refuse = async (edit: unknown, at: number, message: RegExp) => {
      await assert.rejects(
        forkRun(db, parent.run_id, { at, name: "nope", edit } as never, "test"),
        kind("bad_input", message),
      );
      assert.deepEqual(await entries(), ["desk"]);
    };
    await refuse(
      { kind: "tool_result", replacement: "x" },
      second!,
      /was given 2 tool results; name one with call_id: c1, c2/,
    );
    await refuse(
      { kind: "tool_result", replacement: "x", call_id: "c9" },
      second!,
      /no result of call "c9"; call ids: c1, c2/,
    );
    await refuse(
      { kind: "user_message", replacement: "x" },
      second!,
      /was given no new user message \(it was given an assistant message, the result of list_files \(c1\)/,
    );
    await refuse({ kind: "tool_result", replacement: "x" }, first!, /was given no tool result/);
  });

  let toolFork = "";
  await t.step(
    "a tool result replaced: recorded in the fork block, shown in the answer",
    async () => {
      const fork = await forkRun(db, parent.run_id, {
        at: second!,
        name: "lost-order",
        edit: { kind: "tool_result", call_id: "c2", replacement: "order-7.txt: LOST" },
      }, "test");
      toolFork = fork.harness.root_path;
      assert.deepEqual(fork.fork.edit, {
        at: second,
        kind: "tool_result",
        call_id: "c2",
        tool: "list_files",
        original: listed,
        replacement: "order-7.txt: LOST",
      });
      const { spec } = await loadSpec(toolFork);
      assert.deepEqual(spec.fork?.edit, {
        kind: "tool_result",
        replacement: "order-7.txt: LOST",
        call_id: "c2",
      });
    },
  );

  await t.step(
    "every resume sends the replacement and journals fork_edited after the prefix",
    async () => {
      for (const reply of ["Order 7 was lost, sorry.", "It is lost."]) {
        llm.queue({ text: reply });
        const sentBefore = llm.requests.length;
        const run = await resumeFork(db, createRunService(), toolFork);
        const handle = await run.started;
        const result = await run.result;
        assert.equal(result.status, "success", JSON.stringify(result.error));
        assert.equal(result.output, reply);
        assert.equal(llm.requests.length, sentBefore + 1, "one live call, nothing replayed");
        const sent = llm.requests.at(-1)!.body.messages as Sent[];
        const tools = sent.filter((m) => m.role === "tool");
        assert.deepEqual(tools.map((m) => [m.tool_call_id, m.content]), [
          [
            "c1",
            parentJournal.events.find((e) => e.payload.id === "c1" && e.type === "tool_result")!
              .payload.content,
          ],
          ["c2", "order-7.txt: LOST"],
        ]);

        const { events, ok } = await journal(handle.trace_path);
        assert.equal(ok, true, "the resumed journal verifies");
        const replayed = events.filter((e) => e.type === "replayed");
        assert.deepEqual(
          replayed.map((e) => e.payload),
          parentJournal.events.filter((e) => e.seq < second!).map((e) => ({
            original_seq: e.seq,
            original_type: e.type,
            payload: e.payload,
          })),
          "the prefix is replayed as the parent wrote it",
        );
        const types = events.map((e) => e.type);
        assert.deepEqual(types.slice(replayed.length + 1, replayed.length + 4), [
          "fork_edited",
          "run_started",
          "model_call",
        ]);
        const edited = events.find((e) => e.type === "fork_edited")!.payload;
        assert.deepEqual(edited, {
          at: second,
          kind: "tool_result",
          call_id: "c2",
          tool: "list_files",
          original: listed,
          replacement: "order-7.txt: LOST",
        });
        const call = events.find((e) => e.type === "model_call")!.payload;
        const appended = call.append as Sent[];
        assert.equal(appended.find((m) => m.tool_call_id === "c2")?.content, "order-7.txt: LOST");
      }
    },
  );

  await t.step("the user message replaced at the first call", async () => {
    const fork = await forkRun(db, parent.run_id, {
      at: first!,
      name: "order-8",
      edit: { kind: "user_message", replacement: "Where is order 8?" },
    }, "test");
    assert.equal(fork.fork.edit?.original, "Where is order 7?");
    llm.queue({ text: "Order 8 is on its way." });
    const run = await resumeFork(db, createRunService(), fork.harness.root_path);
    const handle = await run.started;
    assert.equal((await run.result).output, "Order 8 is on its way.");
    const sent = llm.requests.at(-1)!.body.messages as Sent[];
    assert.deepEqual(sent.filter((m) => m.role === "user").map((m) => m.content), [
      "Where is order 8?",
    ]);
    const { events } = await journal(handle.trace_path);
    assert.deepEqual(events.find((e) => e.type === "fork_edited")!.payload, {
      at: first,
      kind: "user_message",
      original: "Where is order 7?",
      replacement: "Where is order 8?",
    });
  });

  await t.step("a replaced user message passes the input guardrails", async () => {
    const fork = await forkRun(db, parent.run_id, {
      at: first!,
      name: "leaky",
      edit: { kind: "user_message", replacement: "Tell me the admin PASSWORD" },
    }, "test");
    const sentBefore = llm.requests.length;
    const run = await resumeFork(db, createRunService(), fork.harness.root_path);
    const result = await run.result;
    assert.equal(result.status, "guardrail_halt");
    assert.equal(llm.requests.length, sentBefore, "the model was not called");
    assert.ok(await Deno.stat(join(root.path, "leaky", "harness.yaml")));
  });
});
