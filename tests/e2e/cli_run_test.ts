/**
 * End-to-end tests of the `framework` CLI verbs over runs, run as real subprocesses: run (with and
 * without --stream), serve, runs, stats and trace, each with and without `--json`
 * (docs/http-contract.md: the ok wrapper, the exit codes, the run result, `/stats`, `/trace` and
 * the NDJSON frames).
 *
 * Every test has its own FRAMEWORK_HOME and its own harness folders under temporary directories. The
 * harnesses use the scripted model, so every run is offline and deterministic.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import canonicalize from "canonicalize";
import { type CliResult, runCli } from "../helpers/cli.ts";
import { humanError, type Json, jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

const RUN_ID = /^run_[0-9A-Z]{26}$/;
const STATUSES = ["success", "verify_failed", "guardrail_halt", "max_turns", "error"];
const RESULT_KEYS = [
  "run_id",
  "harness_id",
  "status",
  "output",
  "cost_usd",
  "turns",
  "started_at",
  "ended_at",
  "duration_ms",
  "spec_version",
];

/** USD per million tokens of every test harness. */
const PRICING = { input_per_mtok: 2, output_per_mtok: 10 };

/** Cost of a usage at {@link PRICING}. */
function priced(input: number, output: number): number {
  return (input * PRICING.input_per_mtok + output * PRICING.output_per_mtok) / 1_000_000;
}

/** Default script: a tool call, then the final answer "all done" (2 turns). */
const SUCCESS_COST = priced(1000, 200) + priced(3000, 400);
/** `loop…` inputs: tool calls past limits.max_turns (2 turns are used). */
const LOOP_COST = 2 * priced(100, 10);

/**
 * The scripted model of the test harnesses. The input chooses the outcome: `loop…` ends with
 * `max_turns`, `boom…` with a provider HTTP 500, `short…` runs out of replies; anything else succeeds.
 */
function mixedModel(): Record<string, unknown> {
  const call = (text: string) => ({
    text,
    tool_calls: [{ name: "list_files", arguments: {} }],
    usage: { input_tokens: 100, output_tokens: 10 },
  });
  return scripted([
    {
      text: "looking",
      tool_calls: [{ name: "list_files", arguments: {} }],
      usage: { input_tokens: 1000, output_tokens: 200 },
    },
    { text: "all done", usage: { input_tokens: 3000, output_tokens: 400 } },
  ], {
    name: "test-script",
    pricing: PRICING,
    max_retries: 0,
    scenarios: [
      { match: "^loop", replies: [call("still 1"), call("still 2"), call("still 3")] },
      {
        match: "^boom",
        replies: [{ error: { status: 500, message: "upstream exploded" } }],
      },
      {
        match: "^short",
        replies: [{
          text: "one",
          tool_calls: [{ name: "list_files" }],
          usage: { input_tokens: 50, output_tokens: 5 },
        }],
      },
    ],
  });
}

/** Writes a test harness `<root>/<name>` (id = name) with a few input files. */
function makeHarness(root: string, name = "bot"): Promise<string> {
  return writeHarness(root, name, {
    name: "Test bot",
    instructions: "Answer briefly.",
    model: mixedModel(),
    limits: { max_turns: 2 },
    tools: [{ builtin: "list_files" }],
  }, {
    "notes.txt": "NOTES FILE CONTENT\n",
    "sub/question.txt": "What is in the folder?\n",
    ".env": "SECRET=do-not-read\n",
  });
}

/** Runs the CLI with a home. */
function cli(
  args: string[],
  home: string,
  opts: { cwd?: string; stdin?: string } = {},
): Promise<CliResult> {
  return runCli(args, { home, ...opts });
}

/** Asserts an object has at least these keys. */
function hasKeys(value: Json, keys: string[]): void {
  for (const k of keys) assert.ok(k in value, `has ${k}: ${JSON.stringify(value).slice(0, 300)}`);
}

/** Checks the run result shape (docs/http-contract.md) and its internal consistency. */
function checkResult(r: Json, harnessId: string, status: string): void {
  hasKeys(r, RESULT_KEYS);
  assert.match(r.run_id, RUN_ID);
  assert.equal(r.harness_id, harnessId);
  assert.equal(r.status, status);
  assert.equal(typeof r.output, "string");
  assert.equal(typeof r.cost_usd, "number");
  assert.ok(Number.isInteger(r.turns) && r.turns >= 0);
  assert.equal(new Date(r.started_at).toISOString(), r.started_at);
  assert.equal(new Date(r.ended_at).toISOString(), r.ended_at);
  assert.equal(r.duration_ms, Date.parse(r.ended_at) - Date.parse(r.started_at));
  assert.ok(r.duration_ms >= 0);
  assert.match(r.spec_version, /^[0-9a-f]{64}$/);
}

/** Asserts two costs are equal up to float noise. */
function assertCost(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) < 1e-9, `cost ${actual} should be ${expected}`);
}

/** The journal file of a run. */
function journalPath(dir: string, runId: string): string {
  return join(dir, ".framework", "traces", `${runId}.jsonl`);
}

/**
 * Verifies a journal's bytes independently of the product code: every line is the canonical JSON of
 * `{seq, ts, type, payload, prev, hash}`, seq counts from 1, prev chains and
 * `hash = sha256_hex(prev + "\n" + JCS({seq, ts, type, payload}))`. Returns the events.
 */
function verifyChain(bytes: Uint8Array): Json[] {
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  assert.ok(text.endsWith("\n"), "a journal ends with a newline");
  let prev = "0".repeat(64);
  return text.slice(0, -1).split("\n").map((line, i) => {
    const e = JSON.parse(line);
    assert.equal(e.seq, i + 1);
    assert.equal(e.prev, prev, `prev of seq ${e.seq}`);
    const body = canonicalize({ seq: e.seq, ts: e.ts, type: e.type, payload: e.payload });
    assert.equal(e.hash, createHash("sha256").update(`${prev}\n${body}`).digest("hex"));
    assert.equal(canonicalize(e), line, "each line is canonical JSON");
    prev = e.hash;
    return e;
  });
}

/** Reads and verifies a run's journal; returns its bytes and events. */
async function readJournal(
  dir: string,
  runId: string,
): Promise<{ bytes: Uint8Array; events: Json[] }> {
  const bytes = await Deno.readFile(journalPath(dir, runId));
  return { bytes, events: verifyChain(bytes) };
}

/** Parses NDJSON stdout: every line is one JSON object. */
function ndjson(stdout: string): Json[] {
  assert.ok(stdout.endsWith("\n"), "NDJSON ends with a newline");
  return stdout.slice(0, -1).split("\n").map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      assert.fail(`not a JSON line: ${line}`);
    }
  });
}

/**
 * Checks the frames of one run against its journal: `run_accepted`, one `trace` frame per journal event
 * in seq order (same seq, ts, type, payload and hash), and `run_result` equal to the result.
 */
async function checkRunFrames(dir: string, frames: Json[], status: string): Promise<Json> {
  const [first, ...rest] = frames;
  const last = rest.pop();
  assert.equal(first.frame, "run_accepted");
  assert.match(first.run_id, RUN_ID);
  const runId = first.run_id;
  assert.equal(last.frame, "run_result");
  const { frame: _f, ...result } = last;
  checkResult(result, "bot", status);
  assert.equal(result.run_id, runId);
  const { events } = await readJournal(dir, runId);
  assert.equal(rest.length, events.length, "one trace frame per journal event");
  rest.forEach((f, i) => {
    assert.equal(f.frame, "trace");
    hasKeys(f, ["seq", "ts", "type", "payload", "hash"]);
    assert.equal(f.seq, i + 1, "seq order from 1");
    const e = events[i];
    assert.equal(f.seq, e.seq);
    assert.equal(f.ts, e.ts);
    assert.equal(f.type, e.type);
    assert.deepEqual(f.payload, e.payload);
    assert.equal(f.hash, e.hash, `the hash of seq ${f.seq} equals the journal line's`);
    if (f.run_id !== undefined) assert.equal(f.run_id, runId);
  });
  assert.equal(rest[0].type, "run_started");
  assert.equal(rest.at(-1).type, "run_finished");
  assert.deepEqual(result, rest.at(-1).payload, "run_result equals the finished run's result");
  return result;
}

/** Runs `framework run <dir> --input <input> --json` and returns the result. */
async function runJson(
  home: string,
  dir: string,
  input: string,
  code: number,
  extra: string[] = [],
): Promise<Json> {
  return jsonOk(await cli(["run", dir, "--input", input, "--json", ...extra], home), code);
}

/** `runs --json` run ids. */
async function runIds(home: string, dir: string, extra: string[] = []): Promise<string[]> {
  const data = jsonOk(await cli(["runs", dir, "--json", ...extra], home));
  return data.runs.map((r: Json) => r.run_id);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

Deno.test("run refuses an untrusted folder without a TTY (exit 4) until --approve or framework trust", async (t) => {
  await using home = await tempDir("fw-run-home-");
  await using work = await tempDir("fw-run-work-");
  const dir = await makeHarness(work.path);

  await t.step("no TTY: exit 4, kind untrusted, no run recorded", async () => {
    const err = humanError(await cli(["run", dir, "--input", "hi"], home.path), 4);
    assert.match(err, /not trusted/);
    assert.match(err, /--approve/);
    const e = jsonError(
      await cli(["run", dir, "--input", "hi", "--json"], home.path),
      "untrusted",
      4,
    );
    assert.equal(e.details.dir, dir);
    assert.equal(await exists(join(dir, ".framework", "traces")), false, "no journal written");
    assert.deepEqual(await runIds(home.path, dir), [], "no run in the hive");
  });

  await t.step("--approve runs it, and the folder stays trusted", async () => {
    const r = await runJson(home.path, dir, "hi", 0, ["--approve"]);
    checkResult(r, "bot", "success");
    const again = await runJson(home.path, dir, "hi again", 0);
    checkResult(again, "bot", "success");
    assert.deepEqual(await runIds(home.path, dir), [again.run_id, r.run_id]);
  });

  await t.step("framework trust <dir> first also works", async () => {
    const other = await makeHarness(work.path, "other");
    const trust = jsonOk(await cli(["trust", other, "--json"], home.path));
    assert.equal(trust.trusted, other);
    const r = await cli(["run", other, "--input", "hi"], home.path);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "all done\n");
  });
});

Deno.test("run exits 0 on success with the output on stdout and a summary on stderr; --json prints the run result", async (t) => {
  await using home = await tempDir("fw-run-home-");
  await using work = await tempDir("fw-run-work-");
  const dir = await makeHarness(work.path);

  await t.step(
    "human: output on stdout, status · turns · cost · ms · run id on stderr",
    async () => {
      const r = await cli(["run", dir, "--input", "hello", "--approve"], home.path);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, "all done\n");
      const m = r.stderr.match(
        /^success · 2 turns · \$0\.014000 · (\d+) ms · (run_[0-9A-Z]{26})\n$/,
      );
      assert.ok(m, `summary on stderr: ${JSON.stringify(r.stderr)}`);
      const { events } = await readJournal(dir, m[2]!);
      assert.equal(events.at(-1).payload.status, "success");
      assert.equal(events.at(-1).payload.duration_ms, Number(m[1]));
    },
  );

  await t.step("--json: the documented run result, cost from model.pricing and usage", async () => {
    const r = await cli(["run", dir, "--input", "hello", "--json"], home.path);
    const data = jsonOk(r);
    assert.doesNotMatch(r.stderr, /success ·/, "no human summary with --json");
    checkResult(data, "bot", "success");
    assert.equal(data.output, "all done");
    assert.equal(data.turns, 2);
    assertCost(data.cost_usd, SUCCESS_COST);
    assert.equal(data.failure_signature ?? null, null);
    assert.equal("error" in data, false);
    const v = jsonOk(await cli(["validate", dir, "--json"], home.path));
    assert.equal(data.spec_version, v.spec_version, "spec_version is the harness's version");
    const { events } = await readJournal(dir, data.run_id);
    assert.deepEqual(events.at(-1).payload, data, "the journal's run_finished holds the result");
  });
});

Deno.test("run exits 3 for max_turns, a provider error and an exhausted script", async (t) => {
  await using home = await tempDir("fw-run-home-");
  await using work = await tempDir("fw-run-work-");
  const dir = await makeHarness(work.path);

  await t.step("tool calls past limits.max_turns: status max_turns", async () => {
    const data = await runJson(home.path, dir, "loop forever", 3, ["--approve"]);
    checkResult(data, "bot", "max_turns");
    assert.equal(data.turns, 2);
    assert.equal(data.output, "still 2");
    assertCost(data.cost_usd, LOOP_COST);
    assert.equal(data.failure_signature, "max_turns");
    assert.equal(data.error.reason, "max_turns");
    const r = await cli(["run", dir, "--input", "loop again"], home.path);
    assert.equal(r.code, 3);
    assert.equal(r.stdout, "still 2\n");
    assert.match(r.stderr, /^max_turns · 2 turns · \$0\.000600 · \d+ ms · run_[0-9A-Z]{26}\n/);
    assert.match(r.stderr, /max_turns: .*2 turns/);
  });

  await t.step("a scripted reply with error status 500: status error", async () => {
    const data = await runJson(home.path, dir, "boom", 3);
    checkResult(data, "bot", "error");
    assert.equal(data.turns, 1);
    assert.equal(data.output, "");
    assert.equal(data.cost_usd, 0);
    assert.equal(data.error.reason, "provider:http_500");
    assert.match(data.error.message, /upstream exploded/);
    assert.equal(data.failure_signature, "error:provider:http_500");
  });

  await t.step("a script that runs out of replies: status error", async () => {
    const data = await runJson(home.path, dir, "short script", 3);
    checkResult(data, "bot", "error");
    assert.equal(data.turns, 2);
    assert.equal(data.error.reason, "provider:script_exhausted");
    assert.equal(data.failure_signature, "error:provider:script_exhausted");
  });
});

Deno.test("run takes --input as literal text and --input-file only from safe files inside the harness", async (t) => {
  await using home = await tempDir("fw-run-home-");
  await using work = await tempDir("fw-run-work-");
  const dir = await makeHarness(work.path);
  await Deno.writeTextFile(join(work.path, "outside.txt"), "OUTSIDE SECRET\n");
  await Deno.symlink(join(work.path, "outside.txt"), join(dir, "link.txt"));
  const firstMessage = async (runId: string) => {
    const { events } = await readJournal(dir, runId);
    const started = events.find((e) => e.type === "run_started");
    const call = events.find((e) => e.type === "model_call");
    return { started, message: call.payload.append[0] };
  };

  await t.step("--input naming a real file is the literal string", async () => {
    const r = jsonOk(
      await cli(["run", ".", "--input", "notes.txt", "--json", "--approve"], home.path, {
        cwd: dir,
      }),
    );
    checkResult(r, "bot", "success");
    const { started, message } = await firstMessage(r.run_id);
    assert.deepEqual(message, { role: "user", content: "notes.txt" });
    assert.equal(started.payload.input, "notes.txt");
    assert.equal("input_file" in started.payload, false);
  });

  await t.step("--input-file reads a file inside the harness", async () => {
    const r = jsonOk(
      await cli(["run", dir, "--input-file", "sub/question.txt", "--json"], home.path),
    );
    checkResult(r, "bot", "success");
    const { started, message } = await firstMessage(r.run_id);
    assert.equal(message.content, "What is in the folder?\n");
    assert.equal(started.payload.input_file, "sub/question.txt");
    const both = jsonOk(
      await cli(
        ["run", dir, "--input", "Read this:", "--input-file", "notes.txt", "--json"],
        home.path,
      ),
    );
    const m = await firstMessage(both.run_id);
    assert.match(m.message.content, /^Read this:/);
    assert.match(m.message.content, /NOTES FILE CONTENT/);
  });

  await t.step(
    "unsafe --input-file paths exit 2 with kind bad_input and record nothing",
    async () => {
      const before = await runIds(home.path, dir);
      const refused = [
        "../outside.txt",
        join(dir, "notes.txt"),
        ".env",
        `.framework/traces/${before[0]}.jsonl`,
        "link.txt",
      ];
      for (const path of refused) {
        const e = jsonError(
          await cli(["run", dir, "--input-file", path, "--json"], home.path),
          "bad_input",
          2,
        );
        assert.match(e.message, /Refused path/, path);
        assert.doesNotMatch(e.message, /OUTSIDE SECRET|SECRET=/);
      }
      const err = humanError(
        await cli(["run", dir, "--input-file", "../outside.txt"], home.path),
        2,
      );
      assert.match(err, /outside\.txt/);
      assert.deepEqual(await runIds(home.path, dir), before, "no run was recorded");
    },
  );

  await t.step("neither --input nor --input-file: exit 2", async () => {
    const err = humanError(await cli(["run", dir], home.path), 2);
    assert.match(err, /--input/);
    const e = jsonError(await cli(["run", dir, "--json"], home.path), "bad_input", 2);
    assert.match(e.message, /--input/);
  });
});

Deno.test("run --stream --json writes NDJSON frames: run_accepted, one trace frame per event, run_result", async (t) => {
  await using home = await tempDir("fw-run-home-");
  await using work = await tempDir("fw-run-work-");
  const dir = await makeHarness(work.path);

  await t.step("a successful run: frames match the journal, exit 0", async () => {
    const r = await cli(
      ["run", dir, "--input", "hello", "--stream", "--json", "--approve"],
      home.path,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    const frames = ndjson(r.stdout);
    assert.deepEqual(Object.keys(frames[0]).slice(0, 2), ["frame", "run_id"]);
    const result = await checkRunFrames(dir, frames, "success");
    assert.equal(result.output, "all done");
    assert.equal(result.turns, 2);
    assertCost(result.cost_usd, SUCCESS_COST);
    const types = frames.slice(1, -1).map((f) => f.type);
    assert.deepEqual(types, [
      "run_started",
      "model_call",
      "model_response",
      "tool_call",
      "tool_result",
      "model_call",
      "model_response",
      "run_finished",
    ]);
  });

  await t.step(
    "a failing run: the last frame is run_result with status error, exit 3",
    async () => {
      const r = await cli(["run", dir, "--input", "boom", "--stream", "--json"], home.path);
      assert.equal(r.code, 3, r.stderr);
      const frames = ndjson(r.stdout);
      const result = await checkRunFrames(dir, frames, "error");
      assert.equal(frames.at(-1).frame, "run_result");
      assert.equal(result.failure_signature, "error:provider:http_500");
    },
  );
});

Deno.test("run --stream for a person: a readable line per event as it happens, the output on stdout", async () => {
  await using home = await tempDir("fw-run-home-");
  await using work = await tempDir("fw-run-work-");
  const dir = await makeHarness(work.path);
  const r = await cli(["run", dir, "--input", "hello", "--stream", "--approve"], home.path);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "all done\n", "stdout holds the output, not frames");
  assert.doesNotMatch(r.stderr, /"frame"/, "no JSON for a person");
  assert.match(r.stderr, /^run_\w+ accepted$/m);
  assert.match(r.stderr, /^\s+1 \+\s+\d+ ms {2}run_started\s+input "hello"/m);
  assert.match(r.stderr, /tool_call\s+\w+ \{/);
  assert.match(r.stderr, /tool_result\s+\w+ · ok/);
  assert.match(r.stderr, /run_finished\s+success · 2 turns/);
  assert.match(r.stderr, /^success · 2 turns/m);
});

Deno.test("serve answers one JSON request per stdin line with the frames of each run", async (t) => {
  await using home = await tempDir("fw-run-home-");
  await using work = await tempDir("fw-run-work-");
  const dir = await makeHarness(work.path);

  await t.step("runs in order, error frames for bad lines, serving goes on, exit 0", async () => {
    const stdin = [
      JSON.stringify({ input: "hello" }),
      "this is not json",
      JSON.stringify({ input_file: "../outside.txt" }),
      "",
      JSON.stringify({ input: "boom" }),
      JSON.stringify({ input: 5 }),
      JSON.stringify({ input_file: "sub/question.txt" }), // the last line has no newline
    ].join("\n");
    const r = await cli(["serve", dir, "--approve"], home.path, { stdin });
    assert.equal(r.code, 0, r.stderr);
    const frames = ndjson(r.stdout);
    // Split into groups: a run (run_accepted … run_result) or one error frame.
    const groups: Json[][] = [];
    for (const f of frames) {
      if (f.frame === "error" || f.frame === "run_accepted") groups.push([f]);
      else groups.at(-1)!.push(f);
    }
    assert.deepEqual(
      groups.map((g) => g[0].frame === "error" ? "error" : g.at(-1).status),
      ["success", "error", "error", "error", "error", "success"],
    );
    const [ok1, bad1, bad2, boom, bad3, ok2] = groups as [
      Json[],
      Json[],
      Json[],
      Json[],
      Json[],
      Json[],
    ];
    for (const bad of [bad1, bad2, bad3]) {
      assert.equal(bad.length, 1);
      const f = bad[0];
      assert.equal(f.frame, "error");
      assert.equal(f.ok, false);
      assert.equal(f.error.kind, "bad_input");
      assert.equal(typeof f.error.message, "string");
      assert.equal(typeof f.error.details, "object");
    }
    assert.match(bad2[0].error.message, /\.\.\/outside\.txt/);
    const results = [];
    for (const [g, status] of [[ok1, "success"], [boom, "error"], [ok2, "success"]] as const) {
      results.push(await checkRunFrames(dir, g, status));
    }
    const ids = results.map((x) => x.run_id);
    assert.equal(new Set(ids).size, 3);
    assert.deepEqual(await runIds(home.path, dir), [...ids].reverse(), "three runs recorded");
    const { events } = await readJournal(dir, ids[2]!);
    assert.equal(events[0].payload.input, "What is in the folder?\n");
  });

  await t.step("untrusted without --approve: exit 4", async () => {
    const other = await makeHarness(work.path, "other");
    const r = await cli(["serve", other], home.path, { stdin: '{"input":"hi"}\n' });
    const e = jsonError(r, "untrusted", 4);
    assert.equal(e.details.dir, other);
    assert.equal(await exists(join(other, ".framework", "traces")), false);
  });
});

Deno.test("runs lists a harness's runs newest first with --status, --limit and --before", async (t) => {
  await using home = await tempDir("fw-run-home-");
  await using work = await tempDir("fw-run-work-");
  const dir = await makeHarness(work.path);
  const inputs = ["ok 1", "loop", "ok 2", "boom", "ok 3"];
  const served = await cli(["serve", dir, "--approve"], home.path, {
    stdin: inputs.map((input) => JSON.stringify({ input })).join("\n") + "\n",
  });
  assert.equal(served.code, 0, served.stderr);
  const results = ndjson(served.stdout).filter((f) => f.frame === "run_result");
  assert.deepEqual(results.map((x) => x.status), [
    "success",
    "max_turns",
    "success",
    "error",
    "success",
  ]);
  const ids: string[] = results.map((x) => x.run_id);
  const newest = [...ids].reverse();

  await t.step("newest first, human and --json {harness_id, runs}", async () => {
    const h = await cli(["runs", dir], home.path);
    assert.equal(h.code, 0, h.stderr);
    const lines = h.stdout.trimEnd().split("\n");
    assert.deepEqual(lines.map((l) => l.split(/\s+/)[0]), newest);
    lines.forEach((line, i) => {
      assert.equal(line.split(/\s+/)[1], results[ids.length - 1 - i].status, line);
    });
    const data = jsonOk(await cli(["runs", dir, "--json"], home.path));
    assert.equal(data.harness_id, "bot");
    assert.deepEqual(data.runs.map((r: Json) => r.run_id), newest);
    for (const [i, row] of data.runs.entries()) {
      const res = results[ids.length - 1 - i];
      hasKeys(row, ["run_id", "harness_id", "status", "cost_usd", "turns", "started_at"]);
      assert.equal(row.harness_id, "bot");
      assert.equal(row.status, res.status);
      assert.equal(row.turns, res.turns);
      assert.equal(row.started_at, res.started_at);
      assertCost(row.cost_usd, res.cost_usd);
    }
  });

  await t.step("--status filters", async () => {
    assert.deepEqual(await runIds(home.path, dir, ["--status", "error"]), [ids[3]]);
    assert.deepEqual(await runIds(home.path, dir, ["--status", "success"]), [
      ids[4],
      ids[2],
      ids[0],
    ]);
  });

  await t.step("--limit 1 gives the newest run", async () => {
    assert.deepEqual(await runIds(home.path, dir, ["--limit", "1"]), [ids[4]]);
  });

  await t.step("--before <run_id> pages through older runs", async () => {
    const page1 = await runIds(home.path, dir, ["--limit", "2"]);
    assert.deepEqual(page1, [ids[4], ids[3]]);
    const page2 = await runIds(home.path, dir, ["--limit", "2", "--before", page1.at(-1)!]);
    assert.deepEqual(page2, [ids[2], ids[1]]);
    const page3 = await runIds(home.path, dir, ["--limit", "2", "--before", page2.at(-1)!]);
    assert.deepEqual(page3, [ids[0]]);
    const end = await cli(["runs", dir, "--before", ids[0]!], home.path);
    assert.equal(end.code, 0, end.stderr);
    assert.equal(end.stdout, "No runs yet.\n");
  });

  await t.step("an unknown status or a bad --limit exits 2", async () => {
    const err = humanError(await cli(["runs", dir, "--status", "bogus"], home.path), 2);
    assert.match(err, /bogus/);
    const e = jsonError(
      await cli(["runs", dir, "--status", "bogus", "--json"], home.path),
      "bad_input",
      2,
    );
    for (const s of STATUSES) assert.match(e.message, new RegExp(s));
    jsonError(await cli(["runs", dir, "--limit", "0", "--json"], home.path), "bad_input", 2);
  });
});

Deno.test("stats reports the /stats shape and the numbers of a known mix of runs", async (t) => {
  await using home = await tempDir("fw-run-home-");
  await using work = await tempDir("fw-run-work-");
  const dir = await makeHarness(work.path);
  const other = await makeHarness(work.path, "other");

  await t.step("a harness without runs has zero counts", async () => {
    const data = jsonOk(await cli(["stats", dir, "--json"], home.path));
    assert.equal(data.harness_id, "bot");
    assert.equal(data.runs.total, 0);
    assert.deepEqual(data.runs.by_status, Object.fromEntries(STATUSES.map((s) => [s, 0])));
    assert.deepEqual(data.recent_failures, []);
    assert.ok(data.runs.success_rate === null || data.runs.success_rate === 0);
  });

  await t.step("2 success, 1 max_turns, 1 error (+1 run of another harness)", async () => {
    const results = [
      await runJson(home.path, dir, "ok 1", 0, ["--approve"]),
      await runJson(home.path, dir, "loop", 3),
      await runJson(home.path, dir, "ok 2", 0),
      await runJson(home.path, dir, "boom", 3),
    ];
    await runJson(home.path, other, "hi", 0, ["--approve"]);
    const [, loop, , boom] = results;

    const data = jsonOk(await cli(["stats", dir, "--json"], home.path));
    hasKeys(data, ["harness_id", "runs", "hive", "recent_failures"]);
    assert.equal(data.harness_id, "bot");
    hasKeys(data.runs, [
      "total",
      "by_status",
      "success_rate",
      "cost_usd",
      "avg_turns",
      "p50_duration_ms",
    ]);
    assert.equal(data.runs.total, 4);
    assert.deepEqual(data.runs.by_status, {
      success: 2,
      verify_failed: 0,
      guardrail_halt: 0,
      max_turns: 1,
      error: 1,
    });
    assert.equal(data.runs.success_rate, 0.5);
    assertCost(data.runs.cost_usd, 2 * SUCCESS_COST + LOOP_COST);
    assertCost(
      data.runs.cost_usd,
      results.reduce((sum, r) => sum + r.cost_usd, 0),
    );
    assert.equal(data.runs.avg_turns, (2 + 2 + 2 + 1) / 4);
    const durations = results.map((r) => r.duration_ms).sort((a, b) => a - b);
    assert.ok(
      data.runs.p50_duration_ms === durations[1] || data.runs.p50_duration_ms === durations[2] ||
        data.runs.p50_duration_ms === (durations[1]! + durations[2]!) / 2,
      `p50 ${data.runs.p50_duration_ms} of ${durations}`,
    );
    assert.deepEqual(data.hive, { harnesses: 2, runs: 5 });

    assert.equal(data.recent_failures.length, 2);
    const [f1, f2] = data.recent_failures;
    for (const f of [f1, f2]) hasKeys(f, ["run_id", "status", "ended_at", "signature", "excerpt"]);
    assert.equal(f1.run_id, boom.run_id, "newest failure first");
    assert.equal(f1.status, "error");
    assert.equal(f1.ended_at, boom.ended_at);
    assert.equal(f1.signature, "error:provider:http_500");
    assert.match(f1.excerpt, /upstream exploded/);
    assert.equal(f2.run_id, loop.run_id);
    assert.equal(f2.status, "max_turns");
    assert.equal(f2.ended_at, loop.ended_at);
    assert.equal(f2.signature, "max_turns");
    assert.equal(typeof f2.excerpt, "string");

    const h = await cli(["stats", dir], home.path);
    assert.equal(h.code, 0, h.stderr);
    assert.match(h.stdout, /^bot: 4 runs, success 50\.0%/);
    assert.match(h.stdout, /success 2, verify_failed 0, guardrail_halt 0, max_turns 1, error 1/);
    assert.match(h.stdout, /error:provider:http_500/);
    assert.match(h.stdout, /max_turns/);
  });
});

Deno.test("trace shows a run's journal, verifies its hash chain and exports its bytes verbatim", async (t) => {
  await using home = await tempDir("fw-run-home-");
  await using work = await tempDir("fw-run-work-");
  const dir = await makeHarness(work.path);
  const other = await makeHarness(work.path, "other");
  // A large input (≈ 256 KiB) makes the journal larger than a pipe buffer.
  await Deno.writeTextFile(join(dir, "big.txt"), "lorem ipsum ".repeat(22_000));
  const run = jsonOk(
    await cli(["run", dir, "--input-file", "big.txt", "--json", "--approve"], home.path),
  );
  const runId: string = run.run_id;
  const path = journalPath(dir, runId);
  const { bytes, events } = await readJournal(dir, runId);
  assert.ok(bytes.length > 256 * 1024);

  await t.step("human: lists the events and says the hash chain is ok", async () => {
    const r = await cli(["trace", runId], home.path);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    assert.equal(lines[0], `${runId} · bot · success`);
    assert.equal(lines[1], `hash chain ok (${events.length} events)`);
    assert.equal(lines.length, 2 + events.length);
    events.forEach((e, i) => {
      assert.match(lines[2 + i]!, new RegExp(`^\\s*${e.seq} \\+\\s*\\d+ ms  ${e.type}\\b`));
    });
    // Each line says what happened: tool names, text excerpts, timing.
    const toolCall = lines.find((l) => /tool_call/.test(l))!;
    assert.match(toolCall, /tool_call\s+\w+ \{/);
    assert.match(lines.find((l) => /tool_result/.test(l))!, /· ok · .* · \d+ ms$/);
    assert.match(lines.find((l) => /model_response/.test(l) && /"/.test(l))!, /turn \d+ · "/);
    assert.match(lines.at(-1)!, /run_finished\s+success · \d+ turns · \$[\d.e-]+ · \d+ ms/);
  });

  await t.step("--json: {run_id, harness_id, status, integrity, events}", async () => {
    const data = jsonOk(await cli(["trace", runId, "--json"], home.path));
    assert.equal(data.run_id, runId);
    assert.equal(data.harness_id, "bot");
    assert.equal(data.status, "success");
    assert.deepEqual(data.integrity, { ok: true, checked: events.length, broken_at: null });
    assert.deepEqual(data.events, events);
  });

  await t.step("--verify exits 0", async () => {
    const r = await cli(["trace", runId, "--verify"], home.path);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `hash chain ok (${events.length} events)\n`);
    const data = jsonOk(await cli(["trace", runId, "--verify", "--json"], home.path));
    assert.deepEqual(data.integrity, { ok: true, checked: events.length, broken_at: null });
  });

  await t.step("--export FILE writes the journal's bytes, which verify", async () => {
    const out = join(work.path, "export.jsonl");
    const data = jsonOk(await cli(["trace", runId, "--export", out, "--json"], home.path));
    assert.equal(data.bytes, bytes.length);
    const exported = await Deno.readFile(out);
    assert.deepEqual(exported, bytes, "byte-identical");
    assert.equal(verifyChain(exported).length, events.length);
    const r = await cli(["trace", runId, "--export", "rel.jsonl"], home.path, { cwd: work.path });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`Wrote ${bytes.length} bytes`));
    assert.deepEqual(await Deno.readFile(join(work.path, "rel.jsonl")), bytes);
  });

  await t.step("--export - writes the bytes to stdout", async () => {
    const r = await cli(["trace", runId, "--export", "-"], home.path);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(new TextEncoder().encode(r.stdout), bytes);
  });

  await t.step("--harness binds the lookup to that harness", async () => {
    const data = jsonOk(await cli(["trace", runId, "--harness", dir, "--json"], home.path));
    assert.equal(data.run_id, runId);
    const e = jsonError(
      await cli(["trace", runId, "--harness", other, "--json"], home.path),
      "not_found",
      2,
    );
    assert.equal(e.details.run_id, runId);
    jsonError(
      await cli(["trace", runId, "--harness", other, "--export", "-", "--json"], home.path),
      "not_found",
      2,
    );
  });

  await t.step("an unknown run id exits 2 with kind not_found", async () => {
    const unknown = `run_${"0".repeat(26)}`;
    jsonError(await cli(["trace", unknown, "--json"], home.path), "not_found", 2);
    const err = humanError(await cli(["trace", "nope"], home.path), 2);
    assert.match(err, /nope/);
  });

  await t.step("one flipped byte: --verify exits 2 and broken_at names the seq", async () => {
    const target = events.find((e) => e.type === "model_response" && e.payload.text === "looking");
    const text = new TextDecoder().decode(bytes);
    const at = text.indexOf('"text":"looking"');
    assert.ok(at > 0);
    const flipped = bytes.slice();
    flipped[at + '"text":"'.length] = "L".charCodeAt(0);
    await Deno.writeFile(path, flipped);

    const r = await cli(["trace", runId, "--verify"], home.path);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stdout, new RegExp(`BROKEN at seq ${target.seq}\\b`));
    const data = jsonOk(await cli(["trace", runId, "--verify", "--json"], home.path), 2);
    assert.deepEqual(data.integrity, {
      ok: false,
      checked: target.seq - 1,
      broken_at: target.seq,
    });
    const shown = jsonOk(await cli(["trace", runId, "--json"], home.path));
    assert.equal(shown.integrity.ok, false);
    assert.equal(shown.integrity.broken_at, target.seq);
  });
});
