/**
 * Threads on a real control plane, with two keys and an admin: a second turn is given the first
 * (input and answer) in its first model call; another key's thread is 404 and missing from its list
 * while `*` sees it; a message to a busy thread is refused (409 naming the run), steers that run
 * (`steering_delivered` in its journal) or runs after it; deleting a thread keeps its runs and
 * journals. And the CLI: `framework run --thread new|ID` and `framework threads`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { verifyJournal } from "../../lib/journal/verify.ts";
import { runCli } from "../helpers/cli.ts";
import { jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { SseReader } from "../helpers/sse_reader.ts";
import { tempDir } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const SERVER_ENV = { FRAMEWORK_AUTHORIZED_KEYS: "" };

/** A scripted model that answers by the input's first word; `slow…` takes its time. */
function model() {
  return scripted([{ text: "I only know one, two and slow." }], {
    scenarios: [
      { match: "^one", replies: [{ text: "Answer one." }] },
      { match: "^two", replies: [{ text: "Answer two." }] },
      {
        match: "^slow",
        replies: [{ text: "Slow answer.", delay_ms: 1500 }, { text: "Steered answer." }],
      },
    ],
  });
}

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

Deno.test("threads on the control plane: turns, owners, busy policies, delete", async (t) => {
  await using home = await tempDir("fw-thr-home-");
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "talker", { model: model() });
  const alice = await memberToken(dir, home.path, "alice", ["run", "read", "mutate"]);
  const bob = await memberToken(dir, home.path, "bob", ["run", "read"]);
  const admin = await memberToken(dir, home.path, "admin", ["*"]);
  await using plane = await startControlPlane(dir, {
    home: home.path,
    args: ["--max-concurrent-runs", "2"],
    env: SERVER_ENV,
  });
  const as = (who: { token: string }) => (method: string, path: string, body?: unknown) =>
    call(plane.url, method, path, who.token, body);
  const a = as(alice), b = as(bob), root_ = as(admin);

  const made = await a("POST", "/threads", { metadata: { customer: "c-42" } });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const thread = made.json.data;
  assert.match(thread.thread_id, /^thr_[0-9A-Z]{26}$/);
  assert.equal(thread.owner, alice.key_id);
  assert.deepEqual(thread.metadata, { customer: "c-42" });
  const path = `/threads/${thread.thread_id}`;
  let first: Json, second: Json;

  await t.step("two turns: the second's first model call holds the first turn", async () => {
    first = (await a("POST", `${path}/run`, { input: "one: hello" })).json.data;
    assert.equal(first.status, "success");
    assert.equal(first.thread_id, thread.thread_id);
    second = (await a("POST", `${path}/run`, { input: "two: and now?" })).json.data;
    assert.equal(second.output, "Answer two.");
    const trace = (await a("GET", `/trace/${second.run_id}`)).json.data;
    const started = trace.events.find((e: Json) => e.type === "run_started");
    assert.equal(started.payload.thread_id, thread.thread_id);
    const call1 = trace.events.find((e: Json) => e.type === "model_call");
    assert.deepEqual(call1.payload.append, [
      { role: "user", content: "one: hello" },
      { role: "assistant", content: "Answer one." },
      { role: "user", content: "two: and now?" },
    ]);
    const shown = (await a("GET", path)).json.data;
    assert.equal(shown.turns, 2);
    assert.deepEqual(
      shown.runs.map((r: Json) => [r.run_id, r.status, r.input, r.output]),
      [
        [first.run_id, "success", "one: hello", "Answer one."],
        [second.run_id, "success", "two: and now?", "Answer two."],
      ],
    );
  });

  await t.step("another key: 404 and not listed; * sees it", async () => {
    const hidden = await b("GET", path);
    assert.equal(hidden.status, 404);
    assert.equal(hidden.json.error.kind, "not_found");
    assert.equal((await b("POST", `${path}/run`, { input: "one" })).status, 404);
    const own = await b("POST", "/threads", {});
    const listed = (await b("GET", "/threads")).json.data.threads.map((x: Json) => x.thread_id);
    assert.deepEqual(listed, [own.json.data.thread_id]);
    const all = (await root_("GET", "/threads")).json.data.threads.map((x: Json) => x.thread_id);
    assert.deepEqual(all.sort(), [own.json.data.thread_id, thread.thread_id].sort());
    assert.equal((await root_("GET", path)).status, 200);
    // Deleting needs mutate: bob's token cannot, even his own thread's.
    assert.equal((await b("DELETE", `/threads/${own.json.data.thread_id}`)).status, 403);
  });

  /** Starts a slow turn over SSE and waits until it runs. */
  const slowTurn = async () => {
    const res = await fetch(`${plane.url}${path}/run?stream=true`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
      body: JSON.stringify({ input: "slow: take your time" }),
    });
    const sse = new SseReader(res);
    const [accepted] = await sse.until(() => true, "run_accepted");
    assert.equal(accepted!.data.thread_id, thread.thread_id);
    await sse.until((f) => f.event === "trace" && f.data.type === "model_call", "model call");
    return { sse, runId: accepted!.data.run_id as string };
  };

  await t.step("busy=reject (the default): 409 naming the live run", async () => {
    const { sse, runId } = await slowTurn();
    try {
      const busy = await a("POST", `${path}/run`, { input: "one" });
      assert.equal(busy.status, 409, JSON.stringify(busy.json));
      assert.equal(busy.json.error.kind, "conflict");
      assert.equal(busy.json.error.details.run_id, runId);
      assert.equal((await a("GET", path)).json.data.live_run_id, runId);
      await sse.rest();
    } finally {
      await sse.close();
    }
  });

  await t.step("busy=steer: the text reaches the live run at its next boundary", async () => {
    const { sse, runId } = await slowTurn();
    try {
      const steered = await a("POST", `${path}/run?busy=steer`, { input: "Be brief." });
      assert.equal(steered.status, 202, JSON.stringify(steered.json));
      assert.equal(steered.json.data.run_id, runId);
      assert.match(steered.json.data.message_id, /^msg_/);
      const result = (await sse.rest()).find((f) => f.event === "run_result")!.data;
      assert.equal(result.output, "Steered answer.");
      const events = (await a("GET", `/trace/${runId}`)).json.data.events;
      const delivered = events.filter((e: Json) => e.type === "steering_delivered");
      assert.deepEqual(delivered.map((e: Json) => e.payload.text), ["Be brief."]);
    } finally {
      await sse.close();
    }
  });

  await t.step(
    "busy=queue: the message runs after the live run, with it in its history",
    async () => {
      const { sse, runId } = await slowTurn();
      try {
        const queued = await a("POST", `${path}/run?busy=queue`, { input: "one: again" });
        assert.equal(queued.status, 200, JSON.stringify(queued.json));
        const slow = (await a("GET", `/trace/${runId}`)).json.data;
        const finished = slow.events.find((e: Json) => e.type === "run_finished").payload;
        assert.ok(
          queued.json.data.started_at >= finished.ended_at,
          "it started after the live run",
        );
        const trace = (await a("GET", `/trace/${queued.json.data.run_id}`)).json.data;
        const append = trace.events.find((e: Json) => e.type === "model_call").payload.append;
        assert.deepEqual(append.slice(-3), [
          { role: "user", content: "slow: take your time" },
          { role: "assistant", content: "Slow answer." },
          { role: "user", content: "one: again" },
        ]);
        await sse.rest();
      } finally {
        await sse.close();
      }
    },
  );

  await t.step("delete keeps the runs and their journals", async () => {
    assert.equal((await root_("DELETE", path)).json.data.deleted, true);
    assert.equal((await a("GET", path)).status, 404);
    for (const run of [first, second]) {
      const trace = await a("GET", `/trace/${run.run_id}`);
      assert.equal(trace.status, 200);
      assert.equal(trace.json.data.integrity.ok, true);
    }
    const journal = await Deno.readFile(`${dir}/.framework/traces/${first.run_id}.jsonl`);
    assert.equal(verifyJournal(journal).ok, true);
  });

  await t.step("bad input: metadata over 16 KiB, an unknown busy policy", async () => {
    const big = await a("POST", "/threads", { metadata: { blob: "x".repeat(17 * 1024) } });
    assert.equal(big.status, 400);
    assert.match(big.json.error.message, /16 KiB/);
    const other = (await a("POST", "/threads", {})).json.data.thread_id;
    const bad = await a("POST", `/threads/${other}/run?busy=later`, { input: "one" });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error.message, /busy=reject/);
  });
});

Deno.test("framework run --thread and framework threads", async () => {
  await using home = await tempDir("fw-thc-home-");
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "talker", { model: model() });
  const cli = (args: string[]) => runCli(args, { home: home.path });
  const one = jsonOk(
    await cli(["run", dir, "--thread", "new", "--input", "one: hi", "--approve", "--json"]),
  );
  assert.match(one.thread_id, /^thr_/);
  const two = jsonOk(
    await cli(["run", dir, "--thread", one.thread_id, "--input", "two: again", "--json"]),
  );
  assert.equal(two.thread_id, one.thread_id);
  const listed = jsonOk(await cli(["threads", dir, "--json"]));
  assert.deepEqual(listed.threads.map((t: Json) => [t.thread_id, t.turns, t.owner]), [
    [one.thread_id, 2, "cli"],
  ]);
  const shown = jsonOk(await cli(["threads", dir, "show", one.thread_id, "--json"]));
  assert.deepEqual(shown.runs.map((r: Json) => r.output), ["Answer one.", "Answer two."]);
  const human = await cli(["threads", dir, "show", one.thread_id]);
  assert.match(human.stdout, /> two: again\nAnswer two\./);
  jsonError(
    await cli(["run", dir, "--thread", "thr_nope", "--input", "x", "--json"]),
    "not_found",
    2,
  );
  jsonError(
    await cli(["run", dir, "--thread", one.thread_id, "--busy", "maybe", "--input", "x", "--json"]),
    "bad_input",
    2,
  );
  assert.equal(
    jsonOk(await cli(["threads", dir, "delete", one.thread_id, "--json"])).deleted,
    true,
  );
  jsonError(await cli(["threads", dir, "show", one.thread_id, "--json"]), "not_found", 2);
});
