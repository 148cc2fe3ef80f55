/**
 * The workbench end to end through the real `framework workbench` process and its launcher: a whole
 * offline copilot conversation (create, validate, run, diagnose, remember, propose) that survives a
 * restart; target runs that never see the copilot's words; request-owned selection under concurrent
 * chats; access rules of the launcher and the private API; failed creations that leave nothing
 * behind; and the chat without a copilot model.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { closeHives, openHive } from "../../lib/hive/open.ts";
import { getRun, getRunAnyHarness } from "../../lib/hive/runs.ts";
import { parseJournal } from "../../lib/journal/verify.ts";
import { setFrameworkHome } from "../../lib/paths.ts";
import { tempDir } from "../helpers/temp.ts";
import {
  type RunningWorkbenchProcess,
  startWorkbenchProcess,
  workbenchCall,
} from "../helpers/workbench.ts";
import { byId } from "../helpers/hive.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

interface Frame {
  event: string;
  data: Json;
}

/** A copilot script: one scenario per chat message, chosen by a marker word in the message. */
function copilotScript(scenarios: { match: string; replies: Json[] }[]): string {
  // JSON is YAML.
  return JSON.stringify({ scenarios });
}

async function writeScript(dir: string, scenarios: { match: string; replies: Json[] }[]) {
  const path = join(dir, "copilot-script.yaml");
  await Deno.writeTextFile(path, copilotScript(scenarios));
  return path;
}

const call = workbenchCall;

async function readSse(res: Response): Promise<Frame[]> {
  const text = await res.text();
  const frames: Frame[] = [];
  for (const block of text.split("\n\n")) {
    if (!block.trim() || block.startsWith(":")) continue;
    const frame: Frame = { event: "message", data: undefined };
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) frame.event = line.slice(7);
      else if (line.startsWith("data: ")) frame.data = JSON.parse(line.slice(6));
    }
    frames.push(frame);
  }
  return frames;
}

async function newConversation(wb: RunningWorkbenchProcess): Promise<string> {
  const { status, json } = await call(wb, "POST", "/api/conversations", {});
  assert.equal(status, 201, JSON.stringify(json));
  return json.data.id;
}

/** Sends one chat message and reads every frame of the turn. */
async function chat(
  wb: RunningWorkbenchProcess,
  conversationId: string,
  message: string,
  selection?: { harness_id?: string | null; run_id?: string | null },
): Promise<Frame[]> {
  const res = await fetch(`${wb.url}/api/conversations/${conversationId}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message, ...(selection ? { selection } : {}) }),
  });
  if (res.status !== 200) {
    const text = await res.text();
    assert.fail(`chat answered ${res.status}: ${text}`);
  }
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  return await readSse(res);
}

/** Checks the shape of a copilot turn and returns its run id, message and result. */
function turnOf(frames: Frame[]): { runId: string; message: Json; selection: Json; result: Json } {
  const events = frames.map((f) => f.event);
  assert.equal(events[0], "run_accepted", `frames: ${events.join(",")}`);
  const runId = frames[0]!.data.run_id;
  assert.match(runId, /^run_[0-9A-Z]{26}$/);
  assert.equal(events.at(-1), "run_result", `frames: ${events.join(",")}`);
  assert.equal(events.at(-2), "message", `frames: ${events.join(",")}`);
  assert.equal(events.filter((e) => e === "message").length, 1);
  assert.ok(
    events.slice(1, -2).every((e) => e === "trace" || e === "delta" || e === "target_run"),
    `only trace, delta and target_run frames in between: ${events.join(",")}`,
  );
  const traces = frames.filter((f) => f.event === "trace");
  assert.ok(traces.length > 0, "the copilot's journal events are streamed");
  assert.ok(traces.every((f) => f.data.run_id === runId));
  // The live text of each turn adds up to the journalled model_response of that turn.
  const deltas = frames.filter((f) => f.event === "delta");
  assert.ok(deltas.every((f) => f.data.run_id === runId));
  for (const r of traces.filter((f) => f.data.type === "model_response")) {
    const live = deltas.filter((d) => d.data.turn === r.data.payload.turn).map((d) => d.data.text);
    assert.equal(live.join(""), r.data.payload.text, `turn ${r.data.payload.turn} streamed`);
  }
  const { message, selection } = frames.at(-2)!.data;
  assert.equal(message.role, "assistant");
  assert.equal(message.run_id, runId, "the stored message names the copilot run");
  const result = frames.at(-1)!.data.result;
  assert.equal(result.run_id, runId);
  return { runId, message, selection, result };
}

/** The single tool part of a copilot message. */
function toolPart(message: Json, name: string): Json {
  const parts = message.parts.filter((p: Json) => p.type === "tool");
  assert.equal(parts.length, 1, JSON.stringify(message.parts));
  assert.equal(parts[0].name, name);
  return parts[0];
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/** Reads the hive of `home` from this test process. */
function withHive<T>(home: string, fn: (hive: ReturnType<typeof openHive>) => T): T {
  setFrameworkHome(home);
  try {
    return fn(openHive());
  } finally {
    closeHives();
    setFrameworkHome(undefined);
  }
}

/** Sends a raw HTTP/1.1 request (so the Host header is exactly the one given). */
async function rawRequest(
  port: number,
  host: string,
  path: string,
  cookie?: string,
): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const extra = cookie ? `Cookie: ${cookie}\r\n` : "";
    await conn.write(
      new TextEncoder().encode(
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\n${extra}Connection: close\r\n\r\n`,
      ),
    );
    let text = "";
    const buf = new Uint8Array(4096);
    const decoder = new TextDecoder();
    while (true) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += decoder.decode(buf.subarray(0, n), { stream: true });
    }
    const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
    assert.ok(status, `an HTTP answer: ${text.slice(0, 200)}`);
    return Number(status);
  } finally {
    conn.close();
  }
}

async function waitFor(check: () => boolean, what: string, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

// ---------------------------------------------------------------------------------------------------

const TARGET_INPUT = "I want a refund for order 42";
const FACT = "Refunds above 100 EUR need a manager's approval";
const OBJECTIVE = "Ask for the order number before promising a refund";

/** The conversation of test 1: marker words in every user message and every copilot reply. */
const CONVERSATION = [
  {
    say: "PELICANUSER create a refunds harness for me",
    match: "PELICANUSER",
    tool: {
      name: "create_harness",
      arguments: {
        id: "refunds",
        name: "Refunds",
        instructions: "You handle refund requests politely.",
      },
    },
    reply: "PELICANREPLY created refunds",
  },
  {
    say: "WALRUSUSER validate it please",
    match: "WALRUSUSER",
    tool: { name: "validate_harness", arguments: {} },
    reply: "WALRUSREPLY it is valid",
  },
  {
    say: "OCELOTUSER now run it with a refund question",
    match: "OCELOTUSER",
    tool: { name: "execute_run", arguments: { input: TARGET_INPUT } },
    reply: "OCELOTREPLY the run finished",
  },
  {
    say: "NARWHALUSER diagnose that run",
    match: "NARWHALUSER",
    tool: { name: "diagnose_run", arguments: {} },
    reply: "NARWHALREPLY the run looks healthy",
  },
  {
    say: "MARMOTUSER remember that big refunds need a manager",
    match: "MARMOTUSER",
    tool: { name: "remember_memory", arguments: { content: FACT, scope: "global" } },
    reply: "MARMOTREPLY remembered",
  },
  {
    say: "TAPIRUSER propose an improvement",
    match: "TAPIRUSER",
    tool: { name: "propose_improvement", arguments: { objective: OBJECTIVE } },
    reply: "TAPIRREPLY a proposal is queued for your review",
  },
];
const MARKERS = CONVERSATION.flatMap((t) => [t.match, t.reply.split(" ")[0]!]);

Deno.test("workbench: a whole offline copilot conversation, kept apart from the target run, resumes after a restart", async (t) => {
  await using home = await tempDir("fw-wb-home-");
  await using cwd = await tempDir("fw-wb-cwd-");
  await using scripts = await tempDir("fw-wb-script-");
  const script = await writeScript(
    scripts.path,
    CONVERSATION.map((c) => ({
      match: c.match,
      replies: [{ tool_calls: [c.tool] }, { text: c.reply }],
    })),
  );
  const env = { FRAMEWORK_COPILOT_MODEL: `scripted:${script}` };
  let conversationId = "";
  let targetRunId = "";
  const copilotRunIds: string[] = [];
  const replies: Json[] = [];

  {
    await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path, env });
    assert.equal(wb.copilot, "scripted:copilot-script");

    await t.step("six chat turns: create, validate, run, diagnose, remember, propose", async () => {
      conversationId = await newConversation(wb);
      for (const turn of CONVERSATION) {
        const frames = await chat(wb, conversationId, turn.say);
        const { runId, message, selection, result } = turnOf(frames);
        copilotRunIds.push(runId);
        replies.push(message);
        assert.equal(result.status, "success", JSON.stringify(result));
        assert.equal(message.content, turn.reply);
        assert.equal(result.output, turn.reply);
        const part = toolPart(message, turn.tool.name);
        assert.equal(part.ok, true, `${turn.tool.name}: ${part.result}`);
        const out = JSON.parse(part.result);
        switch (turn.tool.name) {
          case "create_harness":
            assert.equal(out.created, "refunds");
            assert.equal(out.dir, join(cwd.path, "harnesses", "refunds"));
            assert.deepEqual(selection, { harness_id: "refunds", run_id: null });
            break;
          case "validate_harness":
            assert.equal(out.id, "refunds");
            assert.equal(out.valid, true, JSON.stringify(out));
            break;
          case "execute_run":
            assert.equal(out.harness_id, "refunds");
            assert.equal(out.status, "success", JSON.stringify(out));
            assert.match(out.run_id, /^run_[0-9A-Z]{26}$/);
            assert.notEqual(out.run_id, runId, "the target run is not the copilot's run");
            targetRunId = out.run_id;
            assert.deepEqual(selection, { harness_id: "refunds", run_id: targetRunId });
            // The chat was told of the target run as it started (its approval card needs it).
            assert.deepEqual(
              frames.filter((f) => f.event === "target_run").map((f) => f.data),
              [{ run_id: runId, target_run_id: targetRunId, harness_id: "refunds" }],
            );
            break;
          case "diagnose_run":
            assert.equal(out.run_id, targetRunId);
            assert.equal(out.harness_id, "refunds");
            assert.equal(out.status, "success");
            assert.equal(out.integrity.ok, true);
            break;
          case "remember_memory":
            assert.match(out.remembered, /^mem_/);
            assert.equal(out.scope, "global");
            break;
          case "propose_improvement":
            assert.equal(out.status, "queued");
            assert.match(out.note, /nothing was applied/);
            break;
        }
        if (turn.tool.name !== "create_harness" && turn.tool.name !== "execute_run") {
          assert.equal(
            selection.harness_id,
            "refunds",
            "the conversation's selection carries over",
          );
        }
      }
    });

    await t.step(
      "the harness folder, the runs in the hive, the memory and the queued proposal",
      async () => {
        const dir = join(cwd.path, "harnesses", "refunds");
        assert.ok(await exists(join(dir, "harness.yaml")));
        const yaml = await Deno.readTextFile(join(dir, "harness.yaml"));
        assert.match(yaml, /^id: refunds$/m);
        assert.match(yaml, /You handle refund requests politely\./);

        const { status, json } = await call(wb, "GET", "/api/harnesses");
        assert.equal(status, 200);
        assert.ok(json.data.harnesses.some((h: Json) => h.id === "refunds" && h.root_path === dir));

        withHive(home.path, (hive) => {
          const row = getRun(hive, byId("refunds", hive), targetRunId);
          assert.ok(row, "the target run is in the hive under the target harness");
          assert.equal(row.harness_id, "refunds");
          assert.equal(row.status, "success");
          for (const id of copilotRunIds) {
            assert.equal(
              getRun(hive, byId("refunds", hive), id),
              undefined,
              "copilot runs are not the target's",
            );
            assert.equal(getRunAnyHarness(hive, id)?.harness_id, "workbench-copilot");
          }
        });
        const runs = await call(wb, "GET", "/api/harnesses/refunds/runs");
        assert.equal(runs.status, 200);
        assert.deepEqual(runs.json.data.runs.map((r: Json) => r.run_id), [targetRunId]);
        // The copilot's own runs are not shown as runs (their journals hold its prompt).
        for (const path of ["", "/context?seq=2", "/export", "/events"]) {
          const res = await fetch(`${wb.url}/api/runs/${copilotRunIds[0]}${path}`);
          assert.equal(res.status, 404, `copilot run ${path || "/"}`);
          assert.equal((await res.json()).error.kind, "not_found");
        }

        for (const query of ["", "?scope=global"]) {
          const m = await call(wb, "GET", `/api/memories${query}`);
          assert.equal(m.status, 200);
          const found = m.json.data.memories.filter((x: Json) => x.content === FACT);
          assert.equal(found.length, 1, `memory listed by /api/memories${query}`);
          assert.equal(found[0].scope, "global");
          assert.equal(found[0].conversation_id, conversationId);
        }
        const harnessScoped = await call(wb, "GET", "/api/memories?scope=harness");
        assert.equal(harnessScoped.json.data.memories.length, 0);

        const p = await call(wb, "GET", "/api/harnesses/refunds/proposals");
        assert.equal(p.status, 200);
        assert.equal(p.json.data.proposals.length, 1);
        assert.equal(p.json.data.proposals[0].status, "queued");
        const queued = await call(wb, "GET", "/api/harnesses/refunds/proposals?status=queued");
        assert.equal(queued.json.data.proposals.length, 1);
        for (const s of ["applied", "partially_applied"]) {
          const none = await call(wb, "GET", `/api/harnesses/refunds/proposals?status=${s}`);
          assert.equal(none.json.data.proposals.length, 0, `no ${s} proposal`);
        }
        assert.equal(
          await Deno.readTextFile(join(dir, "harness.yaml")),
          yaml,
          "the proposal was never applied",
        );
      },
    );
  }

  await t.step(
    "the target run's journal and hive row hold none of the copilot's words",
    async () => {
      const row = withHive(home.path, (hive) => getRun(hive, byId("refunds", hive), targetRunId)!);
      const bytes = await Deno.readFile(row.trace_path);
      const text = new TextDecoder().decode(bytes);
      const excerpts = `${row.input_excerpt}\n${row.output_excerpt}\n${row.error ?? ""}`;
      for (const marker of MARKERS) {
        assert.ok(!text.includes(marker), `${marker} is not in the target journal`);
        assert.ok(!excerpts.includes(marker), `${marker} is not in the target row`);
      }
      for (const reply of replies) {
        assert.ok(!text.includes(reply.content));
      }
      assert.ok(!text.includes("[workbench:"), "the copilot's selection line stays out");
      assert.equal(row.input_excerpt, TARGET_INPUT);

      const events = parseJournal(bytes);
      assert.equal(events[0]?.type, "run_started");
      const firstCall = events.find((e) => e.type === "model_call");
      assert.ok(firstCall, "the target run called its model");
      assert.deepEqual(firstCall.payload.append, [{ role: "user", content: TARGET_INPUT }]);
      assert.equal(firstCall.payload.message_count, 1, "no copilot history before the input");
    },
  );

  await t.step(
    "a new process with the same home and folder resumes the conversation and the memory",
    async () => {
      await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path, env });
      const { status, json } = await call(wb, "GET", `/api/conversations/${conversationId}`);
      assert.equal(status, 200, JSON.stringify(json));
      const { conversation, messages, artifacts } = json.data;
      assert.equal(conversation.selected_harness_id, "refunds");
      assert.equal(conversation.selected_run_id, targetRunId);
      assert.equal(conversation.title, CONVERSATION[0]!.say.slice(0, 60));
      assert.deepEqual(
        messages.map((m: Json) => [m.role, m.content]),
        CONVERSATION.flatMap((c) => [["user", c.say], ["assistant", c.reply]]),
        "every message, in order",
      );
      assert.deepEqual(
        messages.filter((m: Json) => m.role === "assistant").map((m: Json) => m.run_id),
        copilotRunIds,
      );
      assert.deepEqual(
        messages.filter((m: Json) => m.role === "assistant").map((m: Json) => m.id),
        replies.map((m) => m.id),
      );
      for (const [i, m] of messages.filter((x: Json) => x.role === "assistant").entries()) {
        assert.deepEqual(m.parts, replies[i].parts, "tool activity is kept");
      }
      assert.deepEqual(artifacts.map((a: Json) => a.kind), ["harness", "run", "proposal"]);
      for (const a of artifacts) {
        assert.equal(a.harness_id, "refunds");
        assert.equal(a.conversation_id, conversationId);
        assert.ok(a.message_id, "each artifact is attached to the message that reported it");
      }
      const byKind = Object.fromEntries(artifacts.map((a: Json) => [a.kind, a]));
      assert.equal(byKind.harness.message_id, replies[0].id);
      assert.equal(byKind.run.message_id, replies[2].id);
      assert.equal(JSON.parse(byKind.run.content).run_id, targetRunId);
      assert.equal(byKind.proposal.message_id, replies[5].id);

      const list = await call(wb, "GET", "/api/conversations");
      assert.ok(list.json.data.conversations.some((c: Json) => c.id === conversationId));
      const m = await call(wb, "GET", "/api/memories?scope=global");
      assert.deepEqual(m.json.data.memories.map((x: Json) => x.content), [FACT]);
      const p = await call(wb, "GET", "/api/harnesses/refunds/proposals");
      assert.deepEqual(p.json.data.proposals.map((x: Json) => x.status), ["queued"]);
    },
  );
});

Deno.test("workbench: two concurrent chats with different selected harnesses each see only their own", async () => {
  await using home = await tempDir("fw-wb-home-");
  await using cwd = await tempDir("fw-wb-cwd-");
  await using scripts = await tempDir("fw-wb-script-");
  const script = await writeScript(scripts.path, [{
    match: "INSPECTSELECTED",
    replies: [
      { tool_calls: [{ name: "inspect_harness", arguments: {} }], delay_ms: 150 },
      { text: "Inspected the selected harness.", delay_ms: 50 },
    ],
  }]);
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    env: { FRAMEWORK_COPILOT_MODEL: `scripted:${script}` },
  });
  const ids = ["kestrel-left", "heron-right"] as const;
  for (const id of ids) {
    const made = await call(wb, "POST", "/api/harnesses", { id, template: "blank" });
    assert.equal(made.status, 201, JSON.stringify(made.json));
  }
  const conversations = [await newConversation(wb), await newConversation(wb)];

  const pairs: string[][] = [];
  for (let round = 0; round < 3; round++) {
    const turns = await Promise.all(
      ids.map((id, i) =>
        chat(wb, conversations[i]!, `INSPECTSELECTED round ${round}`, { harness_id: id })
      ),
    );
    for (const [i, frames] of turns.entries()) {
      const own = ids[i]!;
      const other = ids[1 - i]!;
      const { message, selection, result } = turnOf(frames);
      assert.equal(result.status, "success", JSON.stringify(result));
      assert.deepEqual(selection, { harness_id: own, run_id: null });
      (pairs[round] ??= []).push(result.run_id);
      const part = toolPart(message, "inspect_harness");
      assert.equal(part.ok, true, part.result);
      const out = JSON.parse(part.result);
      assert.equal(out.id, own);
      assert.equal(out.dir, join(cwd.path, "harnesses", own));
      assert.ok(part.result.includes(own));
      assert.ok(!part.result.includes(other), `${own}'s reply does not name ${other}`);
    }
  }
  // The two copilot runs of each round really overlapped in time.
  withHive(home.path, (hive) => {
    for (const [a, b] of pairs.map((p) => p.map((id) => getRunAnyHarness(hive, id)!))) {
      assert.ok(a && b && a.ended_at && b.ended_at);
      assert.ok(
        a.started_at < b.ended_at && b.started_at < a.ended_at,
        `concurrent: ${a.started_at}..${a.ended_at} and ${b.started_at}..${b.ended_at}`,
      );
    }
  });
  for (const [i, id] of conversations.entries()) {
    const { json } = await call(wb, "GET", `/api/conversations/${id}`);
    assert.equal(json.data.conversation.selected_harness_id, ids[i]);
    assert.equal(json.data.conversation.selected_run_id, null);
    assert.equal(json.data.messages.length, 6);
  }
});

/** The TCP ports a process listens on (Linux: its socket inodes found in /proc/net/tcp{,6}). */
async function listeningPorts(pid: number): Promise<number[]> {
  const inodes = new Set<string>();
  for await (const fd of Deno.readDir(`/proc/${pid}/fd`)) {
    const target = await Deno.readLink(`/proc/${pid}/fd/${fd.name}`).catch(() => "");
    const m = /^socket:\[(\d+)\]$/.exec(target);
    if (m) inodes.add(m[1]!);
  }
  const ports: number[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const lines = (await Deno.readTextFile(table).catch(() => "")).split("\n").slice(1);
    for (const line of lines) {
      const cols = line.trim().split(/\s+/);
      // state 0A is LISTEN; column 9 is the socket's inode.
      if (cols[3] === "0A" && inodes.has(cols[9]!)) {
        ports.push(parseInt(cols[1]!.split(":")[1]!, 16));
      }
    }
  }
  return ports.sort((a, b) => a - b);
}

Deno.test("workbench access: only the launcher listens (the API is called in process), its own Host, a token beyond loopback and same-origin writes", async (t) => {
  await using home = await tempDir("fw-wb-home-");
  await using cwd = await tempDir("fw-wb-cwd-");

  await t.step("loopback: one port, the API behind it, and foreign Host refused", async () => {
    await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
    assert.equal(wb.apiUrl, wb.url, "the API answers at the launcher's own origin");
    assert.deepEqual(await listeningPorts(wb.pid), [Number(new URL(wb.url).port)]);
    assert.ok(!wb.openUrl.includes("token="), "no token on loopback");

    const ok = await call(wb, "GET", "/api/health");
    assert.equal(ok.status, 200);
    assert.equal(ok.json.ok, true);

    const port = Number(new URL(wb.url).port);
    assert.equal(await rawRequest(port, `127.0.0.1:${port}`, "/api/health"), 200, "own Host");
    assert.equal(await rawRequest(port, `localhost:${port}`, "/api/health"), 200, "localhost");
    assert.equal(await rawRequest(port, `evil.example:${port}`, "/api/health"), 403);
    assert.equal(await rawRequest(port, "evil.example", "/"), 403);
    assert.equal(await rawRequest(port, `127.0.0.1:${port + 1}`, "/api/health"), 403);
  });

  await t.step(
    "--host 0.0.0.0: token, loud warning, cookie, and no cross-origin writes",
    async () => {
      await using wb = await startWorkbenchProcess({
        home: home.path,
        cwd: cwd.path,
        args: ["--host", "0.0.0.0"],
      });
      const open = new URL(wb.openUrl);
      const token = open.searchParams.get("token");
      assert.ok(token, `openUrl carries ?token=: ${wb.openUrl}`);
      await waitFor(() => wb.stderr().includes("WARNING"), "the exposure warning");
      assert.match(wb.stderr(), /not on loopback/);
      const base = `http://127.0.0.1:${open.port}`;

      const none = await fetch(`${base}/api/health`);
      assert.equal(none.status, 401);
      assert.equal((await none.json()).error.kind, "unauthorized");
      const wrong = await fetch(`${base}/api/health?token=${"0".repeat(token.length)}`, {
        redirect: "manual",
      });
      assert.equal(wrong.status, 401);
      await wrong.body?.cancel();
      const page = await fetch(`${base}/`, { headers: { accept: "text/html" } });
      assert.equal(page.status, 401);
      await page.body?.cancel();

      const opened = await fetch(wb.openUrl, { redirect: "manual" });
      assert.equal(opened.status, 303);
      await opened.body?.cancel();
      assert.equal(opened.headers.get("location"), "/");
      const setCookie = opened.headers.get("set-cookie");
      assert.ok(setCookie, "a Set-Cookie");
      assert.match(setCookie, /HttpOnly/);
      const cookie = setCookie.split(";")[0]!;

      const health = await fetch(`${base}/api/health`, { headers: { cookie } });
      assert.equal(health.status, 200);
      assert.equal((await health.json()).ok, true);
      const port = Number(open.port);
      assert.equal(await rawRequest(port, `127.0.0.1:${port}`, "/api/health", cookie), 200);
      assert.equal(
        await rawRequest(port, `evil.example:${port}`, "/api/health", cookie),
        403,
        "a foreign Host is refused even with the access cookie",
      );
      assert.equal(await rawRequest(port, `evil.example:${port}`, "/api/health"), 403);

      const same = await fetch(`${base}/api/conversations`, {
        method: "POST",
        headers: { cookie, origin: base, "content-type": "application/json" },
        body: "{}",
      });
      assert.equal(same.status, 201, "a same-origin write works");
      await same.body?.cancel();

      const evil = await fetch(`${base}/api/conversations`, {
        method: "POST",
        headers: { cookie, origin: "http://evil.example", "content-type": "application/json" },
        body: "{}",
      });
      assert.equal(evil.status, 403);
      assert.equal((await evil.json()).error.kind, "forbidden");
      const convs = await fetch(`${base}/api/conversations`, { headers: { cookie } });
      assert.equal((await convs.json()).data.conversations.length, 1, "the evil write did nothing");
    },
  );
});

Deno.test("workbench: a failed harness creation leaves no folder behind", async () => {
  await using home = await tempDir("fw-wb-home-");
  await using cwd = await tempDir("fw-wb-cwd-");
  await using scripts = await tempDir("fw-wb-script-");
  const script = await writeScript(scripts.path, [
    {
      match: "BADVALIDATOR",
      replies: [
        {
          tool_calls: [{
            name: "create_harness",
            arguments: {
              id: "broken-validator",
              instructions: "Answer.",
              validators: [{ builtin: "regex" }],
            },
          }],
        },
        { text: "That did not work." },
      ],
    },
    {
      match: "BADTOOL",
      replies: [
        {
          tool_calls: [{
            name: "create_harness",
            arguments: { id: "broken-tool", tools: ["no_such_builtin_tool"] },
          }],
        },
        { text: "That did not work either." },
      ],
    },
  ]);
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    env: { FRAMEWORK_COPILOT_MODEL: `scripted:${script}` },
  });
  const conversation = await newConversation(wb);
  const cases = [
    { say: "BADVALIDATOR", id: "broken-validator", why: /validator.*pattern/ },
    { say: "BADTOOL", id: "broken-tool", why: /Unknown builtin "no_such_builtin_tool"/ },
  ];
  for (const { say, id, why } of cases) {
    const { message, selection } = turnOf(await chat(wb, conversation, say));
    const part = toolPart(message, "create_harness");
    assert.equal(part.ok, false, `the creation fails: ${part.result}`);
    assert.match(part.result, why);
    assert.equal(selection.harness_id, null, "a failed creation selects nothing");
    assert.equal(await exists(join(cwd.path, "harnesses", id)), false, `no ${id} folder`);
  }
  assert.deepEqual(await Array.fromAsync(Deno.readDir(join(cwd.path, "harnesses"))), []);
  const bad = await call(wb, "POST", "/api/harnesses", { id: "bad-template", template: "nope" });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.ok, false);
  assert.equal(bad.json.error.kind, "bad_input");
  assert.equal(await exists(join(cwd.path, "harnesses", "bad-template")), false);

  const { json } = await call(wb, "GET", "/api/harnesses");
  assert.deepEqual(json.data.harnesses, []);
  const { json: conv } = await call(wb, "GET", `/api/conversations/${conversation}`);
  assert.deepEqual(conv.data.artifacts, []);
});

Deno.test("workbench without a copilot model: the chat explains the set-up, the rest works", async () => {
  await using home = await tempDir("fw-wb-home-");
  await using cwd = await tempDir("fw-wb-cwd-");
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  assert.equal(wb.copilot, null);
  const health = await call(wb, "GET", "/api/health");
  assert.equal(health.json.data.copilot, null);

  const conversation = await newConversation(wb);
  const frames = await chat(wb, conversation, "Hello, can you build me a harness?");
  assert.deepEqual(frames.map((f) => f.event), ["message"]);
  const { message } = frames[0]!.data;
  assert.equal(message.role, "assistant");
  assert.match(message.content, /FRAMEWORK_COPILOT_MODEL/);
  assert.equal(message.run_id, null);

  const h = await call(wb, "GET", "/api/harnesses");
  assert.equal(h.status, 200);
  assert.deepEqual(h.json.data.harnesses, []);
  const m = await call(wb, "GET", "/api/memories");
  assert.equal(m.status, 200);
  assert.deepEqual(m.json.data.memories, []);
  const conv = await call(wb, "GET", `/api/conversations/${conversation}`);
  assert.deepEqual(
    conv.json.data.messages.map((x: Json) => x.role),
    ["user", "assistant"],
  );
});
