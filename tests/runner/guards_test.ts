/**
 * Every builtin guardrail and validator, and code ones run in the sandbox of a trusted folder: when
 * each trips or fails, what the journal records, and what the result says.
 */

import assert from "node:assert/strict";
import { FrameworkError } from "../../lib/errors.ts";
import { openHive } from "../../lib/hive/open.ts";
import { getRun, listRuns, type RunRow } from "../../lib/hive/runs.ts";
import type { JournalEvent } from "../../lib/journal/event.ts";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { startRun } from "../../lib/runs/service.ts";
import type { RunResult } from "../../lib/run_types.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { byId } from "../helpers/hive.ts";

const PRICING = { input_per_mtok: 1, output_per_mtok: 2 };

type Spec = Record<string, unknown>;

interface Ran {
  dir: string;
  result: RunResult;
  events: JournalEvent[];
  row: RunRow;
}

/** Writes a harness, runs it once and checks the journal and hive row agree with the result. */
async function run(
  root: string,
  name: string,
  spec: Spec,
  input: string,
  options: { files?: Record<string, string>; trust?: boolean } = {},
): Promise<Ran> {
  const dir = await writeHarness(root, name, spec, options.files ?? {});
  if (options.trust) await trustFolder(dir);
  const handle = await startRun(dir, { input });
  const result = await handle.result;
  const bytes = await Deno.readFile(handle.trace_path);
  assert.equal(verifyJournal(bytes).ok, true);
  const events = parseJournal(bytes);
  assert.equal(events.at(-1)!.type, "run_finished");
  assert.deepEqual(events.at(-1)!.payload, JSON.parse(JSON.stringify(result)));
  const row = getRun(openHive(), byId(result.harness_id), result.run_id)!;
  assert.equal(row.status, result.status);
  assert.equal(row.failure_signature, result.failure_signature);
  assert.equal(row.head_hash, events.at(-1)!.hash);
  assert.equal(row.events, events.length);
  return { dir, result, events, row };
}

const ofType = (events: JournalEvent[], type: string) => events.filter((e) => e.type === type);

/** The single `guardrail` event of a run. */
function guardEvent(events: JournalEvent[]): Record<string, unknown> {
  const trips = ofType(events, "guardrail");
  assert.equal(trips.length, 1, "exactly one guardrail event");
  return trips[0]!.payload;
}

/** Checks a halted run: status, empty output, reason, signature and the guardrail event. */
function assertHalted(
  ran: Ran,
  expected: { name: string; kind: string; stage: string; reason?: RegExp },
): Record<string, unknown> {
  const { result, events } = ran;
  assert.equal(result.status, "guardrail_halt");
  assert.equal(result.output, "");
  assert.equal(result.error!.reason, expected.name);
  assert.equal(result.failure_signature, `guardrail_halt:${expected.name}`);
  const g = guardEvent(events);
  assert.equal(g.name, expected.name);
  assert.equal(g.kind, expected.kind);
  assert.equal(g.stage, expected.stage);
  assert.equal(typeof g.reason, "string");
  assert.equal(result.error!.message, `${expected.name}: ${g.reason}`);
  if (expected.reason) assert.match(g.reason as string, expected.reason);
  const types = events.map((e) => e.type);
  assert.equal(types.indexOf("guardrail"), types.length - 2, "the run ends right after the trip");
  return g;
}

const listFiles = (n = 1) =>
  Array.from({ length: n }, () => ({ name: "list_files", arguments: {} as Spec }));

Deno.test("max_cost guardrails trip after the model call whose cost crosses the limit", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  // turn 1: 400 + 2*50 = 500 µ$ (under $0.001); turn 2: +1000 µ$ = $0.0015 (over).
  const model = scripted([
    { tool_calls: listFiles(), usage: { input_tokens: 400, output_tokens: 50 } },
    { tool_calls: listFiles(), usage: { input_tokens: 1000, output_tokens: 0 } },
    { text: "never reached" },
  ], { pricing: PRICING });

  for (
    const [label, name, extra] of [
      ["max_cost (usd)", "max_cost", { guardrails: [{ builtin: "max_cost", usd: 0.001 }] }],
      ["limits.max_cost_usd", "limits.max_cost_usd", { limits: { max_cost_usd: 0.001 } }],
    ] as const
  ) {
    await t.step(label, async () => {
      const ran = await run(tmp.path, `cost-${name.replace(/[^a-z0-9]+/g, "-")}`, {
        model,
        tools: [{ builtin: "list_files" }],
        ...extra,
      }, "go");
      const g = assertHalted(ran, {
        name,
        kind: "max_cost",
        stage: "model_response",
        reason: /\$0\.001500.*\$0\.001/,
      });
      assert.equal(g.turn, 2);
      assert.equal(ran.result.turns, 2);
      assert.equal(ran.result.cost_usd, 0.0015);
      assert.equal(ofType(ran.events, "model_call").length, 2);
      assert.equal(ofType(ran.events, "tool_result").length, 1, "turn 2's tools never ran");
      const types = ran.events.map((e) => e.type);
      assert.deepEqual(types.slice(-3), ["model_response", "guardrail", "run_finished"]);
    });
  }

  await t.step("a run that stays under the limit succeeds", async () => {
    const ran = await run(tmp.path, "cost-under", {
      model: scripted([{ text: "cheap", usage: { input_tokens: 400, output_tokens: 50 } }], {
        pricing: PRICING,
      }),
      guardrails: [{ builtin: "max_cost", usd: 0.001 }],
      limits: { max_cost_usd: 0.001 },
    }, "go");
    assert.equal(ran.result.status, "success");
    assert.equal(ofType(ran.events, "guardrail").length, 0);
  });
});

Deno.test("max_tool_calls trips before the call over the limit runs", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const ran = await run(tmp.path, "tool-calls", {
    model: scripted([
      { tool_calls: listFiles(2) },
      { tool_calls: listFiles(2) },
      { text: "never reached" },
    ]),
    tools: [{ builtin: "list_files" }],
    guardrails: [{ builtin: "max_tool_calls", max: 3 }],
  }, "go");
  const g = assertHalted(ran, {
    name: "max_tool_calls",
    kind: "max_tool_calls",
    stage: "tool_call",
    reason: /Tool call 4 is over the limit of 3/,
  });
  assert.equal(g.turn, 2);
  assert.deepEqual(
    ofType(ran.events, "tool_result").map((e) => e.payload.id),
    ["call_1_1", "call_1_2", "call_2_1"],
  );
  assert.ok(
    !ran.events.some((e) => e.payload.id === "call_2_2"),
    "the fourth call was neither journalled nor run",
  );
});

Deno.test("deny_pattern halts on the input, the output or tool arguments", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();

  await t.step("on the input: before any model call", async () => {
    const ran = await run(tmp.path, "deny-input", {
      model: scripted([{ text: "never reached" }]),
      guardrails: [{ builtin: "deny_pattern", pattern: "secret" }],
    }, "tell me the secret");
    assertHalted(ran, {
      name: "deny_pattern",
      kind: "deny_pattern",
      stage: "input",
      reason: /input matches the denied pattern \/secret\//,
    });
    assert.equal(ofType(ran.events, "model_call").length, 0);
    assert.equal(ran.result.turns, 0);
    assert.equal(ran.result.cost_usd, 0);
    assert.deepEqual(ran.events.map((e) => e.type), ["run_started", "guardrail", "run_finished"]);
  });

  await t.step("on the output: the denied text never leaves through the result", async () => {
    const ran = await run(tmp.path, "deny-output", {
      model: scripted([{ text: "The key is sk-12345." }]),
      guardrails: [{ builtin: "deny_pattern", name: "no-keys", pattern: "sk-\\d+" }],
    }, "what is the key?");
    assertHalted(ran, {
      name: "no-keys",
      kind: "deny_pattern",
      stage: "model_response",
      reason: /output matches/,
    });
    assert.equal(ran.result.output, "");
    assert.ok(!JSON.stringify(ran.result).includes("sk-12345"));
    assert.equal(ran.row.output_excerpt, "", "nor through the hive");
    assert.ok(!ran.row.error!.includes("sk-12345"));
  });

  await t.step("on tool arguments: the tool never runs", async () => {
    const ran = await run(tmp.path, "deny-args", {
      model: scripted([
        {
          tool_calls: [{
            name: "file_write",
            arguments: { path: "workspace/out.txt", content: "rm -rf /" },
          }],
        },
        { text: "never reached" },
      ]),
      tools: [{ builtin: "file_write" }],
      guardrails: [{ builtin: "deny_pattern", pattern: "rm -rf" }],
    }, "clean up");
    assertHalted(ran, {
      name: "deny_pattern",
      kind: "deny_pattern",
      stage: "tool_call",
      reason: /arguments of file_write match/,
    });
    assert.equal(ofType(ran.events, "tool_call").length, 0);
    assert.equal(ofType(ran.events, "tool_result").length, 0);
    await assert.rejects(Deno.stat(`${ran.dir}/workspace/out.txt`), Deno.errors.NotFound);
  });

  await t.step("`on` restricts where it looks", async () => {
    const spec = (on: string[]) => ({
      model: scripted([
        { tool_calls: [{ name: "load_skill", arguments: { name: "banana" } }] },
        { text: "banana bread" },
      ]),
      skills: [{ name: "banana", description: "Fruit", instructions: "Peel first." }],
      guardrails: [{ builtin: "deny_pattern", pattern: "banana", on }],
    });
    const input = await run(tmp.path, "deny-on-input", spec(["input"]), "plain question");
    assert.equal(input.result.status, "success", "output and arguments are not looked at");
    assert.equal(input.result.output, "banana bread");

    const output = await run(tmp.path, "deny-on-output", spec(["output"]), "banana?");
    assertHalted(output, { name: "deny_pattern", kind: "deny_pattern", stage: "model_response" });
    assert.equal(ofType(output.events, "tool_result").length, 1, "the arguments were let through");
    assert.equal(guardEvent(output.events).turn, 2);

    const args = await run(tmp.path, "deny-on-args", spec(["tool_args"]), "banana?");
    assertHalted(args, { name: "deny_pattern", kind: "deny_pattern", stage: "tool_call" });
    assert.equal(ofType(args.events, "model_call").length, 1, "the input was let through");
  });

  await t.step("flags: i matches regardless of case; without it case matters", async () => {
    const spec = (flags?: string) => ({
      model: scripted([{ text: "ok" }]),
      guardrails: [{
        builtin: "deny_pattern",
        pattern: "PASSWORD",
        on: ["input"],
        ...(flags ? { flags } : {}),
      }],
    });
    const insensitive = await run(tmp.path, "deny-flags-i", spec("i"), "my password is x");
    assertHalted(insensitive, { name: "deny_pattern", kind: "deny_pattern", stage: "input" });
    const sensitive = await run(tmp.path, "deny-flags-none", spec(), "my password is x");
    assert.equal(sensitive.result.status, "success");
  });
});

Deno.test("allow_tools halts before a tool that is not in the list runs", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const ran = await run(
    tmp.path,
    "allow",
    {
      model: scripted([
        { tool_calls: listFiles() },
        { tool_calls: [{ name: "file_read", arguments: { path: "workspace/a.txt" } }] },
        { text: "never reached" },
      ]),
      tools: [{ builtin: "list_files" }, { builtin: "file_read" }],
      guardrails: [{ builtin: "allow_tools", tools: ["list_files"] }],
    },
    "go",
    { files: { "workspace/a.txt": "a" } },
  );
  assertHalted(ran, {
    name: "allow_tools",
    kind: "allow_tools",
    stage: "tool_call",
    reason: /The tool file_read is not allowed \(allowed: list_files\)/,
  });
  assert.deepEqual(ofType(ran.events, "tool_result").map((e) => e.payload.name), ["list_files"]);
  assert.deepEqual(ofType(ran.events, "tool_call").map((e) => e.payload.name), ["list_files"]);
});

const GUARD_MODULE = `
export function check(state) {
  if (state.stage === "tool_call" && state.tool.name === "file_write") {
    return { halt: true, reason: "No writes allowed: " + state.tool.arguments.path };
  }
  return { halt: false };
}

export function boom() {
  throw new Error("the guard exploded");
}

export function hang() {
  while (true) { /* never returns */ }
}
`;

Deno.test("code guardrails run in the sandbox of a trusted folder; one that throws halts the run", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const files = { "guards/g.ts": GUARD_MODULE };
  const writeThenRead = scripted([
    { tool_calls: listFiles() },
    {
      tool_calls: [{ name: "file_write", arguments: { path: "workspace/x.txt", content: "x" } }],
    },
    { text: "never reached" },
  ]);

  await t.step("a code guardrail halts the stage it refuses", async () => {
    const ran = await run(
      tmp.path,
      "code-guard",
      {
        model: writeThenRead,
        tools: [{ builtin: "list_files" }, { builtin: "file_write" }],
        guardrails: [{ code: "guards/g.ts#check" }],
      },
      "go",
      { files, trust: true },
    );
    const g = assertHalted(ran, { name: "check", kind: "code", stage: "tool_call" });
    assert.equal(g.reason, "No writes allowed: workspace/x.txt");
    assert.equal(g.turn, 2);
    assert.deepEqual(ofType(ran.events, "tool_result").map((e) => e.payload.name), ["list_files"]);
    await assert.rejects(Deno.stat(`${ran.dir}/workspace/x.txt`), Deno.errors.NotFound);
  });

  await t.step("a code guardrail that throws never passes", async () => {
    const ran = await run(
      tmp.path,
      "code-guard-throws",
      {
        model: scripted([{ text: "never reached" }]),
        guardrails: [{ code: "guards/g.ts#boom", name: "exploding" }],
      },
      "go",
      { files, trust: true },
    );
    const g = assertHalted(ran, {
      name: "exploding",
      kind: "code",
      stage: "input",
      reason: /could not run.*the guard exploded/,
    });
    assert.equal(g.turn, 0);
    assert.equal(ofType(ran.events, "model_call").length, 0);
  });

  await t.step(
    "a code guardrail that overruns its timeout_s is stopped and halts the run",
    async () => {
      const t0 = performance.now();
      const ran = await run(
        tmp.path,
        "code-guard-hangs",
        {
          model: scripted([{ text: "never reached" }]),
          guardrails: [{ code: "guards/g.ts#hang", timeout_s: 0.5 }],
        },
        "go",
        { files, trust: true },
      );
      assertHalted(ran, {
        name: "hang",
        kind: "code",
        stage: "input",
        reason: /could not run.*did not finish within 0\.5 s/,
      });
      assert.ok(performance.now() - t0 < 10_000);
    },
  );

  await t.step(
    "an untrusted folder with a code guardrail is refused before recording a run",
    async () => {
      const dir = await writeHarness(tmp.path, "code-untrusted", {
        model: scripted([{ text: "ok" }]),
        guardrails: [{ code: "guards/g.ts#check" }],
      }, files);
      await assert.rejects(startRun(dir, { input: "go" }), (e) => {
        assert.ok(e instanceof FrameworkError);
        assert.equal(e.kind, "untrusted");
        assert.match(e.message, /guards\/g\.ts#check/);
        return true;
      });
      assert.equal(listRuns(openHive(), byId("code-untrusted")).length, 0);
      await assert.rejects(Deno.stat(`${dir}/.framework/traces`), Deno.errors.NotFound);
    },
  );
});

let counter = 0;
/** Runs a harness whose model answers `text` once, with these validators. */
function validate(root: string, text: string, validators: Spec[], extra: Spec = {}) {
  counter += 1;
  return run(root, `v-${counter}`, {
    model: scripted([{ text }]),
    verify: { validators },
    ...extra,
  }, "answer");
}

/** The `[name, ok]` of every verify event. */
const verdicts = (events: JournalEvent[]) =>
  ofType(events, "verify").map((e) => [e.payload.name, e.payload.ok]);

Deno.test("builtin validators pass and fail the final answer", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();

  await t.step("non_empty", async () => {
    const empty = await validate(tmp.path, "  \n", [{ builtin: "non_empty" }]);
    assert.equal(empty.result.status, "verify_failed");
    assert.equal(empty.result.failure_signature, "verify_failed:non_empty");
    assert.equal(empty.result.error!.reason, "non_empty");
    assert.equal(empty.result.error!.message, "non_empty: The answer is empty");
    assert.deepEqual(ofType(empty.events, "verify")[0]!.payload, {
      name: "non_empty",
      kind: "non_empty",
      ok: false,
      reason: "The answer is empty",
    });
    const full = await validate(tmp.path, "x", [{ builtin: "non_empty" }]);
    assert.equal(full.result.status, "success");
    assert.deepEqual(ofType(full.events, "verify")[0]!.payload, {
      name: "non_empty",
      kind: "non_empty",
      ok: true,
    });
  });

  await t.step("regex, named: signature verify_failed:regex:<name>", async () => {
    const v = [{ builtin: "regex", name: "order-id", pattern: "order #\\d+" }];
    const bad = await validate(tmp.path, "no order here", v);
    assert.equal(bad.result.status, "verify_failed");
    assert.equal(bad.result.failure_signature, "verify_failed:regex:order-id");
    assert.equal(bad.result.error!.reason, "regex:order-id");
    assert.match(bad.result.error!.message, /^order-id: The answer does not match/);
    assert.equal(bad.result.output, "no order here");
    const good = await validate(tmp.path, "see order #42", v);
    assert.equal(good.result.status, "success");
    const unnamed = await validate(tmp.path, "nope", [{ builtin: "regex", pattern: "^\\d+$" }]);
    assert.equal(unnamed.result.failure_signature, "verify_failed:regex");
    const flagged = await validate(tmp.path, "ORDER #7", [{ ...v[0], flags: "i" }]);
    assert.equal(flagged.result.status, "success");
  });

  await t.step("contains, with and without ignore_case", async () => {
    const exact = await validate(tmp.path, "your refund is on its way", [
      { builtin: "contains", text: "Refund" },
    ]);
    assert.equal(exact.result.status, "verify_failed");
    assert.equal(exact.result.failure_signature, "verify_failed:contains");
    assert.match(exact.result.error!.message, /does not contain "Refund"/);
    const loose = await validate(tmp.path, "your refund is on its way", [
      { builtin: "contains", text: "Refund", ignore_case: true },
    ]);
    assert.equal(loose.result.status, "success");
    const present = await validate(tmp.path, "A Refund.", [{
      builtin: "contains",
      text: "Refund",
    }]);
    assert.equal(present.result.status, "success");
  });

  await t.step("max_length", async () => {
    const long = await validate(tmp.path, "toolong", [{ builtin: "max_length", max: 5 }]);
    assert.equal(long.result.status, "verify_failed");
    assert.equal(long.result.failure_signature, "verify_failed:max_length");
    assert.match(long.result.error!.message, /7 characters, over 5/);
    const exact = await validate(tmp.path, "fives", [{ builtin: "max_length", max: 5 }]);
    assert.equal(exact.result.status, "success");
  });

  await t.step("json: plain, fenced, not JSON, and a JSON Schema", async () => {
    const json = [{ builtin: "json" }];
    assert.equal((await validate(tmp.path, '{"a": 1}', json)).result.status, "success");
    assert.equal(
      (await validate(tmp.path, '```json\n{"a": 1}\n```', json)).result.status,
      "success",
    );
    const notJson = await validate(tmp.path, "not json", json);
    assert.equal(notJson.result.status, "verify_failed");
    assert.equal(notJson.result.failure_signature, "verify_failed:json");
    assert.match(notJson.result.error!.message, /^json: The answer is not JSON/);

    const schema = [{
      builtin: "json",
      name: "order-json",
      schema: {
        type: "object",
        required: ["id", "total"],
        properties: { id: { type: "string" }, total: { type: "number" } },
      },
    }];
    const missing = await validate(tmp.path, '{"id": "A1"}', schema);
    assert.equal(missing.result.status, "verify_failed");
    assert.equal(missing.result.failure_signature, "verify_failed:json:order-json");
    assert.match(missing.result.error!.message, /does not match the schema: .*total/);
    const wrongType = await validate(tmp.path, '{"id": 5, "total": 3}', schema);
    assert.equal(wrongType.result.status, "verify_failed");
    assert.match(wrongType.result.error!.message, /does not match the schema: .*id/);
    const ok = await validate(tmp.path, '```json\n{"id": "A1", "total": 3.5}\n```', schema);
    assert.equal(ok.result.status, "success");
  });

  await t.step(
    "every validator runs after one fails; the message lists every failure",
    async () => {
      const ran = await validate(tmp.path, "hello there", [
        { builtin: "non_empty" },
        { builtin: "regex", name: "order-id", pattern: "order #\\d+" },
        { builtin: "contains", text: "zzz" },
        { builtin: "max_length", max: 1000 },
        { builtin: "json" },
      ]);
      assert.equal(ran.result.status, "verify_failed");
      assert.equal(
        ran.result.failure_signature,
        "verify_failed:regex:order-id",
        "the first failure",
      );
      assert.deepEqual(verdicts(ran.events), [
        ["non_empty", true],
        ["order-id", false],
        ["contains", false],
        ["max_length", true],
        ["json", false],
      ]);
      const parts = ran.result.error!.message.split("; ");
      assert.equal(parts.length, 3);
      assert.match(parts[0]!, /^order-id: The answer does not match/);
      assert.match(parts[1]!, /^contains: The answer does not contain "zzz"/);
      assert.match(parts[2]!, /^json: The answer is not JSON/);
      const types = ran.events.map((e) => e.type);
      assert.deepEqual(types.slice(-6), [...Array(5).fill("verify"), "run_finished"]);
    },
  );
});

const VALIDATOR_MODULE = `
export function validate(output) {
  if (output.startsWith("good")) return true;
  if (output.startsWith("bad")) return { ok: false, reason: "the answer is bad" };
  throw new Error("the validator exploded");
}
`;

Deno.test("code validators: true passes, {ok: false, reason} fails, a throw fails with a reason", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "code-validator", {
    model: {
      provider: "scripted",
      scenarios: [
        { match: "^good", replies: [{ text: "good answer" }] },
        { match: "^bad", replies: [{ text: "bad answer" }] },
        { match: "^boom", replies: [{ text: "boom" }] },
      ],
    },
    verify: {
      validators: [{ code: "checks/v.ts#validate" }, { builtin: "non_empty" }],
    },
  }, { "checks/v.ts": VALIDATOR_MODULE });
  await trustFolder(dir);
  const once = async (input: string) => {
    const handle = await startRun(dir, { input });
    const result = await handle.result;
    const events = parseJournal(await Deno.readFile(handle.trace_path));
    return { result, verify: ofType(events, "verify").map((e) => e.payload) };
  };

  const good = await once("good");
  assert.equal(good.result.status, "success");
  assert.equal(good.result.output, "good answer");
  assert.deepEqual(good.verify, [
    { name: "validate", kind: "code", ok: true },
    { name: "non_empty", kind: "non_empty", ok: true },
  ]);

  const bad = await once("bad");
  assert.equal(bad.result.status, "verify_failed");
  assert.equal(bad.result.failure_signature, "verify_failed:code:validate");
  assert.equal(bad.result.error!.message, "validate: the answer is bad");
  assert.deepEqual(bad.verify, [
    { name: "validate", kind: "code", ok: false, reason: "the answer is bad" },
    { name: "non_empty", kind: "non_empty", ok: true },
  ]);

  const boom = await once("boom");
  assert.equal(boom.result.status, "verify_failed");
  assert.equal(boom.result.failure_signature, "verify_failed:code:validate");
  assert.match(boom.result.error!.message, /^validate: The validator could not run: .*exploded/);
  assert.equal(boom.verify.length, 2, "the builtin after it still ran");
  assert.equal(boom.verify[0]!.ok, false);
  assert.equal(boom.verify[1]!.ok, true);
});
