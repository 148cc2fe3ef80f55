/**
 * Tool approvals on a real control plane: a call of an `approvals.tools` tool waits for a person —
 * approved, it runs with the arguments shown; denied or expired, the model reads a tool error and the
 * run goes on; a decision quoting another hash is 409 and changes nothing, a second decision is 409,
 * the key that started the run is 403 while another mutate key decides; runs waiting do not hold a
 * slot (20 waiting never block a 21st run); and a control plane killed with SIGKILL while a run waits
 * finds the request still pending after a restart, and approving it takes the run up again from its
 * journal — nothing of the prefix runs twice, the approved write happens once.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { approvalHarness as harness } from "../helpers/approval_harness.ts";
import { SseReader } from "../helpers/sse_reader.ts";
import { tempDir } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const SERVER_ENV = { FRAMEWORK_AUTHORIZED_KEYS: "" };

async function call(
  url: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

/** Starts a run over SSE and waits for its approval request. */
async function runUntilRequest(url: string, token: string, input = "write it") {
  const res = await fetch(`${url}/run?stream=true`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ input }),
  });
  const sse = new SseReader(res);
  const frames = await sse.until(
    (f) => f.event === "trace" && f.data.type === "approval_requested",
    "approval_requested",
  );
  const runId = frames[0]!.data.run_id as string;
  return { sse, runId, request: frames.at(-1)!.data.payload };
}

async function text(path: string): Promise<string | null> {
  return await Deno.readTextFile(path).catch(() => null);
}

Deno.test("approvals on the control plane: approve, deny, expire, hash, once, own key", async (t) => {
  await using home = await tempDir("fw-apr-home-");
  await using root = await tempDir();
  const dir = await harness(root.path, "writer");
  const alice = await memberToken(dir, home.path, "alice", ["run", "read", "mutate"]);
  const bob = await memberToken(dir, home.path, "bob", ["read", "mutate"]);
  const reader = await memberToken(dir, home.path, "reader", ["read"]);
  await using plane = await startControlPlane(dir, { home: home.path, env: SERVER_ENV });
  const out = join(dir, "workspace", "out.txt");

  await t.step("approved: the call runs with the arguments shown, once", async () => {
    const { sse, runId, request } = await runUntilRequest(plane.url, alice.token);
    try {
      assert.match(request.approval_id, /^apr_[0-9A-Z]{26}$/);
      assert.equal(request.tool, "file_write");
      assert.deepEqual(request.arguments, { path: "workspace/out.txt", content: "approved!" });
      assert.match(request.arguments_hash, /^[0-9a-f]{64}$/);
      const path = `/approvals/${request.approval_id}`;
      const listed = await call(plane.url, "GET", "/approvals?status=pending", reader.token);
      assert.deepEqual(listed.json.data.approvals.map((a: Json) => a.approval_id), [
        request.approval_id,
      ]);
      assert.equal(await text(out), null, "nothing written while it waits");
      // The key that started the run may not decide it.
      const own = await call(plane.url, "POST", path, alice.token, {
        decision: "approve",
        arguments_hash: request.arguments_hash,
      });
      assert.equal(own.status, 403, JSON.stringify(own.json));
      // A decision must quote the hash it was shown: another is 409, and nothing changes.
      const wrong = await call(plane.url, "POST", path, bob.token, {
        decision: "approve",
        arguments_hash: "0".repeat(64),
      });
      assert.equal(wrong.status, 409);
      assert.equal((await call(plane.url, "GET", path, reader.token)).json.data.status, "pending");
      // Reading does not decide.
      assert.equal(
        (await call(plane.url, "POST", path, reader.token, {
          decision: "approve",
          arguments_hash: request.arguments_hash,
        })).status,
        403,
      );
      const ok = await call(plane.url, "POST", path, bob.token, {
        decision: "approve",
        arguments_hash: request.arguments_hash,
        reason: "looks right",
      });
      assert.equal(ok.status, 200, JSON.stringify(ok.json));
      assert.equal(ok.json.data.status, "approved");
      assert.equal(ok.json.data.decided_by, bob.key_id);
      assert.equal(ok.json.data.requested_by, alice.key_id);
      const again = await call(plane.url, "POST", path, bob.token, {
        decision: "deny",
        arguments_hash: request.arguments_hash,
      });
      assert.equal(again.status, 409, "a decision is made once");
      const result = (await sse.rest()).find((f) => f.event === "run_result")!.data;
      assert.equal(result.status, "success", JSON.stringify(result));
      assert.equal(await text(out), "approved!");
      const events = (await call(plane.url, "GET", `/trace/${runId}`, reader.token)).json.data
        .events;
      const types = events.map((e: Json) => e.type);
      const at = types.indexOf("approval_requested");
      assert.deepEqual(types.slice(at, at + 4), [
        "approval_requested",
        "approval_decided",
        "tool_call",
        "tool_result",
      ]);
      // The call that needed no approval ran first.
      assert.equal(events[at - 1].payload.name, "tally");
      assert.deepEqual(events[at + 1].payload, {
        approval_id: request.approval_id,
        decision: "approved",
        by: bob.key_id,
        reason: "looks right",
        arguments_hash: request.arguments_hash,
      });
    } finally {
      await sse.close();
    }
  });

  await t.step("denied: the model reads why, and the run goes on", async () => {
    await Deno.remove(out);
    const { sse, request } = await runUntilRequest(plane.url, alice.token);
    try {
      const denied = await call(plane.url, "POST", `/approvals/${request.approval_id}`, bob.token, {
        decision: "deny",
        arguments_hash: request.arguments_hash,
        reason: "not that file",
      });
      assert.equal(denied.json.data.status, "denied");
      const frames = await sse.rest();
      const result = frames.find((f) => f.event === "run_result")!.data;
      assert.equal(result.status, "success");
      const refused = frames.find((f) =>
        f.event === "trace" && f.data.type === "tool_result" &&
        f.data.payload.name === "file_write"
      )!.data.payload;
      assert.equal(refused.ok, false);
      assert.equal(refused.error.message, "denied by a person: not that file");
      assert.equal(await text(out), null, "nothing was written");
    } finally {
      await sse.close();
    }
  });

  await t.step("decided requests are listed apart", async () => {
    const decided = (await call(plane.url, "GET", "/approvals?status=decided", reader.token)).json
      .data.approvals;
    assert.deepEqual(decided.map((a: Json) => a.status).sort(), ["approved", "denied"]);
    const bad = await call(plane.url, "GET", "/approvals?status=later", reader.token);
    assert.equal(bad.status, 400);
  });

  await t.step("the approvals root is frozen over HTTP, even for a * key", async () => {
    const admin = await memberToken(dir, home.path, "admin", ["*"]);
    const before = await Deno.readTextFile(join(dir, "harness.yaml"));
    for (
      const [path, body] of [
        ["/set", { path: "approvals", value: { tools: [] } }],
        ["/set", { path: "approvals.tools", value: ["nothing"] }],
        ["/set", { path: "approvals.timeout_s", value: 1 }],
        ["/remove", { path: "approvals" }],
      ] as const
    ) {
      const res = await call(plane.url, "POST", path, admin.token, body);
      assert.equal(res.status, 403, `${path} ${JSON.stringify(body)}: ${JSON.stringify(res.json)}`);
    }
    assert.equal(await Deno.readTextFile(join(dir, "harness.yaml")), before);
  });
});

Deno.test("approvals: an unanswered request expires; the model reads it", async () => {
  await using home = await tempDir("fw-apx-home-");
  await using root = await tempDir();
  const dir = await harness(root.path, "hasty", 1);
  const alice = await memberToken(dir, home.path, "alice", ["run", "read"]);
  await using plane = await startControlPlane(dir, { home: home.path, env: SERVER_ENV });
  const { sse, request } = await runUntilRequest(plane.url, alice.token);
  try {
    const frames = await sse.rest();
    const decided = frames.find((f) => f.event === "trace" && f.data.type === "approval_decided")!
      .data.payload;
    assert.equal(decided.decision, "expired");
    assert.equal(decided.by, "framework");
    assert.equal(frames.find((f) => f.event === "run_result")!.data.status, "success");
    const record = await call(plane.url, "GET", `/approvals/${request.approval_id}`, alice.token);
    assert.equal(record.json.data.status, "expired");
    assert.equal(await text(join(dir, "workspace", "out.txt")), null);
  } finally {
    await sse.close();
  }
});

Deno.test("approvals: 20 runs waiting never block a 21st run from its slot", async () => {
  await using home = await tempDir("fw-apw-home-");
  await using root = await tempDir();
  const dir = await harness(root.path, "busy");
  const alice = await memberToken(dir, home.path, "alice", ["run", "read", "mutate"]);
  await using plane = await startControlPlane(dir, {
    home: home.path,
    args: ["--max-concurrent-runs", "1", "--max-queued-runs", "25", "--max-waiting-runs", "20"],
    env: SERVER_ENV,
  });
  const waiting = [];
  try {
    for (let i = 0; i < 20; i++) waiting.push(await runUntilRequest(plane.url, alice.token));
    const pending = (await call(plane.url, "GET", "/approvals?status=pending", alice.token)).json
      .data.approvals;
    assert.equal(pending.length, 20);
    // One slot, twenty runs waiting without it: an ordinary run still gets the slot and ends.
    const plain = await call(plane.url, "POST", "/run", alice.token, { input: "plain, please" });
    assert.equal(plain.status, 200, JSON.stringify(plain.json));
    assert.equal(plain.json.data.output, "plain answer");
    // A 21st waiting run is over the bound: its request is denied at once, and it goes on.
    const over = await call(plane.url, "POST", "/run", alice.token, { input: "write more" });
    assert.equal(over.json.data.status, "success");
    const trace = (await call(plane.url, "GET", `/trace/${over.json.data.run_id}`, alice.token))
      .json.data.events;
    const decided = trace.find((e: Json) => e.type === "approval_decided").payload;
    assert.deepEqual([decided.decision, decided.reason], [
      "denied",
      "too many runs waiting (at most 20 at once)",
    ]);
  } finally {
    for (const w of waiting) await w.sse.close();
  }
});

Deno.test("approvals survive a SIGKILL: the restarted control plane takes the run up on approval", async () => {
  await using home = await tempDir("fw-apk-home-");
  await using root = await tempDir();
  const dir = await harness(root.path, "durable");
  const alice = await memberToken(dir, home.path, "alice", ["run", "read"]);
  const bob = await memberToken(dir, home.path, "bob", ["read", "mutate"]);
  const first = await startControlPlane(dir, { home: home.path, env: SERVER_ENV });
  const { sse, runId, request } = await runUntilRequest(first.url, alice.token);
  Deno.kill(first.pid, "SIGKILL");
  await sse.close();
  await first.stop();
  assert.equal(await text(join(dir, "workspace", "tally.txt")), "counted\n");

  await using second = await startControlPlane(dir, { home: home.path, env: SERVER_ENV });
  const path = `/approvals/${request.approval_id}`;
  const still = await call(second.url, "GET", path, bob.token);
  assert.equal(still.json.data.status, "pending", "the request survived the process");
  const stopped = (await call(second.url, "GET", `/trace/${runId}`, bob.token)).json.data;
  assert.equal(stopped.status, "error");
  const decision = await call(second.url, "POST", path, bob.token, {
    decision: "approve",
    arguments_hash: request.arguments_hash,
  });
  assert.equal(decision.status, 200, JSON.stringify(decision.json));
  const resumedId = decision.json.data.resumed_run_id;
  assert.match(resumedId, /^run_/);
  let resumed: Json = { status: "running" };
  while (resumed.status === "running") {
    await new Promise((r) => setTimeout(r, 50));
    resumed = (await call(second.url, "GET", `/trace/${resumedId}`, bob.token)).json.data;
  }
  assert.equal(resumed.status, "success", JSON.stringify(resumed.events.at(-1)));
  assert.equal(resumed.integrity.ok, true);
  // Nothing of the prefix ran again: the count is still one; the approved write happened once.
  assert.equal(await text(join(dir, "workspace", "tally.txt")), "counted\n");
  assert.equal(await text(join(dir, "workspace", "out.txt")), "approved!");
  const types = resumed.events.map((e: Json) => e.type);
  assert.equal(types[0], "run_resumed");
  assert.deepEqual(resumed.events[0].payload.approval_id, request.approval_id);
  assert.equal(resumed.events[0].payload.parent_run_id, runId);
  const live = types.slice(types.lastIndexOf("replayed") + 1);
  assert.deepEqual(live, [
    "run_started",
    "approval_decided",
    "tool_call",
    "tool_result",
    "model_call",
    "model_response",
    "run_finished",
  ]);
  assert.equal(
    types.filter((t: string) => t === "tool_call").length,
    1,
    "only the approved call ran",
  );
  const parent = parseJournal(
    await Deno.readFile(join(dir, ".framework", "traces", `${runId}.jsonl`)),
  );
  assert.equal(
    verifyJournal(await Deno.readFile(join(dir, ".framework", "traces", `${runId}.jsonl`))).ok,
    true,
  );
  assert.equal(
    resumed.events.filter((e: Json) => e.type === "replayed").length,
    parent.findIndex((e) => e.type === "approval_requested") + 1,
  );
  const record = (await call(second.url, "GET", path, bob.token)).json.data;
  assert.equal(record.resumed_run_id, resumedId);
});

Deno.test("approvals: a control plane stopped (SIGTERM) while a run waits ends it interrupted, its request pending", async () => {
  await using home = await tempDir("fw-apt-home-");
  await using root = await tempDir();
  const dir = await harness(root.path, "patient");
  const alice = await memberToken(dir, home.path, "alice", ["run", "read"]);
  const plane = await startControlPlane(dir, { home: home.path, env: SERVER_ENV });
  const { sse, runId, request } = await runUntilRequest(plane.url, alice.token);
  // A waiting run is not working: the shutdown does not wait its grace period for it.
  assert.equal(await plane.stop(), 0);
  const frames = await sse.rest();
  await sse.close();
  const result = frames.find((f) => f.event === "run_result")?.data;
  assert.equal(result?.status, "error");
  assert.equal(result?.error.reason, "interrupted_awaiting_approval");
  await using again = await startControlPlane(dir, { home: home.path, env: SERVER_ENV });
  const record = await call(again.url, "GET", `/approvals/${request.approval_id}`, alice.token);
  assert.equal(record.json.data.status, "pending");
  assert.equal(record.json.data.run_id, runId);
});
