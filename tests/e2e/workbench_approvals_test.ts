/**
 * The workbench's tool-approval routes (docs/workbench-api.md, Tool approvals) against a real
 * workbench process: a run of a harness with `approvals` waits; its request is listed (the harness's,
 * and the workbench's for the rail) and read; a `file_write`'s preview is the file now against the
 * content proposed (a missing file an empty "before", a refused path said to be refused, another tool
 * 400); a decision quoting another hash is 409 and changes nothing, a malformed one 400; approved by
 * the person (`decided_by: workbench`), the call runs and the run succeeds; a second decision is
 * 409; denied with a reason, the model reads "denied by a person: <reason>". A request of a folder
 * the workbench does not offer (a copy that kept the id, run by a control plane sharing the hive) is
 * 404 and never listed. A run waiting when the workbench stops ends `interrupted_awaiting_approval`
 * and its request stays pending; approved from the restarted workbench, the run is taken up again
 * (`resumed_run_id`) and the write happens.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { SseReader } from "../helpers/sse_reader.ts";
import { tempDir } from "../helpers/temp.ts";
import {
  type RunningWorkbenchProcess,
  startWorkbenchProcess,
  workbenchCall,
} from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Writes workspace/out.txt (`write…`), `.env` (`secret…`) or lists files (`look…`); all gated. */
function spec() {
  const then = (call: Record<string, unknown>) => [{ tool_calls: [call] }, { text: "done" }];
  return {
    model: scripted([{ text: "plain answer" }], {
      scenarios: [
        {
          match: "^write",
          replies: then({
            name: "file_write",
            arguments: { path: "workspace/out.txt", content: "new text\n" },
          }),
        },
        {
          match: "^fresh",
          replies: then({
            name: "file_write",
            arguments: { path: "workspace/fresh.txt", content: "fresh\n" },
          }),
        },
        {
          match: "^secret",
          replies: then({ name: "file_write", arguments: { path: ".env", content: "KEY=1\n" } }),
        },
        { match: "^look", replies: then({ name: "list_files", arguments: {} }) },
      ],
    }),
    tools: [{ builtin: "file_write" }, { builtin: "list_files" }],
    approvals: { tools: ["file_write", "list_files"] },
    limits: { max_turns: 4 },
  };
}

/** Starts a run from the workbench over SSE and reads it up to its approval request. */
async function runUntilRequest(wb: { url: string }, input: string) {
  const res = await fetch(`${wb.url}/api/harnesses/writer/runs?stream=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input }),
  });
  assert.equal(res.status, 200);
  const sse = new SseReader(res);
  const frames = await sse.until(
    (f) => f.event === "trace" && f.data.type === "approval_requested",
    "approval_requested",
  );
  return { sse, runId: frames[0]!.data.run_id as string, request: frames.at(-1)!.data.payload };
}

/** The rest of a run's stream: its tool_result and result. */
async function finish(sse: SseReader) {
  const rest = await sse.rest();
  await sse.close();
  const toolResult = rest.find((f) => f.event === "trace" && f.data.type === "tool_result");
  const result = rest.find((f) => f.event === "run_result")?.data;
  return { toolResult: toolResult?.data.payload, result };
}

/** Asks again every 100 ms until `read` answers (at most 30 s, then fails naming `what`). */
async function until<T>(read: () => Promise<T | null>, what: string): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = await read();
    if (value !== null) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`waited 30 s for ${what}`);
}

function decide(wb: RunningWorkbenchProcess, id: string, body: unknown) {
  return workbenchCall(wb, "POST", `/api/approvals/${id}`, body);
}

Deno.test("workbench approval routes: list, read, preview, decide once with the hash", async (t) => {
  await using home = await tempDir("fw-wbapr-home-");
  await using cwd = await tempDir("fw-wbapr-cwd-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "writer", spec(), {
    "workspace/out.txt": "old text\n",
  });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  const call = (method: string, path: string, body?: unknown) =>
    workbenchCall(wb, method, path, body);

  await t.step("a waiting run's request is listed, read and previewed", async () => {
    const { sse, runId, request } = await runUntilRequest(wb, "write it");
    try {
      const id = request.approval_id;
      const all = await call("GET", "/api/approvals?status=pending");
      assert.equal(all.status, 200);
      assert.equal(all.json.data.count, 1);
      assert.deepEqual(all.json.data.approvals.map((a: Json) => [a.approval_id, a.run_id]), [
        [id, runId],
      ]);
      const mine = await call("GET", "/api/harnesses/writer/approvals?status=pending");
      assert.deepEqual(mine.json.data.approvals.map((a: Json) => a.approval_id), [id]);
      const one = await call("GET", `/api/approvals/${id}`);
      assert.equal(one.json.data.status, "pending");
      assert.equal(one.json.data.harness_id, "writer");
      assert.equal(one.json.data.arguments_hash, request.arguments_hash);
      const preview = (await call("GET", `/api/approvals/${id}/preview`)).json.data;
      assert.equal(preview.path, "workspace/out.txt");
      assert.equal(preview.exists, true);
      assert.equal(preview.before, "old text\n");
      assert.equal(preview.after, "new text\n");
      assert.equal(preview.refused, null);
      assert.match(preview.diff, /^-old text$/m);
      assert.match(preview.diff, /^\+new text$/m);

      // Another hash is refused and changes nothing; a malformed decision is bad input.
      const wrong = await decide(wb, id, { decision: "approve", arguments_hash: "0".repeat(64) });
      assert.equal(wrong.status, 409, JSON.stringify(wrong.json));
      assert.equal((await call("GET", `/api/approvals/${id}`)).json.data.status, "pending");
      const bad = await decide(wb, id, {
        decision: "maybe",
        arguments_hash: request.arguments_hash,
      });
      assert.equal(bad.status, 400);
      assert.equal(await Deno.readTextFile(join(dir, "workspace/out.txt")), "old text\n");

      const ok = await decide(wb, id, {
        decision: "approve",
        arguments_hash: request.arguments_hash,
        reason: "looks right",
      });
      assert.equal(ok.status, 200, JSON.stringify(ok.json));
      assert.equal(ok.json.data.status, "approved");
      assert.equal(ok.json.data.decided_by, "workbench");
      assert.equal(ok.json.data.reason, "looks right");
      const { toolResult, result } = await finish(sse);
      assert.equal(toolResult.ok, true);
      assert.equal(result.status, "success");
      assert.equal(await Deno.readTextFile(join(dir, "workspace/out.txt")), "new text\n");

      const again = await decide(wb, id, {
        decision: "deny",
        arguments_hash: request.arguments_hash,
      });
      assert.equal(again.status, 409);
      assert.equal((await call("GET", "/api/approvals?status=pending")).json.data.count, 0);
    } finally {
      await sse.close();
    }
  });

  await t.step("a new file's 'before' is empty; denied, the model reads the reason", async () => {
    const { sse, request } = await runUntilRequest(wb, "fresh file");
    const preview = (await call("GET", `/api/approvals/${request.approval_id}/preview`)).json.data;
    assert.deepEqual(
      [preview.path, preview.exists, preview.before, preview.after, preview.refused],
      ["workspace/fresh.txt", false, "", "fresh\n", null],
    );
    assert.match(preview.diff, /^--- \/dev\/null$/m);
    const no = await decide(wb, request.approval_id, {
      decision: "deny",
      arguments_hash: request.arguments_hash,
      reason: "not now",
    });
    assert.equal(no.json.data.status, "denied");
    const { toolResult, result } = await finish(sse);
    assert.equal(toolResult.ok, false);
    assert.equal(toolResult.error.message, "denied by a person: not now");
    assert.equal(result.status, "success");
    assert.equal(await Deno.stat(join(dir, "workspace/fresh.txt")).catch(() => null), null);
  });

  await t.step(
    "a refused path is said to be refused, and another tool has no preview",
    async () => {
      await Deno.writeTextFile(join(dir, ".env"), "KEY=0\n");
      const secret = await runUntilRequest(wb, "secret");
      const preview = await call("GET", `/api/approvals/${secret.request.approval_id}/preview`);
      assert.equal(preview.status, 200);
      assert.match(preview.json.data.refused, /\.env/);
      assert.equal(preview.json.data.before, "", "a refused file is never read");
      assert.equal(preview.json.data.diff, null);
      await decide(wb, secret.request.approval_id, {
        decision: "deny",
        arguments_hash: secret.request.arguments_hash,
      });
      await finish(secret.sse);
      const look = await runUntilRequest(wb, "look around");
      const none = await call("GET", `/api/approvals/${look.request.approval_id}/preview`);
      assert.equal(none.status, 400);
      assert.match(none.json.error.message, /only file_write/);
      await decide(wb, look.request.approval_id, {
        decision: "approve",
        arguments_hash: look.request.arguments_hash,
      });
      assert.equal((await finish(look.sse)).result.status, "success");
    },
  );

  await t.step(
    "filters: decided lists the decided; a bad filter is 400; unknowns 404",
    async () => {
      const decided = (await call("GET", "/api/harnesses/writer/approvals?status=decided")).json;
      assert.deepEqual(
        decided.data.approvals.map((a: Json) => a.status).sort(),
        ["approved", "approved", "denied", "denied"],
      );
      assert.equal((await call("GET", "/api/approvals?status=maybe")).status, 400);
      assert.equal((await call("GET", "/api/harnesses/nobody/approvals")).status, 404);
      assert.equal((await call("GET", "/api/approvals/apr_nothing")).status, 404);
      assert.equal((await call("GET", "/api/approvals/apr_nothing/preview")).status, 404);
    },
  );
});

Deno.test("workbench approvals: a copy's request is 404; a stopped run is taken up again", async (t) => {
  await using home = await tempDir("fw-wbapr2-home-");
  await using cwd = await tempDir("fw-wbapr2-cwd-");
  await using elsewhere = await tempDir("fw-wbapr2-out-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "writer", spec(), {
    "workspace/out.txt": "old text\n",
  });
  // A copy that kept the id: the workbench does not offer it (its requests are not its).
  const copy = await writeHarness(elsewhere.path, "writer", spec(), {
    "workspace/out.txt": "copy text\n",
  });
  let wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  try {
    await t.step("a request of a folder the workbench does not offer is not found", async () => {
      const alice = await memberToken(copy, home.path, "alice", ["run", "read", "mutate"]);
      const bob = await memberToken(copy, home.path, "bob", ["read", "mutate"]);
      await using plane = await startControlPlane(copy, {
        home: home.path,
        env: { FRAMEWORK_AUTHORIZED_KEYS: "" },
      });
      const res = await fetch(`${plane.url}/run?stream=true`, {
        method: "POST",
        headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
        body: JSON.stringify({ input: "write it" }),
      });
      const sse = new SseReader(res);
      const frames = await sse.until(
        (f) => f.event === "trace" && f.data.type === "approval_requested",
        "approval_requested",
      );
      const request = frames.at(-1)!.data.payload;
      const id = request.approval_id;
      assert.equal((await workbenchCall(wb, "GET", `/api/approvals/${id}`)).status, 404);
      assert.equal((await workbenchCall(wb, "GET", `/api/approvals/${id}/preview`)).status, 404);
      const tried = await decide(wb, id, {
        decision: "approve",
        arguments_hash: request.arguments_hash,
      });
      assert.equal(tried.status, 404);
      const listed = await workbenchCall(wb, "GET", "/api/approvals?status=pending");
      assert.equal(listed.json.data.count, 0);
      const mine = await workbenchCall(wb, "GET", "/api/harnesses/writer/approvals");
      assert.deepEqual(mine.json.data.approvals, []);
      // Still pending for its own face, which decides it.
      const denied = await fetch(`${plane.url}/approvals/${id}`, {
        method: "POST",
        headers: { authorization: `Bearer ${bob.token}`, "content-type": "application/json" },
        body: JSON.stringify({ decision: "deny", arguments_hash: request.arguments_hash }),
      });
      assert.equal(denied.status, 200);
      await denied.body?.cancel();
      await sse.rest();
      await sse.close();
      assert.equal(await Deno.readTextFile(join(copy, "workspace/out.txt")), "copy text\n");
    });

    await t.step("stopped while it waits, the run is taken up again when approved", async () => {
      const { sse, runId, request } = await runUntilRequest(wb, "write it");
      await wb.stop();
      await sse.rest().catch(() => []);
      await sse.close();
      wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
      const stopped = (await workbenchCall(wb, "GET", `/api/runs/${runId}`)).json.data.run;
      assert.equal(stopped.status, "error");
      assert.equal(stopped.reason, "interrupted_awaiting_approval");
      const still = await workbenchCall(wb, "GET", "/api/approvals?status=pending");
      assert.deepEqual(still.json.data.approvals.map((a: Json) => a.approval_id), [
        request.approval_id,
      ]);
      const ok = await decide(wb, request.approval_id, {
        decision: "approve",
        arguments_hash: request.arguments_hash,
      });
      assert.equal(ok.status, 200, JSON.stringify(ok.json));
      const resumed = ok.json.data.resumed_run_id;
      assert.match(resumed, /^run_/);
      const view: Json = await until(async () => {
        const v = (await workbenchCall(wb, "GET", `/api/runs/${resumed}`)).json.data;
        return !v.live && v.status !== "running" ? v : null;
      }, "the resumed run's end");
      assert.equal(view.status, "success");
      assert.equal(view.run.parent_run_id, runId);
      assert.equal(view.events[0].type, "run_resumed");
      assert.equal(view.events[0].payload.approval_id, request.approval_id);
      assert.equal(await Deno.readTextFile(join(dir, "workspace/out.txt")), "new text\n");
    });
  } finally {
    await wb.stop();
  }
});

/** Every source file of the copilot (its tools, its setup, its instructions). */
async function copilotSources(): Promise<Map<string, string>> {
  const root = new URL("../../lib/workbench/copilot/", import.meta.url).pathname;
  const out = new Map<string, string>();
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const path = join(dir, e.name);
      if (e.isDirectory) await walk(path);
      else out.set(path, await Deno.readTextFile(path));
    }
  };
  await walk(root);
  return out;
}

Deno.test("the copilot lists approvals and can decide none; the chat learns its target runs", async (t) => {
  await using home = await tempDir("fw-wbapr3-home-");
  await using cwd = await tempDir("fw-wbapr3-cwd-");
  await using scripts = await tempDir("fw-wbapr3-script-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "writer", spec(), {
    "workspace/out.txt": "old text\n",
  });
  const script = join(scripts.path, "copilot.yaml");
  await Deno.writeTextFile(
    script,
    JSON.stringify({
      replies: [{ text: "Say what or run." }],
      scenarios: [
        {
          match: "^what",
          replies: [
            { tool_calls: [{ name: "list_approvals", arguments: { status: "pending" } }] },
            { text: "One request waits: decide it in its card." },
          ],
        },
        {
          match: "^run",
          replies: [
            { tool_calls: [{ name: "execute_run", arguments: { input: "write it" } }] },
            { text: "The run is done." },
          ],
        },
      ],
    }),
  );
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    env: { FRAMEWORK_COPILOT_MODEL: `scripted:${script}` },
  });
  const conv = (await workbenchCall(wb, "POST", "/api/conversations", { harness_id: "writer" }))
    .json.data.id;
  const send = (message: string) =>
    fetch(`${wb.url}/api/conversations/${conv}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message }),
    });

  await t.step("the copilot's tools include list_approvals and none that decides", async () => {
    const names: string[] = (await workbenchCall(wb, "GET", "/api/catalog/builtins")).json.data
      .copilot_tools;
    assert.ok(names.includes("list_approvals"), names.join(", "));
    const approvalish = names.filter((n) => /approv|decid|deny|denies|reject/i.test(n));
    assert.deepEqual(approvalish, ["list_approvals"]);
    // No copilot source reaches a function that decides a request, nor the route that does.
    for (const [path, text] of await copilotSources()) {
      assert.doesNotMatch(text, /decideApproval|decidePending|\/api\/approvals/, path);
    }
  });

  await t.step("a run the copilot started is named to the chat; the copilot lists it", async () => {
    const res = await send("run the writer");
    const sse = new SseReader(res);
    const frames = await sse.until((f) => f.event === "target_run", "target_run");
    const target = frames.at(-1)!.data;
    assert.equal(target.harness_id, "writer");
    assert.equal(target.run_id, frames[0]!.data.run_id, "run_id is the copilot run's");
    const pending: Json[] = await until(async () => {
      const listed = (await workbenchCall(wb, "GET", "/api/approvals?status=pending")).json.data;
      return listed.approvals.length ? listed.approvals : null;
    }, "the copilot's run's request");
    assert.equal(pending[0].run_id, target.target_run_id);
    // A page opened mid-turn reads the turn's target runs from the conversation.
    const view = (await workbenchCall(wb, "GET", `/api/conversations/${conv}`)).json.data;
    assert.deepEqual(view.turn_runs, [{ run_id: target.target_run_id, harness_id: "writer" }]);

    // Meanwhile (the copilot's tool waits for the run) the copilot lists the request, and only
    // lists it: it stays pending.
    const other = (await workbenchCall(wb, "POST", "/api/conversations", {
      harness_id: "writer",
    })).json.data.id;
    const listed = await fetch(`${wb.url}/api/conversations/${other}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "what waits?" }),
    });
    const turn = await new SseReader(listed).rest();
    const result = turn.find((f) => f.event === "trace" && f.data.type === "tool_result")!.data
      .payload;
    assert.equal(result.ok, true, JSON.stringify(result));
    const answer = JSON.parse(result.content);
    assert.equal(answer.harness_id, "writer");
    assert.deepEqual(answer.approvals.map((a: Json) => [a.approval_id, a.status]), [
      [pending[0].approval_id, "pending"],
    ]);
    const still = await workbenchCall(wb, "GET", `/api/approvals/${pending[0].approval_id}`);
    assert.equal(still.json.data.status, "pending");

    const ok = await decide(wb, pending[0].approval_id, {
      decision: "approve",
      arguments_hash: pending[0].arguments_hash,
    });
    assert.equal(ok.status, 200);
    const rest = await sse.rest();
    await sse.close();
    const message = rest.find((f) => f.event === "message")!.data.message;
    assert.equal(message.content, "The run is done.");
    assert.equal(await Deno.readTextFile(join(dir, "workspace/out.txt")), "new text\n");
    const after = (await workbenchCall(wb, "GET", `/api/conversations/${conv}`)).json.data;
    assert.deepEqual(after.turn_runs, []);
  });
});
